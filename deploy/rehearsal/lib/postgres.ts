// The rehearsal's own PostgreSQL cluster: initdb into the run's temporary directory with the
// machine's PostgreSQL binaries (/usr/lib/postgresql/<newest>/bin, or REHEARSAL_PG_BIN), on a
// free port, TCP on 127.0.0.1 only. It is restarted during the run, so it is never the machine's
// shared server. PostgreSQL refuses to run as root: as root, initdb and the server run as the
// `postgres` user (setpriv execs, so the child's pid is the postmaster's).
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { exitAsError, signalAndWait, startLogged, timedRestart, waitUntil } from './processes.js';

const run = promisify(execFile);

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

function binDir(): string {
  if (process.env.REHEARSAL_PG_BIN) return process.env.REHEARSAL_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(path.join(root, name, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error(`no PostgreSQL server under ${root}/*/bin: install postgresql or set REHEARSAL_PG_BIN`);
  return path.join(root, versions[0], 'bin');
}

export interface RunAs {
  /** Command prefix: setpriv as root, nothing otherwise. */
  prefix: string[];
  uid: number | null;
  gid: number | null;
}

/** How PostgreSQL's programs are run: as the `postgres` user when this runs as root (it refuses root). */
export async function runAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return { prefix: [], uid: null, gid: null };
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
    throw new Error('running as root, and there is no `postgres` user to run PostgreSQL as');
  });
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return {
    prefix: ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'],
    uid: Number(stdout.trim()),
    gid: Number(gid.trim()),
  };
}

/** The postgres server's command line: its data directory, port and settings (`-c`), on 127.0.0.1. */
export function postgresCommand(
  user: RunAs,
  bin: string,
  dataDir: string,
  port: number,
  settings: Record<string, string>,
): string[] {
  const all = { listen_addresses: '127.0.0.1', ...settings };
  return [
    ...user.prefix,
    path.join(bin, 'postgres'),
    ...['-D', dataDir, '-p', String(port)],
    ...Object.entries(all).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
}

export interface PostgresCluster {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  pid(): number | undefined;
  start(): Promise<void>;
  /** Fast shutdown (SIGINT: sessions are ended, what `pg_ctl restart -m fast` does), then start. */
  restart(): Promise<{ stopMs: number; startMs: number }>;
  stop(): Promise<void>;
  version: string;
}

export async function createCluster(runDir: string, port: number, logFile: string): Promise<PostgresCluster> {
  const bin = binDir();
  const user = await runAs();
  const dataDir = path.join(runDir, 'postgres');
  mkdirSync(dataDir, { mode: 0o700 });
  if (user.uid !== null && user.gid !== null) chownSync(dataDir, user.uid, user.gid);
  const [initdb, ...initArgs] = [
    ...user.prefix,
    path.join(bin, 'initdb'),
    '-D',
    dataDir,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ];
  await run(initdb!, initArgs, { env: { ...process.env, LC_ALL: 'C' } }).catch((error) => {
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  });
  const { stdout: version } = await run(path.join(bin, 'postgres'), ['--version']);

  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const [command, ...args] = postgresCommand(user, bin, dataDir, port, {
      unix_socket_directories: '',
      max_connections: '100',
    });
    const started = startLogged(command!, args, logFile, { cwd: os.tmpdir() });
    child = started;
    await Promise.race([
      waitUntil(
        'PostgreSQL accepting connections',
        async () => {
          const client = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 2000 });
          try {
            await client.connect();
            await client.query('select 1');
            return true;
          } finally {
            await client.end().catch(() => {});
          }
        },
        START_TIMEOUT_MS,
        250,
      ),
      exitAsError(started, 'PostgreSQL', logFile),
    ]);
  }

  async function stop(): Promise<void> {
    if (child) await signalAndWait(child, 'SIGINT', STOP_TIMEOUT_MS);
  }

  return {
    port,
    url,
    version: version.trim(),
    pid: () => child?.pid,
    start,
    stop,
    restart: () => timedRestart(stop, start),
  };
}

/** Runs `work` with one client of `url`, always closed. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    query_timeout: 30_000,
  });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}
