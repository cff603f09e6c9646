// `npm run bench:generate -- --invoices N [--fresh]`: builds (or reuses) the data set in
// database partner_bench_<N>. See the README, "Performance".

import { parseOptions, positiveInteger } from '../scripts/lib/args.js';
import { ensureDataset } from './dataset/ensure.js';
import { DEFAULT_INVOICES } from './dataset/sizes.js';

const USAGE = 'usage: npm run bench:generate -- [--invoices N] [--fresh]';
const options = parseOptions({ invoices: { type: 'string' }, fresh: { type: 'boolean' } }, USAGE);
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
await ensureDataset({
  invoices: positiveInteger(options.invoices as string | undefined, '--invoices', DEFAULT_INVOICES),
  fresh: Boolean(options.fresh),
  log: (line) => process.stdout.write(`${line}\n`),
});
