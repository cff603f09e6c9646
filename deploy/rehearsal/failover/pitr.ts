// Point-in-time recovery, as deploy/README.md tells an operator to do it: pgBackRest restores the
// newest backup before the target time into a new, empty data directory and writes the recovery
// settings (restore_command, recovery_target_time, promote at the target); PostgreSQL replays the
// archived WAL up to that moment and opens as a separate, stand-alone cluster. The settings that
// belong to the Patroni node the backup came from are overridden on the command line: no WAL
// archiving into the same repository, no synchronous standby to wait for, its own port, socket and
// pg_hba.conf. Its TLS settings are the node's (ssl_cert_file ../tls/node.crt): the restored
// cluster gets a certificate of its own in tls/ next to its data directory, as a node has.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { postgresCommand } from '../lib/postgres.js';
import { exitAsError, signalAndWait, startLogged, waitUntil } from '../lib/processes.js';
import { ownedDir, type PatroniNode, PG_BIN, pgbackrest, type RunAs } from './cluster.js';
import { type Certificates, installNodeCertificate } from './tls.js';

export interface RestoredCluster {
  port: number;
  dataDir: string;
  /** How long the restore and the replay took. */
  restoreMs: number;
  recoverMs: number;
  stop(): Promise<void>;
}

/** `2026-11-27 17:30:00.123+00`, the form recovery_target_time reads. */
export function targetTime(wallMs: number): string {
  return `${new Date(wallMs).toISOString().replace('T', ' ').replace('Z', '')}+00`;
}

export async function restoreToTime(options: {
  user: RunAs;
  /** Any node: pgBackRest reads the repository; pg1-path is given on the command line. */
  node: PatroniNode;
  runDir: string;
  port: number;
  target: string;
  superuserUrl: (port: number) => string;
  logFile: string;
  certificates: Certificates;
}): Promise<RestoredCluster> {
  const { user, runDir, port } = options;
  const clusterDir = ownedDir(path.join(runDir, 'restored'), user);
  const dataDir = ownedDir(path.join(clusterDir, 'data'), user);
  installNodeCertificate(
    options.certificates,
    'restored',
    ownedDir(path.join(clusterDir, 'tls'), user),
    user,
  );
  const socketDir = ownedDir(path.join(runDir, 'restored-socket'), user);
  const restoreStart = performance.now();
  await pgbackrest(user, options.node, [
    `--pg1-path=${dataDir}`,
    '--type=time',
    `--target=${options.target}`,
    '--target-action=promote',
    'restore',
  ]);
  const restoreMs = performance.now() - restoreStart;
  const recoverStart = performance.now();
  // The Patroni node's settings that do not belong to a separate cluster, overridden.
  const [command, ...args] = postgresCommand(user, PG_BIN, dataDir, port, {
    unix_socket_directories: socketDir,
    hba_file: path.join(dataDir, 'pg_hba.conf'),
    ident_file: path.join(dataDir, 'pg_ident.conf'),
    archive_mode: 'off',
    synchronous_standby_names: '',
    cluster_name: 'invoicing-restored',
  });
  // restore_command (written by the restore) runs pgBackRest, which finds the repository as the
  // restore did: in /etc/pgbackrest.conf in production, through PGBACKREST_* here.
  const env = { ...process.env, ...options.node.pgbackrestEnv(), PGBACKREST_PG1_PATH: dataDir };
  const child: ChildProcess = startLogged(command!, args, options.logFile, { cwd: runDir, env });
  await Promise.race([
    waitUntil(
      'restored cluster promoted (recovery reached its target)',
      async () => {
        const client = new pg.Client({
          connectionString: options.superuserUrl(port),
          connectionTimeoutMillis: 2000,
        });
        try {
          await client.connect();
          const result = await client.query<{ recovering: boolean }>(
            'select pg_is_in_recovery() as recovering',
          );
          return result.rows[0]?.recovering === false;
        } finally {
          await client.end().catch(() => {});
        }
      },
      180_000,
      250,
    ),
    exitAsError(child, 'restored PostgreSQL', options.logFile),
  ]);
  return {
    port,
    dataDir,
    restoreMs,
    recoverMs: performance.now() - recoverStart,
    async stop() {
      await signalAndWait(child, 'SIGINT', 30_000);
    },
  };
}
