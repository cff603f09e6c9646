// `bin/invoicing backup FILE` and `restore FILE [--force]`: copies of the embedded database
// (README: Backups). `backup` is an operation (src/operations/backup.ts), so it runs inside the
// server while one runs, on the database it has open. `restore` works on DATA_DIR's files, which no
// process may have open: it refuses while a server or command holds the directory, and refuses a
// directory that holds a database unless --force (the replaced files are then moved aside, never
// deleted). The copy is opened and read before anything is replaced. On PostgreSQL both point at
// pg_dump and pg_restore.
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { createPrivateDir, restrictDataDir } from '../db/data-dir.js';
import type { Message } from '../i18n/message.js';
import { OperationError } from '../operations/errors.js';
import { bool, type Command, command, localCommand } from './command.js';
import { describeOwner, tryAcquireLock } from './lock.js';

export interface RestoreResult {
  data_dir: string;
  restored_from: string;
  companies: number;
  /** Where the database that was in DATA_DIR went (--force), or null when it was empty. */
  moved_aside: string | null;
}

/** Unpacks the copy into `staging`, opens it there and counts its companies: is it ours? */
async function unpackAndCheck(source: string, staging: string): Promise<number> {
  const notOurs = (why: string | Message) =>
    new OperationError({ key: 'restore.not_ours', params: { file: source, why } });
  const { extract } = await import('tar');
  try {
    await extract({ file: source, cwd: staging, strict: true });
  } catch (error) {
    throw notOurs((error as Error).message);
  }
  if (!existsSync(join(staging, 'PG_VERSION'))) throw notOurs({ key: 'restore.no_pg_version' });
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLITE_OPTIONS } = await import('../db/client.js');
  let client: InstanceType<typeof PGlite> | null = null;
  try {
    client = new PGlite({ ...PGLITE_OPTIONS, dataDir: staging });
    await client.waitReady;
    const { rows } = await client.query<{ companies: number }>(
      'select count(*)::int as companies from companies',
    );
    return rows[0]?.companies ?? 0;
  } catch (error) {
    throw notOurs((error as Error).message);
  } finally {
    await client?.close().catch(() => {});
  }
}

export async function restoreEmbedded(config: Config, file: string, force: boolean): Promise<RestoreResult> {
  if (config.databaseUrl) {
    throw new OperationError({ key: 'restore.postgres' });
  }
  const source = resolve(file);
  await access(source, constants.R_OK).catch((error: NodeJS.ErrnoException) => {
    throw new OperationError({ key: 'restore.unreadable', params: { file: source, reason: error.message } });
  });
  const dataDir = resolve(config.dataDir);
  const parent = dirname(dataDir);
  if (!existsSync(parent)) {
    throw new OperationError({ key: 'restore.no_parent', params: { parent } });
  }
  createPrivateDir(dataDir);
  const attempt = tryAcquireLock(dataDir, 'cli');
  if (!attempt.acquired) {
    throw new OperationError({
      key: 'restore.busy',
      params: { dir: dataDir, owner: describeOwner(attempt.owner) },
    });
  }
  const staging = join(parent, `.${basename(dataDir)}.restore-${randomBytes(4).toString('hex')}`);
  try {
    const { NOT_DATABASE } = await import('../operations/backup.js');
    const present = (await readdir(dataDir)).filter((entry) => !NOT_DATABASE.has(entry));
    if (present.length > 0 && !force) {
      throw new OperationError({ key: 'restore.not_empty', params: { dir: dataDir } });
    }
    createPrivateDir(staging);
    const companies = await unpackAndCheck(source, staging);
    let movedAside: string | null = null;
    if (present.length > 0) {
      movedAside = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await mkdir(movedAside, { mode: 0o700 });
      for (const entry of present) await rename(join(dataDir, entry), join(movedAside, entry));
    }
    for (const entry of await readdir(staging)) await rename(join(staging, entry), join(dataDir, entry));
    restrictDataDir(dataDir);
    return { data_dir: dataDir, restored_from: source, companies, moved_aside: movedAside };
  } finally {
    await rm(staging, { recursive: true, force: true });
    attempt.lock.release();
  }
}

/** A path as a shell word: as it is when it is plain, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w./,:@%+=-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

export const BACKUP_COMMANDS: readonly Command[] = [
  command({
    name: 'backup',
    summary: 'cmd.backup',
    usage: 'FILE',
    positional: 'FILE',
    help: 'cmd.backup.help',
    options: {},
    operation: 'backup',
    args: (_values, positional) => ({ file: resolve(positional ?? '') }),
    text: (backup, { t }) =>
      t('cli.backup.written', {
        database: backup.database,
        file: backup.file,
        bytes: backup.bytes,
        at: backup.taken_at,
      }),
  }),
  localCommand({
    name: 'restore',
    summary: 'cmd.restore',
    usage: 'FILE [--force]',
    positional: 'FILE',
    help: 'cmd.restore.help',
    options: { force: bool },
    run: (config, args) => restoreEmbedded(config, String(args.file), args.force === true),
    args: (values, positional) => ({ file: positional, force: values.force === true }),
    text: (restore, { t }) =>
      [
        t('cli.restore.done', {
          from: restore.restored_from,
          dir: restore.data_dir,
          count: restore.companies,
        }),
        restore.moved_aside ? t('cli.restore.moved_aside', { dir: restore.moved_aside }) : '',
        // The server must be started on the directory restored into, whatever DATA_DIR it usually has.
        t('cli.restore.start', { command: `DATA_DIR=${shellWord(restore.data_dir)} bin/invoicing serve` }),
      ]
        .filter(Boolean)
        .join('\n'),
  }),
];
