// The rehearsal's own redis-server on a free port (restarted during the run, so never the
// machine's shared one), without persistence: a restart empties it, as a lost cache node would.
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { exitAsError, signalAndWait, startLogged, timedRestart, waitUntil } from './processes.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export interface RedisServer {
  port: number;
  url: string;
  start(): Promise<void>;
  restart(): Promise<{ stopMs: number; startMs: number }>;
  stop(): Promise<void>;
}

/** PING over a raw socket: true on +PONG within the timeout. */
export function redisAnswers(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

export function createRedis(port: number, logFile: string, binary = 'redis-server'): RedisServer {
  let child: ChildProcess | null = null;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--dir',
    os.tmpdir(),
  ];

  async function start(): Promise<void> {
    const started = startLogged(binary, args, logFile);
    child = started;
    await Promise.race([
      waitUntil('redis-server answering PING', () => redisAnswers(port), START_TIMEOUT_MS, 100),
      exitAsError(started, 'redis-server', logFile),
    ]);
  }

  async function stop(): Promise<void> {
    if (child) await signalAndWait(child, 'SIGTERM', STOP_TIMEOUT_MS);
  }

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    restart: () => timedRestart(stop, start),
  };
}
