// A till that follows the pattern of the offline-queue page (docs/site/*/fila-offline.md,
// offline-queue.md): it writes each sale in its own record first, enqueues it with the sale's
// number as `ref`, then writes down that it did. On start it enqueues again, with the same number
// and body, every sale of its record not written down as enqueued: after a crash between the
// queue's write and its own, the queue answers with the entry it already holds.
// TILL_PLAN (JSON): path, baseUrl, apiKey, productId, customerId, record (the till's own file),
// sales (how many in all), prefix (of the sale numbers), useRef (false: the old way, for the
// contrast), hangAt ({ sale, after: 'enqueue' | 'flush' }: stops there until killed).
import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync } from 'node:fs';
import { OfflineQueue } from '../../../clients/typescript/src/index.js';

interface Plan {
  path: string;
  baseUrl: string;
  apiKey: string;
  productId: number;
  customerId: number;
  record: string;
  sales: number;
  prefix: string;
  useRef: boolean;
  hangAt?: { sale: number; after: 'enqueue' | 'flush' };
}

type Line =
  | { sale: number; state: 'written'; body: object }
  | { sale: number; state: 'enqueued'; local: string };

const plan = JSON.parse(process.env.TILL_PLAN ?? '{}') as Plan;
const say = (line: string) => process.stdout.write(`${line}\n`);

/** The till's own record: one JSON line per change, on disk before the next step. */
function write(line: Line): void {
  appendFileSync(plan.record, `${JSON.stringify(line)}\n`);
  const fd = openSync(plan.record, 'r');
  fsyncSync(fd);
  closeSync(fd);
}

function readRecord(): Line[] {
  try {
    return readFileSync(plan.record, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Line);
  } catch {
    return [];
  }
}

const number = (sale: number) => `${plan.prefix}-${String(sale).padStart(6, '0')}`;
const hang = () => new Promise<never>(() => setInterval(() => undefined, 60_000));

const queue = await OfflineQueue.open({
  path: plan.path,
  apiKey: plan.apiKey,
  baseUrl: plan.baseUrl,
  retryBaseDelayMs: 5,
  maxRetries: 2,
});
say('open');
const enqueue = (sale: number, body: object) =>
  queue.enqueue('POST', '/invoices', body, plan.useRef ? { ref: number(sale) } : {});

// After a crash: every sale written but not written down as enqueued goes again, without fear.
const lines = readRecord();
const enqueued = new Set(lines.filter((l) => l.state === 'enqueued').map((l) => l.sale));
let last = 0;
for (const line of lines) {
  last = Math.max(last, line.sale);
  if (line.state !== 'written' || enqueued.has(line.sale)) continue;
  const local = await enqueue(line.sale, line.body);
  write({ sale: line.sale, state: 'enqueued', local });
  say(`again ${line.sale} ${local}`);
}

for (let sale = last + 1; sale <= plan.sales; sale++) {
  const body = {
    customer_id: plan.customerId,
    invoice_date: '2026-11-27',
    reference: number(sale),
    items: [{ product_id: plan.productId, quantity: sale, price: '99.95' }],
  };
  write({ sale, state: 'written', body });
  const local = await enqueue(sale, body);
  say(`enqueued ${sale} ${local}`);
  if (plan.hangAt?.sale === sale && plan.hangAt.after === 'enqueue') await hang();
  const flushed = await queue.flush();
  say(`flushed ${sale} ${JSON.stringify(flushed)}`);
  if (plan.hangAt?.sale === sale && plan.hangAt.after === 'flush') await hang();
  write({ sale, state: 'enqueued', local });
}
const flushed = await queue.flush();
say(`flushed end ${JSON.stringify(flushed)}`);
await queue.close();
say('closed');
