// The embedded database survives a SIGKILL in the middle of writes: on restart every invoice
// has all its lines or does not exist, and retrying every request with its key ends with each
// invoice created exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDataDir, testStorage } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

const LINES = 150;
const REQUESTS = 16;
/** Bound of every wait for a condition below (polled): a loaded machine makes it slower, not wrong. */
const PATIENCE_MS = 90_000;

describe.runIf(testStorage() === 'pglite')('embedded storage across a SIGKILL mid-write', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'partner-api-crash-'));
  const env = {
    DATA_DIR: dataDir,
    IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: '1',
    RATE_LIMIT_KEY_PER_MINUTE: '100000',
    RATE_LIMIT_KEY_WRITES_PER_MINUTE: '100000',
    RATE_LIMIT_COMPANY_PER_MINUTE: '100000',
  };
  const servers: ServerProcess[] = [];

  afterAll(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps invoices whole and creates each exactly once after retries', {
    timeout: 4 * PATIENCE_MS,
  }, async () => {
    await migratedDataDir(dataDir);
    const first = await startServerProcess(env, undefined, ['--demo']);
    servers.push(first);
    const key = /svc_sk_live_[A-Za-z0-9]+/.exec(first.output())?.[0];
    expect(key).toBeDefined();
    const headers = { authorization: `Bearer ${key}` };
    const get = async (server: ServerProcess, path: string) =>
      (await fetch(`${server.baseUrl}${path}`, { headers })).json();
    const productId = (await get(first, '/products?type=SERVICES')).data[0].id;
    const customerId = (await get(first, '/customers')).data[0].id;
    const before = (await get(first, '/invoices')).pagination.total;
    const body = (i: number) =>
      JSON.stringify({
        customer_id: customerId,
        invoice_date: '2026-11-20',
        reference: `crash-${i}`,
        items: Array.from({ length: LINES }, (_, line) => ({
          product_id: productId,
          quantity: 1,
          price: line + i,
        })),
      });
    const post = (server: ServerProcess, i: number) =>
      fetch(`${server.baseUrl}/invoices`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `crash-pglite-${i}` },
        body: body(i),
      });

    // Fire every request, and kill the server the moment the third answer arrives: the rest are
    // still queued in its one thread (PGlite writes one at a time), so some are cut, whatever
    // the machine's speed.
    let answered = 0;
    const inFlight = Array.from({ length: REQUESTS }, (_, i) =>
      post(first, i).then(
        (res) => {
          if (++answered === 3) first.child.kill('SIGKILL');
          return res.status;
        },
        () => 'killed',
      ),
    );
    const outcomes = await Promise.all(inFlight);
    await first.kill('SIGKILL');
    expect(outcomes.filter((o) => o === 'killed').length).toBeGreaterThan(0);

    const second = await startServerProcess(env);
    servers.push(second);
    const afterCrash = await get(second, '/invoices?per_page=100');
    const survivors = afterCrash.data.filter((invoice: { reference: string }) =>
      invoice.reference.startsWith('crash-'),
    );
    for (const summary of survivors) {
      const invoice = await get(second, `/invoices/${summary.id}`);
      expect(invoice.data.items).toHaveLength(LINES);
    }

    // Retry everything with the same keys until each answers 201 (dead claims time out in 1 s).
    for (let i = 0; i < REQUESTS; i++) {
      const deadline = Date.now() + PATIENCE_MS;
      for (;;) {
        const res = await post(second, i);
        if (res.status === 201) break;
        expect(res.status).toBe(409);
        if (Date.now() > deadline) throw new Error(`request ${i} never completed`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    const final = await get(second, '/invoices?per_page=100');
    expect(final.pagination.total).toBe(before + REQUESTS);
    const references = new Set(final.data.map((invoice: { reference: string }) => invoice.reference));
    for (let i = 0; i < REQUESTS; i++) expect(references.has(`crash-${i}`)).toBe(true);
  });
});
