// What an instance remembers about lists so that a page does not recount a million rows: the exact
// total of each (company, resource, filters), valid while the company's data version
// (data_versions, raised by a trigger on every write in the writing transaction) has not moved.
// Every instance reads the version from the database, so a write on one instance is seen by all.
import type { SQL } from 'drizzle-orm';
import { BoundedMap } from '../bounded-map.js';
import { type Database, queryRows, sql } from './client.js';
import { fixedStatement, runFixed } from './prepared.js';
import { dataVersions } from './schema.js';

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

/** Names a list: its company, resource and the filters that decide its rows (not their order). */
export function listKeyOf(companyId: number, resource: string, filters: Record<string, unknown>): string {
  return `${companyId}|${resource}|${JSON.stringify(filters)}`;
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

/**
 * The exact total of a list: remembered when `knownVersion` (read by the caller, e.g. alongside
 * the page's rows) is the version it was counted at, otherwise counted and remembered.
 */
export async function exactTotal(
  db: Database,
  memory: ListMemory | undefined,
  companyId: number,
  key: string,
  count: () => SQL,
  knownVersion: string | null,
): Promise<number> {
  if (!memory) return (await countAtVersion(db, companyId, count())).total;
  const remembered = memory.totals.get(key);
  if (remembered && knownVersion !== null && remembered.version === knownVersion) return remembered.total;
  // A count started by a caller that read the same version began after that read, exactly as
  // this caller's own count would: sharing it gives the same answer with one scan, not one each.
  const sharedKey = `${key}|${knownVersion}`;
  let counting = memory.counting.get(sharedKey);
  if (!counting) {
    counting = countAtVersion(db, companyId, count()).finally(() => memory.counting.delete(sharedKey));
    memory.counting.set(sharedKey, counting);
  }
  const counted = await counting;
  memory.totals.set(key, counted);
  return counted.total;
}
