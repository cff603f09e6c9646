// What an instance remembers about lists, so that a page neither recounts a million rows nor skips
// N pages of them: the exact total of each list and where each page of a walk ended, both valid
// only at the company's data version they were read at (data_versions, raised by a trigger on every
// write in the writing transaction). Every instance reads the version from the database, so a write
// on one instance is seen by all. Read last of src/lists/ (declaration.ts, page.ts, total.ts, then
// this): page.ts keeps the page ends here, total.ts the totals.
import type { SQL } from 'drizzle-orm';
import { BoundedMap } from '../bounded-map.js';
import { type Database, queryRows, sql } from '../db/client.js';
import { fixedStatement, runFixed } from '../db/prepared.js';
import { dataVersions } from '../db/schema.js';

const MAX_ENTRIES = 20_000;

export interface ListMemory {
  readonly totals: BoundedMap<{ version: string; total: number }>;
  /** Where a page ended: the id of its last row, at a version. */
  readonly cursors: BoundedMap<{ version: string; lastId: number }>;
  /** Counts under way, by list and the version their callers read: concurrent misses share one. */
  readonly counting: Map<string, Promise<{ version: string; total: number }>>;
}

export function createListMemory(max = MAX_ENTRIES): ListMemory {
  return { totals: new BoundedMap(max), cursors: new BoundedMap(max), counting: new Map() };
}

/** The version a company's lists are read at: its own counter plus the global customers'. */
function versionQuery(companyId: number): SQL {
  return sql`(select coalesce(sum(version), 0)::text from data_versions where company_id in (${companyId}, 0))`;
}

const DATA_VERSION_OF = fixedStatement(
  sql`select coalesce(sum(${dataVersions.version}), 0)::text as "version" from ${dataVersions}
    where ${dataVersions.companyId} in (${sql.placeholder('companyId')}::integer, 0)`,
  { read: true },
);

/** The version a company's lists are read at now (one prepared statement: every list reads it). */
export async function readDataVersion(db: Database, companyId: number): Promise<string> {
  const [row] = await runFixed<{ version: string }>(db, DATA_VERSION_OF, { companyId });
  return row?.version ?? '0';
}

/** A count and the version it was read at, in one statement: one snapshot, so they agree. */
export async function countAtVersion(
  db: Database,
  companyId: number,
  count: SQL,
): Promise<{ total: number; version: string }> {
  const [row] = await queryRows<{ total: number; version: string }>(
    db,
    sql`select (${count})::int as total, ${versionQuery(companyId)} as version`,
  );
  return { total: Number(row?.total ?? 0), version: row?.version ?? '0' };
}
