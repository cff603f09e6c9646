// The pgBackRest repository on a backup host of its own (deploy/README.md, "Building the cluster",
// step 4'), as the runbook builds it: the backup host runs `pgbackrest server` (what Debian's
// pgbackrest.service runs) with deploy/pgbackrest/repository-host.conf and a certificate of the
// cluster's CA (CN backup, in tls/ as /etc/pgbackrest/tls/ holds it); each database node runs its
// own `pgbackrest server` with deploy/pgbackrest/pgbackrest.conf plus the lines that file shows
// commented for a backup host. The nodes push WAL to the backup host; step 4's commands and the
// backups run on the backup host and read whichever node leads; a restore runs on the node side.
// On one machine only where things are changes (paths, ports, the host name localhost, the
// certificate files), through PGBACKREST_* variables: test/deploy/backup-host.unit.test.ts holds
// every override to that.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { exitAsError, portAccepts, signalAndWait, startLogged, waitUntil } from '../lib/processes.js';

export const REPOSITORY_HOST_CONFIG = path.join(repoRoot, 'deploy/pgbackrest/repository-host.conf');
/** The name the nodes and the backup host reach each other by here (their certificates carry it). */
export const HOST_NAME = 'localhost';

/**
 * Step 4 of the runbook, run on the backup host, in this order (deploy/README.md shows each as
 * `pgbackrest --stanza=invoicing ARGS`; test/deploy/backup-host.unit.test.ts holds the two together).
 */
export const RUNBOOK_STEP_4: readonly (readonly string[])[] = [
  ['stanza-create'],
  ['check'],
  ['--type=full', 'backup'],
];

/** The `#   key=value` lines of pgbackrest.conf: what a node adds for a backup host. */
export function backupHostLines(nodeConfig: string): string[] {
  return [...nodeConfig.matchAll(/^# {3}([a-z0-9-]+=.*)$/gm)].map((match) => match[1]!);
}

/** pgbackrest.conf as a node has it with a backup host: those lines added under [global]. */
export function withBackupHostLines(nodeConfig: string): string {
  const lines = backupHostLines(nodeConfig);
  if (!lines.length || !/^\[global\]$/m.test(nodeConfig))
    throw new Error('pgbackrest.conf: no commented lines for a backup host, or no [global]');
  return nodeConfig.replace(/^\[global\]$/m, `[global]\n${lines.join('\n')}`);
}

/** A certificate's files as `installNodeCertificate` puts them (node.crt, node.key, ca.crt). */
export interface TlsFiles {
  cert: string;
  key: string;
  ca: string;
}

/** A node's PGBACKREST_* overrides for the backup host lines and its own server. */
export function nodeBackupEnv(input: {
  tls: TlsFiles;
  serverPort: number;
  backupPort: number;
}): Record<string, string> {
  const { tls } = input;
  return {
    PGBACKREST_REPO1_HOST: HOST_NAME,
    PGBACKREST_REPO1_HOST_PORT: String(input.backupPort),
    PGBACKREST_REPO1_HOST_CERT_FILE: tls.cert,
    PGBACKREST_REPO1_HOST_KEY_FILE: tls.key,
    PGBACKREST_REPO1_HOST_CA_FILE: tls.ca,
    PGBACKREST_TLS_SERVER_ADDRESS: '127.0.0.1',
    PGBACKREST_TLS_SERVER_PORT: String(input.serverPort),
    PGBACKREST_TLS_SERVER_CERT_FILE: tls.cert,
    PGBACKREST_TLS_SERVER_KEY_FILE: tls.key,
    PGBACKREST_TLS_SERVER_CA_FILE: tls.ca,
  };
}

/** The backup host's PGBACKREST_* overrides: its paths, port, certificate, and where the nodes are. */
export function backupHostEnv(input: {
  config: string;
  dir: string;
  tls: TlsFiles;
  port: number;
  nodes: { dataDir: string; pgPort: number; serverPort: number }[];
}): Record<string, string> {
  const { tls } = input;
  const env: Record<string, string> = {
    PGBACKREST_CONFIG: input.config,
    PGBACKREST_REPO1_PATH: path.join(input.dir, 'repo'),
    PGBACKREST_LOG_PATH: path.join(input.dir, 'log'),
    PGBACKREST_LOCK_PATH: path.join(input.dir, 'lock'),
    PGBACKREST_TLS_SERVER_ADDRESS: '127.0.0.1',
    PGBACKREST_TLS_SERVER_PORT: String(input.port),
    PGBACKREST_TLS_SERVER_CERT_FILE: tls.cert,
    PGBACKREST_TLS_SERVER_KEY_FILE: tls.key,
    PGBACKREST_TLS_SERVER_CA_FILE: tls.ca,
  };
  for (const [index, node] of input.nodes.entries()) {
    const pg = `PGBACKREST_PG${index + 1}`;
    Object.assign(env, {
      [`${pg}_HOST`]: HOST_NAME,
      [`${pg}_HOST_PORT`]: String(node.serverPort),
      [`${pg}_HOST_CERT_FILE`]: tls.cert,
      [`${pg}_HOST_KEY_FILE`]: tls.key,
      [`${pg}_HOST_CA_FILE`]: tls.ca,
      [`${pg}_PATH`]: node.dataDir,
      [`${pg}_PORT`]: String(node.pgPort),
    });
  }
  return env;
}

/** `pgbackrest server` (as `prefix` says: the postgres user), up once its port accepts. */
export async function startPgbackrestServer(options: {
  name: string;
  prefix: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  cwd: string;
  logFile: string;
}): Promise<{ stop(): Promise<void>; kill(): Promise<void>; pid: number | undefined }> {
  const [command, ...args] = [...options.prefix, 'pgbackrest', 'server'];
  const child: ChildProcess = startLogged(command!, args, options.logFile, {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
  });
  await Promise.race([
    waitUntil(`${options.name}'s pgbackrest server`, () => portAccepts(options.port, 300), 30_000, 100),
    exitAsError(child, `${options.name}'s pgbackrest server`, options.logFile),
  ]);
  return {
    pid: child.pid,
    stop: () => signalAndWait(child, 'SIGTERM', 10_000).then(() => {}),
    kill: () => signalAndWait(child, 'SIGKILL', 10_000).then(() => {}),
  };
}
