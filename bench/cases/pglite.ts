// GET /customers/{id} on an API server with no DATABASE_URL (embedded PGlite in its own
// DATA_DIR) against the bare server's plain query on PostgreSQL (as in the first round), interleaved
// like the throughput case; and the PGlite server's memory under that load.
import { ensurePgliteDataset, writePgliteCustomerIds } from '../dataset/pglite.js';
import { createKey } from '../lib/invoicing-cli.js';
import { resultsDir } from '../lib/paths.js';
import { readMemory, sampleRss } from '../lib/rss.js';
import { startApiServer } from '../lib/servers.js';
import { READ_GOALS } from '../read-goals.js';
import { API_PREFIX, type BenchContext } from './context.js';
import { memoryRow } from './memory.js';
import { BARE_PLAIN_PREFIX, customerReadTarget, interleaved, throughputRow } from './throughput.js';

export async function runPglite(context: BenchContext): Promise<void> {
  const dataset = await ensurePgliteDataset(context.options.pgliteCustomers, context.log);
  const key = await createKey({ dataDir: dataset.dataDir }, dataset.company);
  const idsFile = `${resultsDir}/pglite-customer-ids.txt`;
  await writePgliteCustomerIds(dataset, idsFile);
  const server = await startApiServer(
    'API on PGlite',
    { dataDir: dataset.dataDir },
    `${resultsDir}/api-pglite.log`,
  );
  try {
    const sampler = sampleRss(server.pid);
    const results = await interleaved(context, [
      {
        label: 'bare plain query (PostgreSQL)',
        spec: customerReadTarget(
          context,
          context.bare,
          BARE_PLAIN_PREFIX,
          context.customerIdsFile,
          context.readKey,
        ),
      },
      { label: 'api on PGlite', spec: customerReadTarget(context, server, API_PREFIX, idsFile, key.key) },
    ]);
    const peak = sampler.stop();
    throughputRow(
      context,
      `GET /customers/{id} on PGlite (${dataset.customers} customers) vs bare plain query on PostgreSQL`,
      results.get('api on PGlite')!,
      results.get('bare plain query (PostgreSQL)')!,
      READ_GOALS.pgliteReadRatio,
    );
    memoryRow(
      context,
      'API server memory on PGlite',
      peak,
      readMemory(server.pid).hwmMb,
      READ_GOALS.rssPgliteMb,
    );
  } finally {
    await server.stop();
  }
}
