// Issue 39, goal 1 ("the till's own reference"), TypeScript: a till killed with SIGKILL between the
// queue's write (enqueue returned, or even the flush) and its own (writing down that it enqueued
// the sale) enqueues the sale again on restart, with the same number as `ref` and the same body:
// the queue answers with the entry it already holds, and the server has the sale once. Without
// `ref` (the old way) the same till sells twice: the contrast shows the test can fail.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfflineQueue, PartnerApi } from '../../../clients/typescript/src/index.js';
import { bundled } from '../../helpers/bundle.js';
import { type ListeningApp, startListeningApp } from '../../helpers/client-server.js';
import { createTenant, type Tenant } from '../../helpers/context.js';
import { invoicesByReference, storeDirectory } from './fixtures.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SALES = 8;
const KILLED_SALE = 7;

interface Run {
  child: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

let till: string;

function startTill(plan: object): Run {
  const child = spawn(process.execPath, [till], {
    cwd: ROOT,
    env: { ...process.env, TILL_PLAN: JSON.stringify(plan) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, lines, exited };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited too long for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("issue 39 goal 1, the till's own reference (TypeScript): killed between the queue's write and its own", () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let productId: number;
  let customerId: number;

  beforeAll(async () => {
    till = await bundled('test/clients/offline/sales-till.ts');
    server = await startListeningApp();
    tenant = await createTenant(server.db, { name: 'Caixa Dois, Lda' });
    const api = new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl });
    productId = (
      await api.products.create({
        name: 'Refresco',
        type: 'GOODS',
        inventory: 'NON_INVENTORY',
        price: '99.95',
      })
    ).id;
    customerId = (await api.customers.create({ name: 'Consumidor Final' })).id;
  });
  afterAll(() => server.close());

  /** Sells SALES sales, killed after sale 7's enqueue (or flush), then restarted: the invoices by number. */
  async function sellKilledAt(after: 'enqueue' | 'flush', useRef: boolean) {
    const store = await storeDirectory();
    const prefix = `CAIXA2${after === 'enqueue' ? 'E' : 'F'}${useRef ? 'R' : 'N'}`;
    const plan = {
      path: store.path,
      record: join(store.path, '..', 'vendas.jsonl'),
      baseUrl: server.baseUrl,
      apiKey: tenant.key,
      productId,
      customerId,
      sales: SALES,
      prefix,
      useRef,
    };
    try {
      const first = startTill({ ...plan, hangAt: { sale: KILLED_SALE, after } });
      const mark = after === 'enqueue' ? `enqueued ${KILLED_SALE} ` : `flushed ${KILLED_SALE} `;
      await until(
        () => first.lines.some((line) => line.startsWith(mark)) || first.child.exitCode !== null,
        `sale ${KILLED_SALE}'s ${after}`,
      );
      first.child.kill('SIGKILL');
      expect((await first.exited).signal, (await first.exited).stderr).toBe('SIGKILL');
      const before = first.lines.find((line) => line.startsWith(`enqueued ${KILLED_SALE} `))!.split(' ')[2];

      const second = startTill(plan);
      const ended = await second.exited;
      expect(ended.code, ended.stderr).toBe(0);
      const again = second.lines.find((line) => line.startsWith(`again ${KILLED_SALE} `))?.split(' ')[2];

      const numbers = Array.from({ length: SALES }, (_, i) => `${prefix}-${String(i + 1).padStart(6, '0')}`);
      const found = await invoicesByReference(server.db, tenant.companyId, numbers);
      const queue = await OfflineQueue.open({
        path: store.path,
        apiKey: tenant.key,
        baseUrl: server.baseUrl,
      });
      try {
        const held = await queue.byRef(numbers[KILLED_SALE - 1]!);
        const counts = numbers.map((number) => found.get(number)?.length ?? 0);
        return { before, again, counts, held, found, numbers, status: await queue.status() };
      } finally {
        await queue.close();
      }
    } finally {
      await store.remove();
    }
  }

  for (const after of ['enqueue', 'flush'] as const) {
    it(`killed after sale 7's ${after}, before the till wrote it down: enqueued again with its ref, the queue returns the entry it holds; one invoice per sale`, async () => {
      const { before, again, counts, held, found, numbers, status } = await sellKilledAt(after, true);
      expect(again, 'the restart enqueued sale 7 again').toBeDefined();
      expect(again, 'and got the entry the queue already held').toBe(before);
      expect(counts).toEqual(numbers.map(() => 1));
      expect(held).toEqual({
        local_id: before,
        state: 'done',
        id: found.get(numbers[KILLED_SALE - 1]!)![0]!.id,
      });
      expect(status).toMatchObject({ pending: 0, done: SALES, failed: 0 });
    });
  }

  it('the contrast: the same till without ref sells sale 7 twice (what the ref prevents)', async () => {
    const { before, again, counts, held } = await sellKilledAt('flush', false);
    expect(again).toBeDefined();
    expect(again).not.toBe(before);
    expect(counts[KILLED_SALE - 1]).toBe(2);
    expect(held).toBeNull();
  });
});
