// How an API instance keeps what it remembers of keys in step with every change (decisions.md,
// operator command line: a key change is done when every live instance has applied it).
//
// On PostgreSQL each instance registers a row in `instances` (a random id, new at every start) and:
// - on NOTIFY api_keys_changed (payload: the key_changes version the change raised) forgets every
//   key it remembers, then acknowledges that version in its row; the change's operation waits for
//   those acknowledgements (./confirm.ts);
// - every HEARTBEAT_MS it writes its heartbeat and reads the current version in one statement: a
//   version it has not applied (a notification lost in a gap of its LISTEN connection) is applied
//   and acknowledged then;
// - it believes what it remembers only while a heartbeat sent less than TRUST_MS ago found it up
//   to date. An instance that cannot confirm (its database unreachable, its process frozen) stops
//   believing before the change's bound (CONFIRM_BOUND_MS) has passed: the instances a command
//   names as unconfirmed look every key up, so they refuse what was taken away until they catch up.
// The embedded PGlite is one process: its notifications reach the instances of that process before
// the change's commit returns (PGlite queues its listeners ahead of the query's answer), so it
// registers nothing and always believes its memory (its key lifetime still applies).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type DatabaseHandle, queryRows, sql } from '../db/client.js';

/** How often an instance writes its heartbeat and reads the current version. */
export const HEARTBEAT_MS = 500;
/** How long after a heartbeat that found it up to date an instance believes its memory. */
export const TRUST_MS = 1500;
/** An instance whose heartbeat is older than this is not live: no change waits for it. */
export const LIVE_MS = 5000;
/** Rows of instances silent this long are deleted at the next start of any instance. */
const FORGET_INSTANCES_AFTER = '1 hour';

export interface InstanceSync {
  /** The instance's id in `instances` (null on PGlite: nothing is registered). */
  id: string | null;
  /** Whether remembered keys may be believed now; when false every key is looked up. */
  trusted(): boolean;
  /**
   * A notification of api_keys_changed: `payload` is the version, or undefined when delivery may
   * have had a gap (the LISTEN connection lost or made again).
   */
  changed(payload: string | undefined): void;
  /** Stops the heartbeat and removes the instance's row. */
  stop(): Promise<void>;
}

export interface InstanceSyncOptions {
  /** Forgets every remembered key (the key cache's clear). */
  forget(): void;
  /** Where a failed heartbeat is told (at most one line per failure streak). */
  warn?(message: string): void;
}

export async function startInstanceSync(
  handle: DatabaseHandle,
  options: InstanceSyncOptions,
): Promise<InstanceSync> {
  if (handle.kind !== 'postgres') {
    return { id: null, trusted: () => true, changed: () => options.forget(), stop: async () => {} };
  }
  const { db } = handle;
  const id = randomUUID();
  const host = hostname();
  /** The last version whose change this instance has applied. */
  let applied = 0;
  /** performance.now() until which remembered keys are believed. */
  let trustedUntil = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let beating: Promise<void> | null = null;
  let beatAgain = false;
  let failing = false;
  // Acknowledgements are written one at a time, the newest version pending replacing older ones.
  let acking: Promise<void> | null = null;
  let ackPending = 0;

  /** `exact`: the version went back (a restored database, a failover that lost commits). */
  const writeAck = async (version: number, exact = false) => {
    await queryRows(
      db,
      exact
        ? sql`update instances set acked_version = ${version}, acked_at = now() where id = ${id}`
        : sql`update instances set acked_version = greatest(acked_version, ${version}), acked_at = now() where id = ${id}`,
    );
  };
  const acknowledge = (version: number) => {
    ackPending = Math.max(ackPending, version);
    if (acking) return;
    acking = (async () => {
      while (ackPending > 0 && !stopped) {
        const version = ackPending;
        ackPending = 0;
        // A failed acknowledgement is written again by the next heartbeat's catch-up.
        await writeAck(version).catch(() => {});
      }
    })().finally(() => {
      acking = null;
    });
  };
  /** Applies `version`: forgets, then says so. */
  const apply = (version: number) => {
    options.forget();
    if (version > applied) {
      applied = version;
      acknowledge(version);
    }
  };

  const beat = async () => {
    const sentAt = performance.now();
    const appliedAtSend = applied;
    const [row] = await queryRows<{ version: string | number; acked: string | number }>(
      db,
      sql`insert into instances as i (id, host, pid, acked_version, acked_at)
        values (${id}, ${host}, ${process.pid}, ${applied}, now())
        on conflict (id) do update set heartbeat_at = now()
        returning (select version from key_changes) as version, i.acked_version as acked`,
    );
    const version = Number(row?.version ?? 0);
    if (version > applied) {
      // Missed (or the first heartbeat): forget what was remembered before this read.
      options.forget();
      applied = version;
      await writeAck(version);
    } else if (version < appliedAtSend) {
      // The database's version went back (a restored database, a failover that lost commits): what
      // was applied may be from changes it no longer has. (Below `applied` but not below
      // `appliedAtSend`: a notification came during this heartbeat, nothing went back.)
      options.forget();
      applied = version;
      await writeAck(version, true);
    } else if (Number(row?.acked ?? 0) < applied) {
      await writeAck(applied);
    }
    // What is remembered now was read after `sentAt`, or was forgotten since the version read.
    trustedUntil = sentAt + TRUST_MS;
  };
  const heartbeat = (): Promise<void> => {
    if (beating) {
      beatAgain = true;
      return beating;
    }
    clearTimeout(timer);
    beating = beat()
      .then(
        () => {
          failing = false;
        },
        (error: unknown) => {
          if (!failing) options.warn?.(`instance heartbeat failed: ${(error as Error).message}`);
          failing = true;
        },
      )
      .finally(() => {
        beating = null;
        if (stopped) return;
        if (beatAgain) {
          beatAgain = false;
          void heartbeat();
          return;
        }
        timer = setTimeout(() => void heartbeat(), HEARTBEAT_MS);
        timer.unref();
      });
    return beating;
  };

  await queryRows(
    db,
    sql`delete from instances where heartbeat_at < now() - ${FORGET_INSTANCES_AFTER}::interval`,
  ).catch(() => {});
  await heartbeat();

  return {
    id,
    trusted: () => performance.now() < trustedUntil,
    changed(payload) {
      const version = payload ? Number(payload) : Number.NaN;
      if (Number.isSafeInteger(version) && version > 0) {
        apply(version);
        return;
      }
      // A possible gap: believe nothing until a heartbeat has read where things stand.
      options.forget();
      trustedUntil = 0;
      void heartbeat();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await beating;
      await acking;
      await queryRows(db, sql`delete from instances where id = ${id}`).catch(() => {});
    },
  };
}
