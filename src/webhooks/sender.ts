// One HTTP attempt of a delivery: POST the body with its signed headers, at most `timeoutMs` for
// everything (connection, answer, body), no redirect followed (a 3xx is a failure), at most
// `maxResponseBytes` of the answer read. Only a 2xx answer is a success. Addresses are checked on
// the way (src/webhooks/url-safety.ts), so a URL that became unsafe fails instead of connecting.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkLiteralHost, safeLookup, type UrlPolicy } from './url-safety.js';

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** What of the answer's body the attempt log keeps. */
const EXCERPT_CHARS = 1024;
const USER_AGENT = 'invoicing-webhooks/1 (Standard Webhooks)';

export interface AttemptOptions {
  policy: UrlPolicy;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Abandons the attempt (shutdown): it then fails at once. */
  signal?: AbortSignal;
}

export interface AttemptResult {
  succeeded: boolean;
  /** The HTTP status, or null when no answer came. */
  statusCode: number | null;
  latencyMs: number;
  /** Why it failed, in a few words; null on success. */
  error: string | null;
  responseExcerpt: string | null;
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  const { code, message, name } = error as NodeJS.ErrnoException;
  if (name === 'UnsafeUrl') return `refused: ${message}`;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
    ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
  };
  return (code && known[code]) ?? (code ? `${code}: ${message}` : message || 'failed');
}

/** Up to `maxBytes` of the body; never fails (the status line already answered the attempt). */
function readCapped(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve(Buffer.concat(chunks));
    response.on('data', (chunk: Buffer) => {
      const room = maxBytes - size;
      if (room > 0) {
        chunks.push(room >= chunk.length ? chunk : chunk.subarray(0, room));
        size += Math.min(room, chunk.length);
      }
      if (size >= maxBytes) {
        // Enough: stop reading and drop the connection rather than drain an endless body.
        response.removeAllListeners('data');
        response.destroy();
        finish();
      }
    });
    response.on('end', finish);
    response.on('error', finish);
    response.on('close', finish);
  });
}

export async function sendAttempt(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: AttemptOptions,
): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let timedOut = false;
  const controller = new AbortController();
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const abandon = () => controller.abort();
  if (options.signal?.aborted) abandon();
  options.signal?.addEventListener('abort', abandon, { once: true });
  try {
    const url = new URL(rawUrl);
    checkLiteralHost(url, options.policy);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const payload = Buffer.from(body, 'utf8');
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(url, {
        method: 'POST',
        agent: false,
        signal: controller.signal,
        lookup: safeLookup(url.protocol, options.policy),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'user-agent': USER_AGENT,
        },
      });
      request.once('response', resolve);
      request.once('error', reject);
      request.end(payload);
    });
    const answer = await readCapped(response, maxBytes);
    const statusCode = response.statusCode ?? 0;
    const succeeded = statusCode >= 200 && statusCode < 300;
    const excerpt = answer
      .toString('utf8', 0, Math.min(answer.length, EXCERPT_CHARS * 4))
      .slice(0, EXCERPT_CHARS);
    return {
      succeeded,
      statusCode,
      latencyMs: elapsed(),
      error: succeeded
        ? null
        : statusCode >= 300 && statusCode < 400
          ? `HTTP ${statusCode}: redirects are not followed`
          : `HTTP ${statusCode}`,
      responseExcerpt: excerpt === '' ? null : excerpt,
    };
  } catch (error) {
    return {
      succeeded: false,
      statusCode: null,
      latencyMs: elapsed(),
      error: describeFailure(error, timedOut, timeoutMs),
      responseExcerpt: null,
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abandon);
  }
}
