// The TypeScript client's offline queue against a real server, on both storages: the journal on
// disk, the order and the `$local` ids, answers lost on the way back, the line down, the 24 hours
// of an Idempotency-Key (the server's records expired by SQL, the queue's clock moved), refusals,
// the store's lock and key, and the status.
import { appendFile, chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  OfflineQueue,
  type OfflineQueueOptions,
  PartnerApi,
  RefConflictError,
  StoreKeyMismatchError,
  StoreLockedError,
} from '../../../clients/typescript/src/index.js';
import { customers, invoices, products } from '../../../src/db/schema.js';
import { type ListeningApp, RecordingProxy, startListeningApp } from '../../helpers/client-server.js';
import { createTenant, type Tenant } from '../../helpers/context.js';
import {
  expireIdempotencyKeys,
  HOUR_MS,
  invoicesByReference,
  storeDirectory,
  testClock,
} from './fixtures.js';

describe('TypeScript client: the offline queue', () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let productId: number;
  let proxy: RecordingProxy;
  let store: { path: string; remove(): Promise<void> };
  const open: OfflineQueue[] = [];

  async function queueVia(
    baseUrl: string,
    options: Partial<OfflineQueueOptions> = {},
  ): Promise<OfflineQueue> {
    const queue = await OfflineQueue.open({
      path: store.path,
      apiKey: tenant.key,
      baseUrl,
      retryBaseDelayMs: 10,
      ...options,
    });
    open.push(queue);
    return queue;
  }

  const sale = <C extends number | { $local: string }>(reference: string, customer: C, price = '150.00') => ({
    customer_id: customer,
    invoice_date: '2026-11-27',
    reference,
    items: [{ product_id: productId, quantity: 2, price }],
  });

  beforeAll(async () => {
    server = await startListeningApp();
    tenant = await createTenant(server.db, { name: 'Mercearia Sem Rede, Lda' });
    const client = new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl });
    productId = (
      await client.products.create({
        name: 'Pão',
        type: 'GOODS',
        inventory: 'NON_INVENTORY',
        price: '150.00',
      })
    ).id;
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    proxy = await RecordingProxy.start(server.origin);
    store = await storeDirectory();
  });
  afterEach(async () => {
    for (const queue of open.splice(0)) await queue.close();
    await proxy.close();
    await store.remove();
  });

  it('a customer and a sale naming it by $local: sent in order, the sale points at the customer, its bytes kept', async () => {
    const queue = await queueVia(proxy.baseUrl);
    const customer = await queue.enqueue('POST', '/customers', { name: 'Ana Macuácua' });
    const invoice = await queue.enqueue(
      'POST',
      '/invoices',
      sale('TILL1-000123', { $local: customer }, '2500.55'),
    );
    expect(await queue.status()).toMatchObject({ pending: 2, done: 0, failed: 0 });

    expect(await queue.flush()).toMatchObject({ sent: 2, failed: 0, pending: 0, stopped: 'empty' });
    const made = await queue.result(customer);
    const sold = await queue.result(invoice);
    expect(made).toMatchObject({ state: 'done' });
    expect(sold).toMatchObject({ state: 'done' });
    const posts = proxy.of('POST');
    expect(posts.map((p) => p.url.replace(/^.*partner/, ''))).toEqual(['/customers', '/invoices']);
    // The id put in once, the money written as the number literal, the key made at enqueue.
    expect(posts[1]!.body.toString()).toBe(
      `{"customer_id":${made.id},"invoice_date":"2026-11-27","reference":"TILL1-000123","items":[{"product_id":${productId},"quantity":2,"price":2500.55}]}`,
    );
    const [row] = await server.db.select().from(invoices).where(eq(invoices.id, sold.id!));
    expect(row).toMatchObject({ customerId: made.id, reference: 'TILL1-000123' });
    expect(await queue.status()).toMatchObject({ pending: 0, done: 2, oldest_pending_at: null });
  });

  it('enqueue is on disk when it returns; a torn last record (a kill mid-write) is cut off, never half applied', async () => {
    const first = await queueVia(proxy.baseUrl);
    const kept = await first.enqueue('POST', '/customers', { name: 'Guardado em Disco' });
    await first.close();
    open.pop();
    const journal = join(store.path, 'journal.log');
    const before = await readFile(journal);
    // A record torn by a kill: its line cut short, and a line whose checksum does not match.
    await appendFile(journal, '0123456789abcdef {"t":"enqueue","id":"x","meth');
    const reopened = await queueVia(proxy.baseUrl);
    expect(await reopened.result(kept)).toEqual({ state: 'pending' });
    expect((await readFile(journal)).equals(before)).toBe(true);
    const next = await reopened.enqueue('POST', '/customers', { name: 'Depois do Corte' });
    await reopened.close();
    open.pop();
    await writeFile(
      journal,
      Buffer.concat([await readFile(journal), Buffer.from('ffffffffffffffff {"t":"discard"}\n')]),
    );
    const again = await queueVia(proxy.baseUrl);
    expect(await again.status()).toMatchObject({ pending: 2 });
    expect(await again.result(next)).toEqual({ state: 'pending' });
    await again.flush();
    expect(await again.status()).toMatchObject({ pending: 0, done: 2 });
  });

  it('answers lost on the way back, and the till restarted: each entry created once, with its one key and bytes', async () => {
    const seen = new Set<string>();
    // The first answer to each key is lost: the server has committed, the till never hears it.
    proxy.plan = (request) => {
      const key = String(request.headers['idempotency-key'] ?? '');
      if (request.method !== 'POST' || seen.has(key)) return { kind: 'forward' };
      seen.add(key);
      return { kind: 'lose-response' };
    };
    const till = await queueVia(proxy.baseUrl, { maxRetries: 0 });
    const references = ['PERDA-1', 'PERDA-2', 'PERDA-3'];
    const customer = await till.enqueue('POST', '/customers', { name: 'Cliente das Respostas Perdidas' });
    for (const reference of references)
      await till.enqueue('POST', '/invoices', sale(reference, { $local: customer }));
    // No retries: every send ends the flush as offline, as a till losing its line would.
    expect(await till.flush()).toMatchObject({ stopped: 'offline', sent: 0 });
    await till.close();
    open.pop();
    let rounds = 0;
    for (;;) {
      const restarted = await queueVia(proxy.baseUrl, { maxRetries: 0 });
      const result = await restarted.flush();
      await restarted.close();
      open.pop();
      rounds++;
      if (result.stopped === 'empty') break;
      expect(rounds).toBeLessThan(10);
    }
    const byKey = new Map<string, Buffer[]>();
    for (const post of proxy.of('POST')) {
      const key = String(post.headers['idempotency-key']);
      byKey.set(key, [...(byKey.get(key) ?? []), post.body]);
    }
    expect(byKey.size).toBe(4);
    for (const bodies of byKey.values()) {
      expect(bodies).toHaveLength(2);
      expect(bodies[1]!.equals(bodies[0]!)).toBe(true);
    }
    const found = await invoicesByReference(server.db, tenant.companyId, references);
    const made = await server.db
      .select()
      .from(customers)
      .where(eq(customers.name, 'Cliente das Respostas Perdidas'));
    expect(made).toHaveLength(1);
    for (const reference of references)
      expect(found.get(reference)).toEqual([{ id: expect.any(Number), customerId: made[0]!.id }]);
  });

  it('with the line down, flush stops as offline and keeps every entry; back up, it sends them', async () => {
    const customer = (
      await new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl }).customers.create({
        name: 'Sem Rede',
      })
    ).id;
    const down = 'http://127.0.0.1:1/api/v1/partner';
    const offline = await queueVia(down, { maxRetries: 1 });
    const id = await offline.enqueue('POST', '/invoices', sale('SEM-REDE-1', customer));
    expect(await offline.flush()).toMatchObject({ stopped: 'offline', pending: 1 });
    expect(await offline.result(id)).toEqual({ state: 'pending' });
    await offline.close();
    open.pop();
    const online = await queueVia(proxy.baseUrl);
    await online.enqueue('POST', '/invoices', sale('SEM-REDE-2', customer));
    expect(await online.flush()).toMatchObject({ stopped: 'empty', pending: 0, sent: 2, failed: 0 });
    const found = await invoicesByReference(server.db, tenant.companyId, ['SEM-REDE-1', 'SEM-REDE-2']);
    expect([found.get('SEM-REDE-1')?.length, found.get('SEM-REDE-2')?.length]).toEqual([1, 1]);
    expect(found.get('SEM-REDE-1')![0]!.id).toBeLessThan(found.get('SEM-REDE-2')![0]!.id);
  });

  it('refused entries go to the failed list with the server error and body, their dependants with them; resend and discard', async () => {
    const queue = await queueVia(proxy.baseUrl);
    const bad = await queue.enqueue('POST', '/customers', { name: 'Email Mau', email: 'não-é-email' });
    const dependant = await queue.enqueue('POST', '/invoices', sale('DEPENDE-1', { $local: bad }));
    const fine = await queue.enqueue('POST', '/customers', { name: 'Cliente Bom' });
    const result = await queue.flush();
    expect(result).toMatchObject({ sent: 1, failed: 2, pending: 0, stopped: 'empty' });
    expect(await queue.result(fine)).toMatchObject({ state: 'done' });
    const failed = await queue.failed();
    expect(failed.map((f) => f.local_id)).toEqual([bad, dependant]);
    expect(failed[0]).toMatchObject({
      method: 'POST',
      path: '/customers',
      body: '{"name":"Email Mau","email":"não-é-email"}',
      error: { status: 422, code: 'validation_failed', request_id: expect.any(String) },
    });
    expect(Object.keys(failed[0]!.error.errors ?? {})).toContain('email');
    expect(failed[1]!.error).toMatchObject({ code: 'dependency_failed', depends_on: bad });
    expect(await queue.status()).toMatchObject({ pending: 0, failed: 2, done: 1 });

    // Fixed and sent again: the dependant waits again and goes after it.
    await queue.resend(bad, { name: 'Email Mau', email: 'corrigido@exemplo.co.mz' });
    expect(await queue.status()).toMatchObject({ pending: 2, failed: 0 });
    expect(await queue.flush()).toMatchObject({ sent: 2, failed: 0 });
    const customer = await queue.result(bad);
    const [row] = await invoicesByReference(server.db, tenant.companyId, ['DEPENDE-1']).then(
      (m) => m.get('DEPENDE-1') ?? [],
    );
    expect(row?.customerId).toBe(customer.id);

    const wrong = await queue.enqueue('POST', '/invoices', sale('PRODUTO-ALHEIO', customer.id!, 'abc'));
    await queue.flush();
    expect(await queue.result(wrong)).toMatchObject({ state: 'failed', error: { status: 422 } });
    await queue.discard(wrong);
    expect(await queue.result(wrong)).toMatchObject({ state: 'discarded' });
    expect(await queue.failed()).toEqual([]);
    expect(await invoicesByReference(server.db, tenant.companyId, ['PRODUTO-ALHEIO'])).toEqual(new Map());
  });

  describe('after the 24 hours of an Idempotency-Key (the server forgets the keys, the queue clock moves 25 h)', () => {
    it('a sale created but never confirmed is found by its reference: done with that id, not created again', async () => {
      const clock = testClock();
      proxy.plan = (request) => (request.method === 'POST' ? { kind: 'lose-response' } : { kind: 'forward' });
      const queue = await queueVia(proxy.baseUrl, { now: clock.now, maxRetries: 0 });
      const customer = (
        await new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl }).customers.create({
          name: 'Dia Seguinte',
        })
      ).id;
      const id = await queue.enqueue('POST', '/invoices', sale('ONTEM-1', customer));
      expect(await queue.flush()).toMatchObject({ stopped: 'offline' });
      expect(
        (await invoicesByReference(server.db, tenant.companyId, ['ONTEM-1'])).get('ONTEM-1'),
      ).toHaveLength(1);

      expect(await expireIdempotencyKeys(server.db, tenant.companyId)).toBeGreaterThan(0);
      clock.advance(25 * HOUR_MS);
      proxy.plan = () => ({ kind: 'forward' });
      expect(await queue.flush()).toMatchObject({ found: 1, sent: 0, stopped: 'empty' });
      const rows = (await invoicesByReference(server.db, tenant.companyId, ['ONTEM-1'])).get('ONTEM-1');
      expect(rows).toHaveLength(1);
      expect(await queue.result(id)).toEqual({ state: 'done', id: rows![0]!.id });
      // The look-up read the invoices; no POST went with the old, forgotten key.
      expect(proxy.of('POST')).toHaveLength(1);
      expect(proxy.of('GET').some((g) => g.url.includes('updated_since'))).toBe(true);
    });

    it('without the look-up, the forgotten key would create the sale a second time (why the queue looks first)', async () => {
      const customer = (
        await new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl }).customers.create({
          name: 'Controlo',
        })
      ).id;
      const client = new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl });
      await client.invoices.create(sale('CONTROLO-1', customer), { idempotencyKey: 'controlo-chave-1' });
      await expireIdempotencyKeys(server.db, tenant.companyId);
      await client.invoices.create(sale('CONTROLO-1', customer), { idempotencyKey: 'controlo-chave-1' });
      expect(
        (await invoicesByReference(server.db, tenant.companyId, ['CONTROLO-1'])).get('CONTROLO-1'),
      ).toHaveLength(2);
    });

    it('a sale sent but never received is not found: sent with a new key, created once', async () => {
      const clock = testClock();
      proxy.plan = (request) =>
        request.method === 'POST' ? { kind: 'answer', status: 502 } : { kind: 'forward' };
      const queue = await queueVia(proxy.baseUrl, { now: clock.now, maxRetries: 0 });
      const customer = (
        await new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl }).customers.create({
          name: 'Nunca Chegou',
        })
      ).id;
      const id = await queue.enqueue('POST', '/invoices', sale('NUNCA-1', customer));
      expect(await queue.flush()).toMatchObject({ stopped: 'busy' });
      clock.advance(25 * HOUR_MS);
      proxy.plan = () => ({ kind: 'forward' });
      expect(await queue.flush()).toMatchObject({ sent: 1, found: 0 });
      const keys = proxy.of('POST').map((p) => p.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[1]).not.toBe(keys[0]);
      const rows = (await invoicesByReference(server.db, tenant.companyId, ['NUNCA-1'])).get('NUNCA-1');
      expect(await queue.result(id)).toEqual({ state: 'done', id: rows![0]!.id });
      expect(rows).toHaveLength(1);
    });

    it('a product is found by its sku, a customer by NUIT, e-mail or phone; one with none of them waits in the failed list', async () => {
      const clock = testClock();
      proxy.plan = (request) => (request.method === 'POST' ? { kind: 'lose-response' } : { kind: 'forward' });
      // One store per entry: a flush stops at the first entry without an answer.
      const bodies: [string, object][] = [
        [
          '/products',
          {
            name: 'Farinha 10 kg',
            type: 'GOODS',
            inventory: 'NON_INVENTORY',
            price: '780.00',
            sku: 'FAR-10-OFF',
          },
        ],
        ['/customers', { name: 'Por NUIT', nuit: '400000014' }],
        ['/customers', { name: 'Por Email', email: 'Por.Email@exemplo.co.mz' }],
        ['/customers', { name: 'Por Telefone', phone: '+258 84 765 0001' }],
        ['/customers', { name: 'Sem Nada Único' }],
      ];
      const queues: OfflineQueue[] = [];
      const locals: string[] = [];
      for (const [index, [path, body]] of bodies.entries()) {
        const queue = await queueVia(proxy.baseUrl, {
          now: clock.now,
          maxRetries: 0,
          path: `${store.path}-${index}`,
        });
        locals.push(await queue.enqueue('POST', path, body));
        expect(await queue.flush()).toMatchObject({ stopped: 'offline', pending: 1 });
        queues.push(queue);
      }
      const [product, byNuit, byEmail, byPhone, unknown] = locals as [string, string, string, string, string];
      await expireIdempotencyKeys(server.db, tenant.companyId);
      clock.advance(25 * HOUR_MS);
      proxy.plan = () => ({ kind: 'forward' });
      const results = [];
      for (const queue of queues) results.push(await queue.flush());
      expect(results.map((r) => [r.found, r.sent, r.failed])).toEqual([
        [1, 0, 0],
        [1, 0, 0],
        [1, 0, 0],
        [1, 0, 0],
        [0, 0, 1],
      ]);
      const queue = (local: string) => queues[locals.indexOf(local)]!;
      const [made] = await server.db.select().from(products).where(eq(products.sku, 'FAR-10-OFF'));
      expect(await queue(product).result(product)).toEqual({ state: 'done', id: made!.id });
      for (const [local, name] of [
        [byNuit, 'Por NUIT'],
        [byEmail, 'Por Email'],
        [byPhone, 'Por Telefone'],
      ] as const) {
        const rows = await server.db.select().from(customers).where(eq(customers.name, name));
        expect(rows).toHaveLength(1);
        expect(await queue(local).result(local)).toEqual({ state: 'done', id: rows[0]!.id });
      }
      expect(await queue(unknown).result(unknown)).toMatchObject({
        state: 'failed',
        error: { code: 'unverifiable' },
      });
    });
  });

  it('one store per till and key: a second open is refused, a dead owner’s lock taken over, another key refused, the key never stored', async () => {
    const first = await queueVia(proxy.baseUrl);
    await first.enqueue('POST', '/customers', { name: 'Dono da Fila' });
    await expect(queueVia(proxy.baseUrl)).rejects.toBeInstanceOf(StoreLockedError);
    await first.close();
    open.pop();
    // A lock left by a process that no longer runs.
    await writeFile(join(store.path, 'lock'), '2147483646');
    const second = await queueVia(proxy.baseUrl);
    expect(await second.status()).toMatchObject({ pending: 1 });
    await second.close();
    open.pop();
    const other = await createTenant(server.db, { name: 'Outra Caixa' });
    await expect(queueVia(proxy.baseUrl, { apiKey: other.key })).rejects.toBeInstanceOf(
      StoreKeyMismatchError,
    );
    const journal = await readFile(join(store.path, 'journal.log'), 'utf8');
    expect(journal).not.toContain(tenant.key);
    // The refused open released the lock: the right key opens it.
    await queueVia(proxy.baseUrl);
  });

  it('a till sells while a flush waits for the API: enqueue never waits for the flush', async () => {
    proxy.plan = (request) => (request.method === 'POST' ? { kind: 'hang' } : { kind: 'forward' });
    const queue = await queueVia(proxy.baseUrl, { timeoutMs: 5_000, maxRetries: 0 });
    await queue.enqueue('POST', '/customers', { name: 'Enviado Devagar' });
    const events: string[] = [];
    const flushed = queue.flush().then((result) => {
      events.push('flush');
      return result;
    });
    while (proxy.of('POST').length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const sold = await queue.enqueue('POST', '/customers', { name: 'Vendido Durante o Envio' });
    events.push('enqueue');
    expect(await flushed).toMatchObject({ stopped: 'offline' });
    expect(events).toEqual(['enqueue', 'flush']);
    expect(await queue.result(sold)).toEqual({ state: 'pending' });
    expect(await queue.status()).toMatchObject({ pending: 2 });
  });

  it('bad enqueues change nothing: an unknown $local, a route the queue does not take', async () => {
    const queue = await queueVia(proxy.baseUrl);
    await expect(
      queue.enqueue('POST', '/invoices', sale('X', { $local: '00000000-0000-4000-8000-000000000000' })),
    ).rejects.toThrow(TypeError);
    await expect(queue.enqueue('POST', '/payments', {})).rejects.toThrow(TypeError);
    await expect(queue.enqueue('POST', '/invoices', sale('Y', { $local: 'not-an-id' }))).rejects.toThrow(
      TypeError,
    );
    expect(await queue.status()).toMatchObject({ pending: 0, done: 0, failed: 0 });
  });
  it("issue 39 goal 1, the till's own reference: the same ref and body return the entry held, never a second; another body is refused naming the ref; byRef answers, also after a restart", async () => {
    const queue = await queueVia(proxy.baseUrl);
    const customer = await new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl }).customers.create({
      name: 'Cliente da Caixa Dois',
    });
    const body = sale('CAIXA2-000007', customer.id);
    const first = await queue.enqueue('POST', '/invoices', body, { ref: 'CAIXA2-000007' });
    const again = await queue.enqueue('POST', '/invoices', { ...body }, { ref: 'CAIXA2-000007' });
    expect(again).toBe(first);
    const journalBefore = await readFile(join(store.path, 'journal.log'), 'utf8');
    const refused = await queue
      .enqueue(
        'POST',
        '/invoices',
        { ...body, items: [{ product_id: productId, quantity: 3, price: '150.00' }] },
        {
          ref: 'CAIXA2-000007',
        },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RefConflictError);
    expect((refused as RefConflictError).message).toContain('"CAIXA2-000007"');
    expect(refused).toMatchObject({ ref: 'CAIXA2-000007', localId: first });
    // Another route with the same ref is another operation: refused too.
    await expect(
      queue.enqueue('POST', '/customers', { name: 'X' }, { ref: 'CAIXA2-000007' }),
    ).rejects.toBeInstanceOf(RefConflictError);
    // A refusal writes nothing.
    expect(await readFile(join(store.path, 'journal.log'), 'utf8')).toBe(journalBefore);
    // Without ref, each call is a new entry (as before).
    const plain = { name: 'Sem Referência' };
    expect(await queue.enqueue('POST', '/customers', plain)).not.toBe(
      await queue.enqueue('POST', '/customers', plain),
    );
    // An invoice without reference gets one from the queue; its repeat is still the same call.
    const bare = { customer_id: body.customer_id, invoice_date: '2026-11-27', items: body.items };
    const bareId = await queue.enqueue('POST', '/invoices', bare, { ref: 'CAIXA2-000008' });
    expect(await queue.enqueue('POST', '/invoices', bare, { ref: 'CAIXA2-000008' })).toBe(bareId);
    expect(await queue.byRef('CAIXA2-000007')).toEqual({ local_id: first, state: 'pending' });
    expect(await queue.byRef('CAIXA2-000099')).toBeNull();
    await expect(queue.enqueue('POST', '/customers', plain, { ref: '' })).rejects.toThrow(TypeError);
    expect(await queue.status()).toMatchObject({ pending: 4 });

    // After a crash (the store reopened from its journal): the same answers, and the flush sends it once.
    await queue.close();
    open.pop();
    const reopened = await queueVia(proxy.baseUrl);
    expect(await reopened.byRef('CAIXA2-000007')).toEqual({ local_id: first, state: 'pending' });
    expect(await reopened.enqueue('POST', '/invoices', body, { ref: 'CAIXA2-000007' })).toBe(first);
    await expect(
      reopened.enqueue(
        'POST',
        '/invoices',
        { ...body, invoice_date: '2026-11-28' },
        { ref: 'CAIXA2-000007' },
      ),
    ).rejects.toBeInstanceOf(RefConflictError);
    expect(await reopened.flush()).toMatchObject({ sent: 4, failed: 0, pending: 0 });
    const found = await invoicesByReference(server.db, tenant.companyId, ['CAIXA2-000007']);
    expect(found.get('CAIXA2-000007')).toHaveLength(1);
    expect(await reopened.byRef('CAIXA2-000007')).toEqual({
      local_id: first,
      state: 'done',
      id: found.get('CAIXA2-000007')![0]!.id,
    });
    expect(await reopened.enqueue('POST', '/invoices', body, { ref: 'CAIXA2-000007' })).toBe(first);
    expect(await reopened.flush()).toMatchObject({ sent: 0, pending: 0 });
  });

  it('issue 42: past compactAfter the journal keeps one short record per finished entry; result, status, byRef (and its ref) and a later $local answer as before, also after a restart', async () => {
    const now = Date.now();
    const queue = await queueVia(proxy.baseUrl, { compactAfter: 1, now: () => now });
    const journal = join(store.path, 'journal.log');
    const customer = await queue.enqueue(
      'POST',
      '/customers',
      { name: 'Cliente Compactado' },
      { ref: 'C-000001/cliente' },
    );
    const body = sale('COMPACTA-1', { $local: customer });
    const sold = await queue.enqueue('POST', '/invoices', body, { ref: 'C-000001' });
    const bad = await queue.enqueue('POST', '/customers', { name: 'Email Mau', email: 'não-é-email' });
    const lines = async () => (await readFile(journal, 'utf8')).split('\n').filter((line) => line !== '');
    expect(await queue.flush()).toMatchObject({ sent: 2, failed: 1, pending: 0 });
    // The header, one record for each finished entry, and the failed one's enqueue and refusal.
    const kept = await lines();
    expect(kept.map((line) => (JSON.parse(line.slice(17)) as { t: string }).t)).toEqual([
      'open',
      'finished',
      'finished',
      'enqueue',
      'attempt',
      'failed',
    ]);
    expect(kept.join('\n')).not.toContain('COMPACTA-1');
    const before = {
      customer: await queue.result(customer),
      sold: await queue.result(sold),
      bad: await queue.result(bad),
      status: await queue.status(),
      byRef: await queue.byRef('C-000001'),
    };
    expect(before.sold).toMatchObject({ state: 'done', id: expect.any(Number) });
    await queue.close();
    open.pop();
    const again = await queueVia(proxy.baseUrl, { compactAfter: 1, now: () => now });
    expect({
      customer: await again.result(customer),
      sold: await again.result(sold),
      bad: await again.result(bad),
      status: await again.status(),
      byRef: await again.byRef('C-000001'),
    }).toEqual(before);
    expect(before.byRef).toEqual({ local_id: sold, ...before.sold });
    // The ref's digest is kept: the same call is the entry held, another is refused.
    expect(await again.enqueue('POST', '/invoices', body, { ref: 'C-000001' })).toBe(sold);
    await expect(
      again.enqueue('POST', '/invoices', sale('COMPACTA-2', { $local: customer }), { ref: 'C-000001' }),
    ).rejects.toBeInstanceOf(RefConflictError);
    // A finished customer is still named by $local, and the failed entry still resends.
    const second = await again.enqueue('POST', '/invoices', sale('COMPACTA-2', { $local: customer }));
    await again.resend(bad, { name: 'Email Mau', email: 'corrigido.compacta@exemplo.co.mz' });
    expect(await again.flush()).toMatchObject({ sent: 2, failed: 0, pending: 0 });
    const found = await invoicesByReference(server.db, tenant.companyId, ['COMPACTA-1', 'COMPACTA-2']);
    expect(found.get('COMPACTA-1')).toEqual([{ id: before.sold.id, customerId: before.customer.id }]);
    expect(found.get('COMPACTA-2')).toEqual([
      { id: (await again.result(second)).id, customerId: before.customer.id },
    ]);
    expect(await again.status()).toMatchObject({ pending: 0, done: 4, failed: 0 });
  });

  it('issue 42: queued writes go through the client: its deprecation report and its retry hook hear them', async () => {
    const told: string[] = [];
    const retried: string[] = [];
    let first = true;
    const queue = await queueVia(proxy.baseUrl, {
      // The answers as a deprecated route would give them; the first write's answer a 503.
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (init.method === 'POST' && first) {
          first = false;
          return { status: 503, headers: response.headers, text: async () => '' };
        }
        const headers = new Headers(response.headers);
        headers.set('deprecation', '@1767225600');
        return { status: response.status, headers, text: () => response.text() };
      },
      onDeprecation: (info) => told.push(`${info.method} ${info.path}`),
      onRetry: (info) => retried.push(`${info.method} ${info.path} ${info.idempotencyKey !== undefined}`),
    });
    await queue.enqueue('POST', '/customers', { name: 'Cliente Avisado' });
    expect(await queue.flush()).toMatchObject({ sent: 1, pending: 0 });
    expect(told).toEqual(['POST /customers']);
    expect(retried).toEqual(['POST /customers true']);
  });

  it('issue 38, offline stores are private: a 0700 folder with 0600 files; a looser folder and journal are tightened', async () => {
    const queue = await queueVia(proxy.baseUrl);
    await queue.enqueue('POST', '/customers', { name: 'Cliente Privado', nuit: '400339910' });
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(store.path)).toBe(0o700);
    for (const file of await readdir(store.path))
      expect([file, await mode(join(store.path, file))]).toEqual([file, 0o600]);
    await queue.close();
    open.pop();
    // A store made by an older version (0755, 0644), or loosened by hand.
    await chmod(store.path, 0o755);
    await chmod(join(store.path, 'journal.log'), 0o644);
    const again = await queueVia(proxy.baseUrl);
    expect(await mode(store.path)).toBe(0o700);
    expect(await mode(join(store.path, 'journal.log'))).toBe(0o600);
    expect(await again.status()).toMatchObject({ pending: 1 });
  });
});

