// Debian's HAProxy with deploy/haproxy/postgres.cfg unchanged, in front of the Patroni nodes: the
// instances' DATABASE_URL names it. It checks each node's Patroni over HTTPS against the cluster's
// CA and the service's name. Its runtime API says which node it sends connections to.
import path from 'node:path';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { runtimeCommand } from '../lib/haproxy.js';
import { exitAsError, portAccepts, signalAndWait, startLogged, waitUntil } from '../lib/processes.js';
import type { PatroniNode } from './cluster.js';

export const PG_HAPROXY_CONFIG = path.join(repoRoot, 'deploy/haproxy/postgres.cfg');
const PROXY = 'postgres_primary';

export interface PgHaproxy {
  port: number;
  /**
   * The nodes HAProxy sends connections to (the leader, when there is one). Right after HAProxy
   * starts, every node counts as UP until its first check fails.
   */
  upServers(): Promise<string[]>;
  waitForOnly(server: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgHaproxy(options: {
  port: number;
  nodes: PatroniNode[];
  runDir: string;
  logFile: string;
  /** The cluster's CA and the name every node's certificate carries. */
  caFile: string;
  serviceName: string;
}): Promise<PgHaproxy> {
  const statsSocket = path.join(options.runDir, 'haproxy-postgres.sock');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PG_PRIMARY_BIND: `127.0.0.1:${options.port}`,
    PG_HAPROXY_STATS_SOCKET: statsSocket,
    PG_CA_FILE: options.caFile,
    PG_SERVICE_NAME: options.serviceName,
  };
  options.nodes.forEach((node, index) => {
    env[`PG_NODE_${index + 1}`] = `127.0.0.1:${node.pgPort}`;
    env[`PG_NODE_${index + 1}_REST_PORT`] = String(node.restPort);
  });
  const binary = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';
  const child = startLogged(binary, ['-db', '-f', PG_HAPROXY_CONFIG], options.logFile, { env });
  await Promise.race([
    waitUntil('HAProxy (PostgreSQL) listening', () => portAccepts(options.port), 30_000, 100),
    exitAsError(child, 'HAProxy (PostgreSQL)', options.logFile),
  ]);

  async function upServers(): Promise<string[]> {
    const csv = await runtimeCommand(statsSocket, 'show stat');
    const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
    const columns = header!.split(',');
    const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    return (
      rows
        .map((row) => row.split(','))
        .filter((cells) => cells[proxy!] === PROXY && !['BACKEND', 'FRONTEND'].includes(cells[server!]!))
        // "UP 1/2" (going down) still gets connections: only DOWN and MAINT do not.
        .filter((cells) => cells[status!]!.startsWith('UP'))
        .map((cells) => cells[server!]!)
    );
  }

  return {
    port: options.port,
    upServers,
    async waitForOnly(server, timeoutMs) {
      await waitUntil(
        `HAProxy sends PostgreSQL connections to ${server} only`,
        async () => {
          const up = await upServers();
          return up.length === 1 && up[0] === server;
        },
        timeoutMs,
        100,
      );
    },
    async stop() {
      await signalAndWait(child, 'SIGTERM', 10_000);
    },
  };
}
