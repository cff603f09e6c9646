// Debian's HAProxy with the shipped configuration, deploy/haproxy/haproxy.cfg, unchanged: the
// rehearsal only sets the variables the file reads. Its runtime API (the stats socket) tells
// which instances HAProxy sees as UP, so the rehearsal waits on what the proxy believes.
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from '../../../scripts/lib/repo.js';
import type { Instance } from './instances.js';
import { exitAsError, portAccepts, signalAndWait, startLogged, waitUntil } from './processes.js';

export const HAPROXY_CONFIG = path.join(repoRoot, 'deploy/haproxy/haproxy.cfg');
const BACKEND = 'invoicing';

export interface HaproxyServer {
  url: string;
  /** Status of each server of the backend as HAProxy sees it: UP, DOWN, NOLB, MAINT... */
  serverStates(): Promise<Map<string, string>>;
  /** Waits until HAProxy sees `server` (invoicing1..3) in the given state. */
  waitFor(server: string, state: 'UP' | 'DOWN', timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function runtimeCommand(socketPath: string, command: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let text = '';
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`HAProxy runtime API: no answer to "${command}" within ${timeoutMs} ms`));
    });
    socket.once('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk) => {
      text += chunk.toString();
    });
    socket.once('end', () => resolve(text));
    socket.once('error', reject);
  });
}

export function haproxyEnv(bind: string, instances: Instance[], statsSocket: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    INVOICING_API_BIND: bind,
    HAPROXY_STATS_SOCKET: statsSocket,
  };
  instances.forEach((instance, index) => {
    env[`INVOICING_${index + 1}`] = `127.0.0.1:${instance.port}`;
    env[`INVOICING_${index + 1}_OPS_PORT`] = String(instance.opsPort);
  });
  return env;
}

export async function startHaproxy(options: {
  port: number;
  instances: Instance[];
  runDir: string;
  logFile: string;
  binary?: string;
}): Promise<HaproxyServer> {
  const statsSocket = path.join(options.runDir, 'haproxy.sock');
  const env = haproxyEnv(`127.0.0.1:${options.port}`, options.instances, statsSocket);
  const binary = options.binary ?? process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';
  const child: ChildProcess = startLogged(binary, ['-db', '-f', HAPROXY_CONFIG], options.logFile, { env });
  await Promise.race([
    waitUntil('HAProxy listening', () => portAccepts(options.port), 30_000, 100),
    exitAsError(child, 'HAProxy', options.logFile),
  ]);

  async function serverStates(): Promise<Map<string, string>> {
    const csv = await runtimeCommand(statsSocket, 'show stat');
    const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
    const columns = header!.split(',');
    const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    const states = new Map<string, string>();
    for (const row of rows) {
      const cells = row.split(',');
      if (cells[proxy!] === BACKEND && !['BACKEND', 'FRONTEND'].includes(cells[server!]!))
        states.set(cells[server!]!, cells[status!]!);
    }
    return states;
  }

  return {
    url: `http://127.0.0.1:${options.port}`,
    serverStates,
    async waitFor(server, state, timeoutMs) {
      await waitUntil(
        `HAProxy sees ${server} ${state}`,
        async () => (await serverStates()).get(server) === state,
        timeoutMs,
        100,
      );
    },
    async stop() {
      await signalAndWait(child, 'SIGTERM', 10_000);
    },
  };
}
