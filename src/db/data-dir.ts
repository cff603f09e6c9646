// The embedded database's directory (DATA_DIR) is the whole database: it is private to the
// account that runs the service. Created 0700; while it is open, the process umask makes every
// file written from then on private (files 0600, directories 0700); and whatever is already
// inside loses group and other access (a directory from an older version, files copied in with
// loose modes, or the files PGlite unpacks on first start, which it writes 0666).
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PRIVATE_UMASK = 0o077;

/** Creates the directory 0700 if missing, and makes this process write private files from now on. */
export function createPrivateDir(dataDir: string): void {
  process.umask(PRIVATE_UMASK);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * Takes group and other access away from the directory and everything in it (symbolic links
 * are left alone, never followed). Returns how many modes it changed.
 */
export function restrictDataDir(dataDir: string): number {
  let changed = 0;
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) {
      chmodSync(path, stat.mode & 0o700);
      changed++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(resolve(dataDir));
  return changed;
}
