// A till of the outage scenario (offline-outage.test.ts), TypeScript. TILL_PLAN (JSON) says what
// to do: `enqueue` the sales `from` .. `from + count - 1` (a new customer every `customerEvery`
// sales, the walk-in customer otherwise) and try to flush, or `flush` until empty or stopped. It
// prints each thing that returned; the test kills it at random moments.
import { OfflineQueue } from '../../../../clients/typescript/src/index.js';

const plan = JSON.parse(process.env.TILL_PLAN ?? '{}');
const say = (line: string) => process.stdout.write(`${line}\n`);
const started = Date.now();
const queue = await OfflineQueue.open({
  path: plan.path,
  apiKey: plan.apiKey,
  baseUrl: plan.baseUrl,
  now: () => plan.clock + (Date.now() - started),
  retryBaseDelayMs: 20,
  maxRetries: plan.maxRetries,
  timeoutMs: 10_000,
});
say('open');
if (plan.mode === 'enqueue') {
  for (let i = plan.from; i < plan.from + plan.count; i++) {
    let customer: number | { $local: string } = plan.walkInId;
    if (i % plan.customerEvery === 0) {
      const local = await queue.enqueue('POST', '/customers', {
        name: `Cliente ${plan.lang}-${i}-r${plan.run}`,
        email: `c-${plan.lang}-${i}-r${plan.run}@exemplo.co.mz`,
      });
      say(`customer ${local}`);
      customer = { $local: local };
    }
    const sale = await queue.enqueue('POST', '/invoices', {
      customer_id: customer,
      invoice_date: '2026-11-20',
      reference: `${plan.lang}-${i}-r${plan.run}`,
      // One sale in 250 has a bad price: the server refuses it (422).
      items: [
        { product_id: plan.productId, quantity: 1 + (i % 3), price: i % 250 === 249 ? 'abc' : '99.95' },
      ],
    });
    say(`sale ${sale} ${i}`);
  }
}
for (;;) {
  const result = await queue.flush();
  say(`flushed ${JSON.stringify(result)}`);
  if (plan.mode === 'enqueue' || result.stopped !== 'busy') break;
}
say(`status ${JSON.stringify(await queue.status())}`);
await queue.close();
