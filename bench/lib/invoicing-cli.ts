// Runs the project's operator command line (`bin/invoicing ... --json`) the way an operator
// would, so companies, keys and migrations are made by the project's own code (key hashes,
// scopes, migration journal) and the bench does not depend on src/ internals.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { invoicingBin, repoRoot } from '../../scripts/lib/repo.js';

const run = promisify(execFile);

/** Where the command works: PostgreSQL (`databaseUrl`) or an embedded PGlite directory. */
export type CliTarget = { databaseUrl: string } | { dataDir: string };

export function storageEnv(target: CliTarget): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  if ('databaseUrl' in target) env.DATABASE_URL = target.databaseUrl;
  else env.DATA_DIR = target.dataDir;
  return env;
}

export async function invoicing<T = Record<string, unknown>>(target: CliTarget, args: string[]): Promise<T> {
  try {
    const { stdout } = await run(process.execPath, [invoicingBin, ...args, '--json'], {
      cwd: repoRoot,
      env: storageEnv(target),
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as T;
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`bin/invoicing ${args.join(' ')} failed: ${failure.stderr?.trim() || failure.message}`);
  }
}

export interface CreatedKey {
  id: number;
  key: string;
}

/** A live key with every scope, valid for 365 days. */
export function createKey(target: CliTarget, companyId: number): Promise<CreatedKey> {
  return invoicing<CreatedKey>(target, ['keys', 'create', '--company', String(companyId), '--scopes', 'all']);
}
