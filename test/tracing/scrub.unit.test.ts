// The last pass over every span before export (src/tracing/scrub.ts) and the rule that turns
// tracing on (src/tracing/start.ts): decisions.md "Tracing": off unless the standard OTEL_*
// variables name an exporter; nothing exported holds a key, a secret or a body.
import { describe, expect, it } from 'vitest';
import { REDACTED, scrubAttributes } from '../../src/tracing/scrub.js';
import { tracingRequested } from '../../src/tracing/start.js';

const KEY = `svc_sk_live_${'a1B2'.repeat(10)}`;

describe('nothing exported holds a key, a secret or a body', () => {
  it("drops credentials, headers and bodies by name, and a URL's query", () => {
    const attributes: Record<string, unknown> = {
      'http.request.header.authorization': [`Bearer ${KEY}`],
      'http.request.body': '{"name":"x"}',
      'webhook.secret': 'whsec_abc',
      'url.full': `https://partner.example/hook?token=${KEY}`,
      'url.path': '/api/v1/partner/customers',
      'url.query': `api_key=${KEY}`,
      'db.query.text': 'select 1 where x = $1',
      'invoicing.api_key_id': 7,
      'http.request.body.size': 12,
      'exception.message': `bad key ${KEY} and whsec_c2VjcmV0`,
    };
    scrubAttributes(attributes);
    expect(attributes).toEqual({
      'url.full': 'https://partner.example/hook',
      'url.path': '/api/v1/partner/customers',
      'db.query.text': 'select 1 where x = $1',
      'invoicing.api_key_id': 7,
      'http.request.body.size': 12,
      'exception.message': `bad key ${REDACTED} and ${REDACTED}`,
    });
  });
});

describe('tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER asks for it', () => {
  it.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }, false],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
  ])('%o: %s', (env, on) => {
    expect(tracingRequested(env as Record<string, string>)).toBe(on);
  });
});
