// One request over a new connection with node's http, which never decodes: the body kept as it
// came over the wire and decoded as its Content-Encoding says, so compression tests compare the
// very bytes. Every answer is checked against openapi.json (decoded).
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { API_PREFIX } from '../../src/app.js';
import type { ListeningApp } from './client-server.js';
import { assertConforms } from './conformance.js';

const ANSWER_TIMEOUT_MS = 20_000;

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body bytes as they came over the wire. */
  wire: Buffer;
  /** The body decoded as its Content-Encoding says. */
  text: string;
}

export function decodeBody(encoding: string | undefined, bytes: Buffer): Buffer {
  if (encoding === undefined) return bytes;
  if (encoding === 'gzip') return gunzipSync(bytes);
  if (encoding === 'br') return brotliDecompressSync(bytes);
  throw new Error(`unexpected Content-Encoding ${encoding}`);
}

/** `path` is relative to the API's prefix (`/customers?per_page=100`). */
export function sendRaw(
  app: ListeningApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = `${app.baseUrl}${path}`;
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const wire = Buffer.concat(chunks);
        const encoding = response.headers['content-encoding'];
        const text = decodeBody(encoding, wire).toString('utf8');
        const answer = { status: response.statusCode ?? 0, headers: response.headers, wire, text };
        assertConforms({
          method,
          url: `${API_PREFIX}${path}`,
          status: answer.status,
          headers: response.headers as Record<string, string>,
          body: text,
        });
        resolve(answer);
      });
    });
    request.on('error', reject);
    // Bounded: a broken answer (a length that is not what was sent) must fail, not hang the test.
    request.setTimeout(ANSWER_TIMEOUT_MS, () => {
      request.destroy(new Error(`${method} ${path}: no whole answer within ${ANSWER_TIMEOUT_MS} ms`));
    });
    request.end(body);
  });
}
