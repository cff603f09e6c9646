// Compression that cannot lose a body (issue 30): every route that can answer over the 1 KB
// threshold, asked with each encoding partners' HTTP stacks send (none, gzip, br, and the
// `gzip, deflate, br` of Node's fetch, Python's requests, PHP's Guzzle), at sizes around the
// threshold, around the plugin's synchronous limit (8 KB on 2 cores: above it the answer is
// streamed) and far above it (a 200-line draft of about 300 KB), first answers and replays.
// Each answer decodes to the very bytes of the plain one, and a Content-Length, when sent, is
// the length of what was sent. A 200-line draft answered `Content-Length: 0` before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD_BYTES } from '../../src/http/compression.js';
import { issueInvoice, recordReceipt } from '../../src/operations/invoices.js';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import {
  asOperator,
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  type Tenant,
} from '../helpers/context.js';
import { createCustomer, createDraft, createProduct } from '../helpers/invoices.js';
import { type RawAnswer, sendRaw } from '../helpers/raw-http.js';

const ENCODINGS = [
  { asked: undefined, expected: undefined },
  { asked: 'gzip', expected: 'gzip' },
  { asked: 'br', expected: 'br' },
  { asked: 'gzip, deflate, br', expected: 'br' },
] as const;

let app: ListeningApp;
let tenant: Tenant;
let customerId: number;
let productId: number;

beforeAll(async () => {
  app = await startListeningApp(GENEROUS_LIMITS);
  tenant = await createTenant(app.db);
  customerId = await createCustomer(app.app, tenant, 'Cliente de Nampula');
  productId = await createProduct(app.app, app.db, tenant, { name: 'Saco de cimento', price: 450 });
});

afterAll(async () => {
  await app?.close();
});

const auth = () => ({ authorization: `Bearer ${tenant.key}` });

/** What every answer must hold, whatever the encoding: a length that is the length sent. */
function expectWhole(answer: RawAnswer, what: string): void {
  const length = answer.headers['content-length'];
  if (length !== undefined) expect(Number(length), `${what}: Content-Length`).toBe(answer.wire.length);
  expect(answer.wire.length, `${what}: an empty body`).toBeGreaterThan(0);
  expect(answer.headers.vary, what).toMatch(/accept-encoding/i);
}

/** The same request with each encoding: each decodes to the plain answer's bytes. */
async function expectSameInEveryEncoding(method: string, path: string, extra: Record<string, string> = {}) {
  const answers: RawAnswer[] = [];
  for (const { asked, expected } of ENCODINGS) {
    const answer = await sendRaw(app, method, path, {
      ...auth(),
      ...extra,
      ...(asked ? { 'accept-encoding': asked } : {}),
    });
    const what = `${method} ${path} with ${asked ?? 'no Accept-Encoding'}`;
    expectWhole(answer, what);
    const plainSize = Buffer.byteLength(answer.text);
    expect(answer.headers['content-encoding'], what).toBe(
      plainSize >= COMPRESSION_THRESHOLD_BYTES ? expected : undefined,
    );
    answers.push(answer);
  }
  for (const answer of answers.slice(1)) expect(answer.text).toBe(answers[0]!.text);
  return answers[0]!;
}

function lines(count: number, description = '') {
  return Array.from({ length: count }, (_, index) => ({
    product_id: productId,
    quantity: 1,
    price: index + 1,
    ...(description ? { description } : {}),
  }));
}

