// What never leaves in a trace: an API key (also one sent in a query string), an Authorization
// header, a webhook secret, a request body. The instrumentations are configured not to record
// them; this is the last pass over every span before it is exported, so a new attribute of a
// library's next version cannot leak one either.
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** An API key (`svc_sk_live_…`) or a webhook secret (`whsec_…`) anywhere in a text. */
const SECRET_TEXT = /svc_sk_(?:live|test)_[A-Za-z0-9]+|whsec_[A-Za-z0-9+/=]+/g;
/** Attributes whose name says they hold a credential or a body: dropped whole. */
const SECRET_NAME = /authorization|cookie|secret|password|api[._-]?key|token|(?:^|\.)body(?:$|\.(?!size))/i;
/** Names that say identifier or size, never the thing itself (`invoicing.api_key_id`). */
const KEPT_NAME = /(?:[._]id|\.size)$/;
/** Attributes that hold a URL or its query: the query is dropped (a key may travel in it). */
const URL_NAME = /^(?:url\.full|url\.path|url\.query|http\.url|http\.target|url\.original)$/;

export const REDACTED = '[REDACTED]';

function scrubText(name: string, value: string): string | undefined {
  if (name === 'url.query') return undefined;
  let text = URL_NAME.test(name) ? value.replace(/[?#].*$/s, '') : value;
  text = text.replace(SECRET_TEXT, REDACTED);
  return text;
}

/** The attributes without secrets: names that say credential or body dropped, texts cleaned. */
export function scrubAttributes(attributes: Record<string, unknown>): void {
  for (const name of Object.keys(attributes)) {
    const value = attributes[name];
    if (SECRET_NAME.test(name) && !KEPT_NAME.test(name)) {
      delete attributes[name];
      continue;
    }
    if (typeof value === 'string') {
      const clean = scrubText(name, value);
      if (clean === undefined) delete attributes[name];
      else if (clean !== value) attributes[name] = clean;
    } else if (Array.isArray(value)) {
      attributes[name] = value.map((each) =>
        typeof each === 'string' ? each.replace(SECRET_TEXT, REDACTED) : each,
      );
    }
  }
}

/** A span's name may carry a URL (a client span of a library): the same cleaning. */
function scrubName(span: ReadableSpan): void {
  const clean = span.name.replace(/\?.*$/s, '').replace(SECRET_TEXT, REDACTED);
  if (clean !== span.name) (span as { name: string }).name = clean;
}

/**
 * The first span processor: cleans each span as it ends, before the exporting processor queues it.
 * (A span's attributes are a plain object of the SDK's span, mutable until it is exported.)
 */
export class ScrubbingSpanProcessor implements SpanProcessor {
  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    scrubName(span);
    scrubAttributes(span.attributes as Record<string, unknown>);
    for (const event of span.events) {
      if (event.attributes) scrubAttributes(event.attributes as Record<string, unknown>);
    }
    for (const link of span.links) {
      if (link.attributes) scrubAttributes(link.attributes as Record<string, unknown>);
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
