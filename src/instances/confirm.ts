// The other half of ./sync.ts: a change to keys or companies (revoke, roll, expiry, enable,
// disable, scopes, a new key) is reported done only once every live instance has acknowledged its
// version, or the bound has passed; then the instances that did not confirm are named (they
// believe no remembered key until they catch up: ./sync.ts, TRUST_MS below CONFIRM_BOUND_MS).
import { setTimeout as sleep } from 'node:timers/promises';
import { type Database, isPostgres, queryRows, sql } from '../db/client.js';
import { LIVE_MS, TRUST_MS } from './sync.js';

/** The longest a change waits for the instances' acknowledgements. */
export const CONFIRM_BOUND_MS = 2000;
const POLL_MS = 10;

// The bound must outlast an unconfirmed instance's trust, or it could still believe the old key.
if (TRUST_MS >= CONFIRM_BOUND_MS) throw new Error('TRUST_MS must be below CONFIRM_BOUND_MS');

/** A live instance that had not applied the change when the bound passed. */
export interface UnconfirmedInstance {
  id: string;
  host: string;
  pid: number;
  /** The last version it acknowledged. */
  acked_version: number;
  /** Milliseconds since its last heartbeat. */
  heartbeat_age_ms: number;
}

export interface KeyChangeConfirmation {
  /** The key_changes version of the change. */
  version: number;
  /** Live instances that applied it. */
  confirmed: number;
  /** Live instances that did not within the bound. */
  unconfirmed: UnconfirmedInstance[];
  /** From the commit to the last acknowledgement (or the bound). */
  waited_ms: number;
}

/**
 * The version of key_changes that the current transaction raised (null when it changed no key or
 * company, or on PGlite, whose one process has applied the change before its commit returns).
 * Called inside the change's transaction.
 */
export async function keyChangeOf(tx: Database): Promise<number | null> {
  if (!isPostgres(tx)) return null;
  const [row] = await queryRows<{ version: string | null }>(
    tx,
    sql`select nullif(current_setting('invoicing.key_change', true), '') as version`,
  );
  return row?.version ? Number(row.version) : null;
}

interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  acked_version: string | number;
  age_ms: string | number;
}

/**
 * Waits (bounded) until every instance live at the change's commit has acknowledged `version`, or
 * has stopped (its row removed). Called after the commit. An instance that started since registers
 * at the current version: it is not waited for.
 */
export async function confirmKeyChange(
  db: Database,
  version: number,
  boundMs: number = CONFIRM_BOUND_MS,
): Promise<KeyChangeConfirmation> {
  const started = performance.now();
  const deadline = started + boundMs;
  const read = (only: string[] | null) =>
    queryRows<InstanceRow>(
      db,
      sql`select id, host, pid, acked_version,
          (extract(epoch from (clock_timestamp() - heartbeat_at)) * 1000)::int as age_ms
        from instances
        where ${
          only === null
            ? sql`heartbeat_at > clock_timestamp() - make_interval(secs => ${LIVE_MS / 1000})`
            : sql`id = any(string_to_array(${only.join(',')}, ',')::uuid[])`
        }
        order by started_at, id`,
    );
  // The change is saved whatever happens here: a failed read is tried again until the bound.
  const live = await read(null).catch(() => [] as InstanceRow[]);
  let waiting = live.filter((row) => Number(row.acked_version) < version);
  for (;;) {
    const now = performance.now();
    if (waiting.length === 0 || now >= deadline) {
      return {
        version,
        confirmed: live.length - waiting.length,
        unconfirmed: waiting.map((row) => ({
          id: row.id,
          host: row.host,
          pid: row.pid,
          acked_version: Number(row.acked_version),
          heartbeat_age_ms: Number(row.age_ms),
        })),
        waited_ms: Math.round(now - started),
      };
    }
    await sleep(Math.min(POLL_MS, deadline - now));
    const ids = waiting.map((row) => row.id);
    const rows = await read(ids).catch(() => null);
    if (rows) waiting = rows.filter((row) => Number(row.acked_version) < version);
  }
}

/** The operator's sentence about instances that did not confirm a change. */
export function describeUnconfirmed(confirmation: KeyChangeConfirmation, boundMs = CONFIRM_BOUND_MS): string {
  const names = confirmation.unconfirmed
    .map(
      (each) =>
        `${each.host} pid ${each.pid} (instance ${each.id.slice(0, 8)}, last heartbeat ${each.heartbeat_age_ms} ms ago)`,
    )
    .join('; ');
  const count = confirmation.unconfirmed.length;
  return `the change is saved, but ${count} ${count === 1 ? 'instance' : 'instances'} did not confirm it within ${boundMs / 1000} s: ${names}. Until ${count === 1 ? 'it catches' : 'they catch'} up, ${count === 1 ? 'it believes' : 'they believe'} no API key ${count === 1 ? 'it remembers' : 'they remember'} (every key is looked up again); see their logs`;
}