describe('compression cannot lose a body (issue 30)', () => {
  // 1 line is under the threshold, 5 around it, 40 past the synchronous limit, 200 with long
  // descriptions far above it.
  for (const [count, description] of [
    [1, ''],
    [5, ''],
    [20, ''],
    [40, ''],
    [200, ''],
    [200, 'Cimento Portland 42,5 N em sacos de 50 kg, entregue na obra. '.repeat(24)],
  ] as const) {
    it(`POST /invoices with ${count} lines${description ? ' and long descriptions' : ''}: each encoding's first answer and replays carry the whole draft`, async () => {
      const body = JSON.stringify({
        customer_id: customerId,
        invoice_date: '2026-11-27',
        items: lines(count, description),
      });
      const firsts: RawAnswer[] = [];
      for (const { asked, expected } of ENCODINGS) {
        const key = newIdempotencyKey(`sizes-${count}`);
        const headers = {
          ...auth(),
          'content-type': 'application/json',
          'idempotency-key': key,
          ...(asked ? { 'accept-encoding': asked } : {}),
        };
        const what = `${count} lines, ${asked ?? 'no Accept-Encoding'}`;
        const first = await sendRaw(app, 'POST', '/invoices', headers, body);
        expect(first.status, first.text).toBe(201);
        expectWhole(first, what);
        const created = JSON.parse(first.text).data;
        expect(created.items).toHaveLength(count);
        expect(first.headers['content-encoding'], what).toBe(
          Buffer.byteLength(first.text) >= COMPRESSION_THRESHOLD_BYTES ? expected : undefined,
        );
        // The replay, in every encoding, is the first answer's bytes; so is a later GET.
        for (const again of ENCODINGS) {
          const replay = await sendRaw(
            app,
            'POST',
            '/invoices',
            { ...headers, 'accept-encoding': again.asked ?? 'identity' },
            body,
          );
          expect(replay.headers['idempotency-replay']).toBe('true');
          expectWhole(replay, `${what}, replayed with ${again.asked ?? 'identity'}`);
          expect(replay.text).toBe(first.text);
        }
        const read = await expectSameInEveryEncoding('GET', `/invoices/${created.id}`);
        expect(read.text).toBe(first.text);
        firsts.push(first);
      }
      expect(new Set(firsts.map((first) => JSON.parse(first.text).data.id)).size).toBe(ENCODINGS.length);
    });
  }

  it('a 422 naming a problem in each of 200 lines (an envelope far over the threshold) is whole in each encoding', async () => {
    const body = JSON.stringify({
      customer_id: customerId,
      invoice_date: '2026-11-27',
      items: Array.from({ length: 200 }, () => ({ product_id: productId, quantity: -1, price: -1 })),
    });
    let plain: string | undefined;
    for (const { asked } of ENCODINGS) {
      const answer = await sendRaw(
        app,
        'POST',
        '/invoices',
        {
          ...auth(),
          'content-type': 'application/json',
          'idempotency-key': newIdempotencyKey('sizes-422'),
          ...(asked ? { 'accept-encoding': asked } : {}),
        },
        body,
      );
      expect(answer.status).toBe(422);
      expectWhole(answer, `422 with ${asked ?? 'no Accept-Encoding'}`);
      const envelope = JSON.parse(answer.text);
      expect(envelope.error.code).toBe('validation_failed');
      const withoutId = JSON.stringify({ ...envelope, error: { ...envelope.error, request_id: '' } });
      plain ??= withoutId;
      expect(withoutId).toBe(plain);
    }
  });

  it('customers and products written with long fields (over the threshold) answer whole in each encoding, first and replayed', async () => {
    const writes = [
      {
        path: '/customers',
        method: 'POST',
        body: {
          name: 'C'.repeat(255),
          address: 'Avenida Julius Nyerere, '.repeat(20),
          phone: '8'.repeat(50),
          contact_number: '8'.repeat(50),
        },
      },
      {
        path: '/products',
        method: 'POST',
        body: {
          name: 'Produto de descrição longa',
          type: 'GOODS',
          inventory: 'INVENTORY',
          price: 99.5,
          description: 'Descrição. '.repeat(180),
        },
      },
    ];
    for (const write of writes) {
      for (const { asked } of ENCODINGS) {
        const headers = {
          ...auth(),
          'content-type': 'application/json',
          'idempotency-key': newIdempotencyKey('sizes-write'),
          ...(asked ? { 'accept-encoding': asked } : {}),
        };
        const first = await sendRaw(app, write.method, write.path, headers, JSON.stringify(write.body));
        expect(first.status, first.text).toBe(201);
        expect(Buffer.byteLength(first.text)).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
        expectWhole(first, `${write.path} ${asked}`);
        const replay = await sendRaw(app, write.method, write.path, headers, JSON.stringify(write.body));
        expect(replay.text).toBe(first.text);
        const id = JSON.parse(first.text).data.id as number;
        const read = await expectSameInEveryEncoding('GET', `${write.path}/${id}`);
        expect(read.text).toBe(first.text);
        // PUT, answered with the whole resource.
        const put = await sendRaw(
          app,
          'PUT',
          `${write.path}/${id}`,
          { ...headers, 'idempotency-key': newIdempotencyKey('sizes-put') },
          JSON.stringify(write.body),
        );
        expect(put.status, put.text).toBe(200);
        expectWhole(put, `PUT ${write.path} ${asked}`);
        expect(JSON.parse(put.text).data.id).toBe(id);
      }
    }
  });

  it('every list at page sizes around the threshold and the synchronous limit answers whole in each encoding', async () => {
    // Receipts to list: two drafts issued and paid through the operator's operations.
    for (let index = 0; index < 2; index++) {
      const draft = await createDraft(app.app, tenant, {
        customer_id: customerId,
        invoice_date: '2026-11-20',
        items: [{ product_id: productId, quantity: 1, price: 1000 }],
      });
      await issueInvoice(asOperator(app.db), draft.id);
      for (let receipt = 0; receipt < 12; receipt++) {
        await recordReceipt(asOperator(app.db), { invoiceId: draft.id, amount: '10.00', date: '2026-11-21' });
      }
    }
    for (const list of ['/customers', '/products', '/invoices', '/payments']) {
      for (const perPage of [1, 3, 10, 30, 100]) {
        const answer = await expectSameInEveryEncoding('GET', `${list}?per_page=${perPage}`);
        expect(answer.status).toBe(200);
      }
    }
  });
});