describe('TypeScript client: the offline queue paces itself and estimates when it will be empty', () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let store: { path: string; remove(): Promise<void> };

  beforeAll(async () => {
    server = await startListeningApp({ RATE_LIMIT_KEY_WRITES_PER_MINUTE: '3' });
    tenant = await createTenant(server.db, { name: 'Caixa Lenta' });
    store = await storeDirectory();
  });
  afterAll(async () => {
    await server.close();
    await store.remove();
  });

  it('the estimate follows the RateLimit headers: 3 writes a minute, 2 left, 8 pending is 2 more windows', async () => {
    const now = Date.now();
    const queue = await OfflineQueue.open({
      path: store.path,
      apiKey: tenant.key,
      baseUrl: server.baseUrl,
      now: () => now,
    });
    try {
      expect(await queue.status()).toMatchObject({
        pending: 0,
        estimated_empty_at: new Date(now).toISOString(),
      });
      await queue.enqueue('POST', '/customers', { name: 'Primeiro' });
      await queue.flush();
      for (let i = 0; i < 8; i++) await queue.enqueue('POST', '/customers', { name: `Espera ${i}` });
      const status = await queue.status();
      expect(status.pending).toBe(8);
      // 2 go now; 6 more take two more windows: the reset (at most 60 s away) plus one window.
      const wait = Date.parse(status.estimated_empty_at!) - now;
      expect(wait).toBeGreaterThan(60_000);
      expect(wait).toBeLessThanOrEqual(120_000);
    } finally {
      await queue.close();
    }
  });
});
