// Compressed answers (src/http/compression.ts) through real HTTP, on the storage of the run:
// brotli or gzip as Accept-Encoding asks, the same bytes once decoded as the plain answer, small
// bodies sent as they are, and every header of the contract (request id, rate limits, Retry-After,
// idempotent replays) unchanged. Each decoded answer is checked against openapi.json.
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD_BYTES } from '../../src/http/compression.js';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import { api, createTenant, newIdempotencyKey, type Tenant } from '../helpers/context.js';
import { sendRaw as send } from '../helpers/raw-http.js';

let app: ListeningApp;
let tenant: Tenant;

beforeAll(async () => {
  app = await startListeningApp();
  tenant = await createTenant(app.db);
  // Enough customers for a page well over the threshold.
  for (let index = 0; index < 12; index++) {
    const created = await send(
      app,
      'POST',
      '/customers',
      {
        authorization: `Bearer ${tenant.key}`,
        'content-type': 'application/json',
        'idempotency-key': newIdempotencyKey('compression'),
      },
      JSON.stringify({ name: `Cliente ${index} da Beira`, address: `Avenida Eduardo Mondlane, ${index}` }),
    );
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await app?.close();
});

const auth = () => ({ authorization: `Bearer ${tenant.key}` });

describe('compressed answers', () => {
  it('a page is sent as brotli or gzip as asked, and decodes to the very bytes of the plain answer', async () => {
    const plain = await send(app, 'GET', '/customers?per_page=100', auth());
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.wire.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
    for (const [asked, expected] of [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['*', 'gzip'],
    ] as const) {
      const compressed = await send(app, 'GET', '/customers?per_page=100', {
        ...auth(),
        'accept-encoding': asked,
      });
      expect(compressed.status).toBe(200);
      expect(compressed.headers['content-encoding'], asked).toBe(expected);
      expect(compressed.headers.vary).toMatch(/accept-encoding/i);
      expect(compressed.wire.length).toBeLessThan(plain.wire.length / 3);
      expect(compressed.text).toBe(plain.text);
      expect(compressed.headers['x-request-id']).toMatch(/^req_/);
      expect(compressed.headers['x-ratelimit-limit']).toBe(plain.headers['x-ratelimit-limit']);
      expect(compressed.headers['ratelimit-policy']).toBe(plain.headers['ratelimit-policy']);
    }
  });

  it('an injected request that asks for brotli is still checked against openapi.json, decoded', async () => {
    const answer = await api(app.app, 'GET', '/customers?per_page=100', {
      key: tenant.key,
      headers: { 'accept-encoding': 'br' },
    });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(answer.rawPayload).toString('utf8')).data.length).toBeGreaterThan(
      10,
    );
  });

  it('what is not asked for, or not offered, is sent plain: identity, deflate, none', async () => {
    for (const asked of ['identity', 'deflate', 'compress', undefined]) {
      const answer = await send(app, 'GET', '/customers?per_page=100', {
        ...auth(),
        ...(asked ? { 'accept-encoding': asked } : {}),
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding'], String(asked)).toBeUndefined();
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
    }
  });

  it(`a body under ${COMPRESSION_THRESHOLD_BYTES} bytes (one customer, /ping, an error envelope) is sent as it is`, async () => {
    const page = JSON.parse((await send(app, 'GET', '/customers?per_page=1', auth())).text);
    const id = page.data[0].id as number;
    for (const path of [`/customers/${id}`, '/ping', '/customers/999999999']) {
      const answer = await send(app, 'GET', path, { ...auth(), 'accept-encoding': 'gzip, br' });
      expect(answer.headers['content-encoding'], path).toBeUndefined();
      expect(answer.wire.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
    }
    const missing = await send(app, 'GET', '/customers/999999999', { ...auth(), 'accept-encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error.code).toBe('resource_not_found');
  });

  it('an idempotent replay of a large answer is compressed like the first and decodes to the same bytes', async () => {
    const key = newIdempotencyKey('compression-replay');
    const body = JSON.stringify({
      name: 'N'.repeat(255),
      address: 'Rua da Resistência, '.repeat(24),
      phone: '8'.repeat(50),
      contact_number: '8'.repeat(50),
    });
    const headers = {
      ...auth(),
      'content-type': 'application/json',
      'idempotency-key': key,
      'accept-encoding': 'gzip',
    };
    const first = await send(app, 'POST', '/customers', headers, body);
    expect(first.status).toBe(201);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
    expect(first.headers['content-encoding']).toBe('gzip');
    const again = await send(app, 'POST', '/customers', { ...headers, 'accept-encoding': 'br' }, body);
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.headers['content-encoding']).toBe('br');
    expect(again.text).toBe(first.text);
    const plain = await send(app, 'POST', '/customers', { ...headers, 'accept-encoding': 'identity' }, body);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(first.text);
  });

  it('a request body labelled Content-Encoding is not decompressed: it is read as sent', async () => {
    const answer = await send(
      app,
      'POST',
      '/customers',
      {
        ...auth(),
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'idempotency-key': newIdempotencyKey('compression-request'),
      },
      '{"name":"Cliente comprimido"}',
    );
    // The body was plain JSON labelled gzip: taken as the plain JSON it is, never inflated.
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text).data.name).toBe('Cliente comprimido');
  });
});

describe('compressed refusals keep their headers', () => {
  it('a 429 asked with gzip carries Retry-After and the RateLimit headers, and its envelope', async () => {
    const limited = await startListeningApp({ RATE_LIMIT_KEY_PER_MINUTE: '2' });
    try {
      const own = await createTenant(limited.db);
      const headers = { authorization: `Bearer ${own.key}`, 'accept-encoding': 'gzip, br' };
      const answers = [];
      for (let index = 0; index < 3; index++) answers.push(await send(limited, 'GET', '/ping', headers));
      const refused = answers[2]!;
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers.ratelimit).toMatch(/^"key-minute";r=0;t=\d+$/);
      expect(JSON.parse(refused.text).error.code).toBe('rate_limit_exceeded');
    } finally {
      await limited.close();
    }
  });
});
