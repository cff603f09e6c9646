// What the database says after the load: each tracked write exists exactly once, and the totals
// that lists answer (through HAProxy, so from every instance) equal count(*).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { invoicingBin, repoRoot } from '../../../scripts/lib/repo.js';
import type { TrackedWrite } from './load.js';
import { withClient } from './postgres.js';

const run = promisify(execFile);

/** `bin/invoicing ... --json` on the rehearsal's database, as an operator runs it. */
export async function invoicing<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  try {
    const { stdout } = await run(process.execPath, [invoicingBin, ...args, '--json'], {
      cwd: repoRoot,
      env,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as T;
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`bin/invoicing ${args.join(' ')} failed: ${failure.stderr?.trim() || failure.message}`);
  }
}

const MARKER_COLUMN = {
  customer: { table: 'customers', column: 'name' },
  product: { table: 'products', column: 'name' },
  invoice: { table: 'invoices', column: 'reference' },
} as const;

export interface ExactlyOnce {
  writes: number;
  retried: number;
  /** Writes whose marker is not in the database exactly once: marker -> count. */
  wrong: { marker: string; count: number; retries: number }[];
  /** Rows with the run's marker that no tracked write made. */
  strangers: number;
}

export async function exactlyOnce(
  databaseUrl: string,
  runId: string,
  writes: TrackedWrite[],
): Promise<ExactlyOnce> {
  const counts = new Map<string, number>();
  await withClient(databaseUrl, async (client) => {
    for (const { table, column } of Object.values(MARKER_COLUMN)) {
      const result = await client.query<{ marker: string; count: string }>(
        `select ${column} as marker, count(*) as count from ${table} where ${column} like $1 group by ${column}`,
        [`${runId}-%`],
      );
      for (const row of result.rows) counts.set(row.marker, Number(row.count));
    }
  });
  const wrong: ExactlyOnce['wrong'] = [];
  for (const write of writes) {
    const count = counts.get(write.marker) ?? 0;
    if (count !== 1) wrong.push({ marker: write.marker, count, retries: write.retries });
    counts.delete(write.marker);
  }
  return {
    writes: writes.length,
    retried: writes.filter((write) => write.retries > 0).length,
    wrong,
    strangers: [...counts.values()].reduce((sum, count) => sum + count, 0),
  };
}

const COUNT_QUERIES: Record<string, string> = {
  // Global customers (no company) are visible to every company.
  customers: 'select count(*) from customers where company_id = $1 or company_id is null',
  products: 'select count(*) from products where company_id = $1',
  invoices: 'select count(*) from invoices where company_id = $1',
};

export async function countRows(databaseUrl: string, companyId: number, resource: string): Promise<number> {
  const query = COUNT_QUERIES[resource];
  if (!query) throw new Error(`no count for ${resource}`);
  return withClient(databaseUrl, async (client) =>
    Number((await client.query(query, [companyId])).rows[0].count),
  );
}
