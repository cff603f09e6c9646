// A till for the kill tests: opens the queue, enqueues sales (a new customer and an invoice that
// names it by $local) in rounds with a flush after each, and says on stdout each thing that
// returned. The test kills it with SIGKILL at random moments.
import { OfflineQueue } from '../../../clients/typescript/src/index.js';

interface Plan {
  path: string;
  baseUrl: string;
  apiKey: string;
  productId: number;
  /** Prefix of this run's references and names. */
  run: string;
  rounds: number;
  salesPerRound: number;
  /** Milliseconds between two enqueues: a till sells at a person's pace, not in a burst. */
  pauseMs?: number;
  /** The queue's compactAfter (1: the journal is rewritten after every flush). */
  compactAfter?: number;
}

const plan = JSON.parse(process.env.TILL_PLAN ?? '{}') as Plan;
const say = (line: string) => process.stdout.write(`${line}\n`);

const queue = await OfflineQueue.open({
  path: plan.path,
  apiKey: plan.apiKey,
  baseUrl: plan.baseUrl,
  retryBaseDelayMs: 5,
  maxRetries: 2,
  ...(plan.compactAfter === undefined ? {} : { compactAfter: plan.compactAfter }),
});
say('open');
for (let round = 0; round < plan.rounds; round++) {
  for (let i = 0; i < plan.salesPerRound; i++) {
    const name = `${plan.run}-${round}-${i}`;
    const customer = await queue.enqueue('POST', '/customers', { name: `Cliente ${name}` });
    say(`customer ${customer} ${name}`);
    const sale = await queue.enqueue('POST', '/invoices', {
      customer_id: { $local: customer },
      invoice_date: '2026-11-27',
      reference: `V-${name}`,
      items: [{ product_id: plan.productId, quantity: 1 + i, price: '99.95' }],
    });
    say(`sale ${sale} V-${name}`);
    if (plan.pauseMs) await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
  }
  say('flushing');
  const result = await queue.flush();
  say(`flushed ${JSON.stringify(result)}`);
}
const status = await queue.status();
await queue.close();
say(`closed ${JSON.stringify(status)}`);
