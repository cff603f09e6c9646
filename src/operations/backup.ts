// `backup FILE`: a consistent copy of the embedded database, taken by the process that has it open
// (the running server, through its admin socket, or the command itself when none runs): a gzipped
// tar of DATA_DIR's database files, read while the database is quiescent. Anyone can list it
// (`tar tzf`); `bin/invoicing restore FILE` brings it back. The copy holds every secret the
// service keeps (webhook secrets in clear): a private file (0600), written whole then renamed into
// place, and audited. PostgreSQL has pg_dump (README: Backups).
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { DatabaseHandle } from '../db/client.js';
import { formatTimestamp } from '../format.js';
import { define, textArg } from './define.js';
import { ArgumentError, OperationError } from './errors.js';

/** Files of DATA_DIR that are not the database: the server's lock and its admin socket. */
export const NOT_DATABASE: ReadonlySet<string> = new Set(['invoicing.lock', 'admin.sock']);

export interface BackupResult {
  file: string;
  bytes: number;
  database: string;
  taken_at: string;
}

/** Writes the copy; `taken_at` in `timeZone` (TZ_NAME), like every time the operator sees. */
export async function writeBackup(
  handle: DatabaseHandle,
  file: string,
  timeZone: string,
): Promise<BackupResult> {
  if (!handle.whileQuiescent) {
    throw new OperationError({
      key: handle.kind === 'postgres' ? 'refused.backup_postgres' : 'refused.backup_in_memory',
    });
  }
  const partial = `${file}.partial-${randomBytes(4).toString('hex')}`;
  let takenAt = '';
  // Loaded here: the server needs it only when a backup is asked for.
  const { create: createTar } = await import('tar');
  try {
    await handle.whileQuiescent(async (dataDir) => {
      takenAt = formatTimestamp(new Date(), timeZone);
      const entries = (await readdir(dataDir)).filter((entry) => !NOT_DATABASE.has(entry)).sort();
      await writeFile(partial, '', { mode: 0o600, flag: 'wx' }); // private before a byte is written
      await createTar({ gzip: true, portable: true, cwd: dataDir, file: partial }, entries);
    });
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR')
      throw new OperationError({ key: 'refused.backup_unwritable', params: { file, reason: message } });
    throw error;
  }
  return { file, bytes: (await stat(file)).size, database: handle.description, taken_at: takenAt };
}

/** The `backup` entry of the operations table (src/operations/index.ts). */
export const backupOperations = {
  backup: define({
    // Not inside a transaction: the copy takes the embedded database's one connection itself.
    ownTransactions: true,
    parse: (raw) => {
      const file = textArg(raw, 'file');
      // The command line resolves FILE against its own directory: the server may run elsewhere.
      if (!isAbsolute(file)) throw new ArgumentError({ key: 'arg.absolute_file' });
      return { file };
    },
    run: (context, args, setup) => writeBackup(setup.handle, args.file, context.timeZone),
  }),
};
