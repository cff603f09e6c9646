// Where a command runs its operation:
// - DATABASE_URL set: directly on PostgreSQL (a change that could turn a key away is announced to
//   every server, which forgets its remembered keys at once: it holds from their next request);
// - embedded PGlite: through the running server's admin socket, or, when no server runs, directly
//   on DATA_DIR after taking its lock. The server and a command never both open the directory.
//   Only `migrate` and `demo` (and `serve`, `restore`, elsewhere) may create a database: any other
//   command against a DATA_DIR without one refuses, naming it, and leaves nothing behind, so that
//   an operator's command never writes into a second, empty database the server never reads.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { storageTargetOf } from '../db/target.js';
import type { Message } from '../i18n/message.js';
import type { RawArgs } from '../operations/arguments.js';
import { OperationError } from '../operations/errors.js';
import type { OperationName, OperationResult } from '../operations/index.js';
import { callAdminServer, NoServer } from './admin-socket.js';
import { describeOwner, type LockOwner, tryAcquireLock } from './lock.js';
import { prepareDataDir, requireExistingDatabase } from './preflight.js';

export interface RunOptions {
  /** Who runs it, for the audit trail. */
  actor: string;
  /** Where a notice for the operator goes (a new embedded database, instances that did not confirm). */
  notice(text: string | Message): void;
  /** The running server's API base URL, when the operation ran in it (through the admin socket). */
  servedAt?(apiBaseUrl: string): void;
}

/** The operations that may create the embedded database (`serve` and `restore` are not operations). */
const CREATES_DATABASE: ReadonlySet<OperationName> = new Set<OperationName>(['migrate', 'demo']);

/** How long a command waits for DATA_DIR held by another command, or by a server still starting. */
const LOCK_WAIT_MS = 30_000;
const LOCK_POLL_MS = 150;

/**
 * Opens the database, runs `work`, closes. The embedded database gets its pending migrations first
 * (a command may be the first to open DATA_DIR); PostgreSQL is migrated by `migrate` or `serve`.
 */
export async function withDatabase<T>(
  config: Config,
  work: (handle: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const { openDatabase } = await import('../db/client.js');
  const handle = await openDatabase(storageTargetOf(config, 2));
  try {
    if (handle.kind === 'pglite') {
      const { runMigrations } = await import('../db/migrate.js');
      await runMigrations(handle);
    }
    return await work(handle);
  } finally {
    await handle.close();
  }
}

async function runDirectly<N extends OperationName>(
  config: Config,
  name: N,
  args: RawArgs,
  actor: string,
  notice: (text: string | Message) => void,
): Promise<OperationResult<N>> {
  const { executeOperation } = await import('../operations/index.js');
  const { describeUnconfirmed } = await import('../instances/confirm.js');
  return withDatabase(config, (handle) =>
    executeOperation(
      {
        handle,
        timeZone: config.timeZone,
        webhooks: config.webhooks,
        runsIn: 'command',
        onKeyChange: (confirmation) => {
          if (confirmation.unconfirmed.length > 0) notice(describeUnconfirmed(confirmation));
        },
      },
      name,
      args,
      actor,
    ),
  );
}

/** Runs the named operation where it must run (see above); its result as the operation typed it. */
export async function runOperation<N extends OperationName>(
  config: Config,
  name: N,
  args: RawArgs,
  options: RunOptions,
): Promise<OperationResult<N>> {
  const { actor } = options;
  if (config.databaseUrl) return runDirectly(config, name, args, actor, options.notice);

  const deadline = Date.now() + LOCK_WAIT_MS;
  let owner: LockOwner | null = null;
  let prepared = false;
  for (;;) {
    try {
      // The server runs the same table: its JSON answer is this operation's result.
      const answer = await callAdminServer(config.dataDir, name, args, actor);
      if (answer.apiBaseUrl) options.servedAt?.(answer.apiBaseUrl);
      return answer.result as OperationResult<N>;
    } catch (error) {
      if (!(error instanceof NoServer)) throw error;
    }
    // No server: the command opens the directory itself, which must hold a database already,
    // unless the command is one that may create it (then loudly).
    if (!prepared) {
      prepared = true;
      if (CREATES_DATABASE.has(name)) {
        const notice = prepareDataDir(config.dataDir);
        if (notice) options.notice(notice);
      } else {
        requireExistingDatabase(config.dataDir);
      }
    }
    const attempt = tryAcquireLock(config.dataDir, 'cli');
    if (attempt.acquired) {
      try {
        return await runDirectly(config, name, args, actor, options.notice);
      } finally {
        attempt.lock.release();
      }
    }
    // Held: another command is running, or a server is starting and will open its socket soon.
    owner = attempt.owner;
    if (Date.now() >= deadline) break;
    await sleep(LOCK_POLL_MS);
  }
  throw new OperationError({
    key: 'cli.busy_no_answer',
    params: { dir: config.dataDir, owner: describeOwner(owner) },
  });
}
