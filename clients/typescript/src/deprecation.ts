// Tells the program's developers when the API answers that something the program uses is
// deprecated (the compatibility policy: `Deprecation` RFC 9745, `Sunset` RFC 8594, `Link`
// rel="deprecation"): once per call site of the program, as a process warning
// (DeprecationWarning), or to `onDeprecation` instead. Works on the answers as fetch returns them,
// so the retries, the pacing and the bodies are left alone.
import type { FetchFunction, FetchResponse } from './transport.js';

/** What `onDeprecation` receives (and the warning says). */
export interface DeprecationInfo {
  method: string;
  /** The request's path under the base address, without its query (e.g. `/customers`). */
  path: string;
  /** Since when it is deprecated (`Deprecation: @<seconds>`), or null if the header is missing. */
  deprecatedAt: Date | null;
  /** From when it may stop working (`Sunset`), or null. */
  sunsetAt: Date | null;
  /** The `rel="deprecation"` link: where the docs explain it. */
  link: string | null;
  /** Where the program made the call (`file:line:column`), or null if it cannot be told. */
  callSite: string | null;
}

const OWN_FILES = new URL('.', import.meta.url).href;
const OWN_PATH = decodeURIComponent(new URL('.', import.meta.url).pathname);

/** The reading of the deprecation headers of an answer, or null when it has none. */
export function deprecationOf(
  headers: FetchResponse['headers'],
  method: string,
  path: string,
): Omit<DeprecationInfo, 'callSite'> | null {
  const deprecation = headers.get('deprecation');
  const sunset = headers.get('sunset');
  if (deprecation === null && sunset === null) return null;
  const epoch = /^@(-?\d+)$/.exec(deprecation?.trim() ?? '');
  const sunsetTime = sunset === null ? Number.NaN : Date.parse(sunset);
  const link = /<([^>]*)>\s*;[^,]*rel="?deprecation"?/i.exec(headers.get('link') ?? '');
  return {
    method,
    path,
    deprecatedAt: epoch ? new Date(Number(epoch[1]) * 1000) : null,
    sunsetAt: Number.isNaN(sunsetTime) ? null : new Date(sunsetTime),
    link: link ? (link[1] as string) : null,
  };
}

/** The first frame of the stack outside this package (and outside Node itself). */
function callSite(): string | null {
  const holder = Error as { stackTraceLimit?: number };
  const limit = holder.stackTraceLimit;
  holder.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  holder.stackTraceLimit = limit;
  for (const line of stack.split('\n').slice(1)) {
    const frame = /\(?((?:file:\/\/)?[^\s()]+:\d+:\d+)\)?\s*$/.exec(line.trim());
    const where = frame?.[1];
    if (!where || where.startsWith('node:') || where.includes(OWN_FILES) || where.startsWith(OWN_PATH))
      continue;
    return where;
  }
  return null;
}

function warn(info: DeprecationInfo): void {
  const dates = [
    info.deprecatedAt ? `deprecated since ${info.deprecatedAt.toISOString().slice(0, 10)}` : 'deprecated',
    info.sunsetAt ? `may stop working from ${info.sunsetAt.toISOString().slice(0, 10)}` : null,
  ].filter(Boolean);
  const message = `Partner API: ${info.method} ${info.path} uses something ${dates.join(', ')}${info.link ? ` (${info.link})` : ''}${info.callSite ? `, called at ${info.callSite}` : ''}.`;
  const node = globalThis as {
    process?: { emitWarning?(message: string, options: { type: string; code: string }): void };
  };
  if (node.process?.emitWarning)
    node.process.emitWarning(message, { type: 'DeprecationWarning', code: 'PARTNER_API_DEPRECATED' });
  else console.warn(message);
}

/**
 * `fetch`, watching its answers: the first answer with deprecation headers for each call site
 * (and method and path) is told, later ones from the same place are not.
 */
export function watchDeprecations(
  fetch: FetchFunction,
  baseUrl: string,
  onDeprecation: ((info: DeprecationInfo) => void) | undefined,
): FetchFunction {
  const told = new Set<string>();
  const base = baseUrl.replace(/\/+$/, '');
  return async (url, init) => {
    const response = await fetch(url, init);
    const path = (url.startsWith(base) ? url.slice(base.length) : url).split('?')[0] as string;
    const found = deprecationOf(response.headers, init.method, path);
    if (found) {
      const info = { ...found, callSite: callSite() };
      const key = `${info.callSite ?? ''} ${info.method} ${path}`;
      if (!told.has(key)) {
        told.add(key);
        (onDeprecation ?? warn)(info);
      }
    }
    return response;
  };
}
