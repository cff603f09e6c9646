// Processes of the rehearsal and the waits around them. Every child is registered with the bench's
// helper (scripts/lib/children.ts), so Ctrl-C, an error or a missed goal ends them all; every wait
// here has a deadline and polls a condition instead of sleeping a fixed time.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild } from '../../../scripts/lib/children.js';

export { installCleanup, stopAllChildren } from '../../../scripts/lib/children.js';

/** A port the kernel says is free now (it is chosen at run time, never fixed). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Distinct free ports (a port the kernel hands out twice in a row is asked for again). */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count && tries < count * 20; tries++) ports.add(await freePort());
  if (ports.size < count) throw new Error(`could not find ${count} free ports`);
  return [...ports];
}

/**
 * Polls `probe` every `intervalMs` until it gives a value (anything but undefined/false/null), or
 * fails after `timeoutMs` naming what it waited for and the last error the probe threw.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs: number,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError ? ` (last: ${(lastError as Error).message ?? String(lastError)})` : '';
      throw new Error(`${what}: not reached within ${Math.round(timeoutMs / 1000)} s${detail}`);
    }
    await sleep(intervalMs);
  }
}

/** A rejection after `ms` unless cancelled first (for racing against a wait with no poll). */
export function deadline(ms: number, message: string): { promise: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Starts a registered child whose stdout and stderr go to `logFile` (appended: restarts add to it). */
export function startLogged(
  command: string,
  args: string[],
  logFile: string,
  options: SpawnOptions = {},
  stdout: 'log' | 'pipe' = 'log',
): ChildProcess {
  const log = openSync(logFile, 'a');
  try {
    return startChild(command, args, {
      ...options,
      stdio: ['ignore', stdout === 'pipe' ? 'pipe' : log, log],
    });
  } finally {
    closeSync(log);
  }
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Sends `signal` and waits for the exit, at most `timeoutMs`; then SIGKILL. Returns how long the
 * process took to exit and whether it had to be killed.
 */
export async function signalAndWait(
  child: ChildProcess,
  signal: NodeJS.Signals,
  timeoutMs: number,
): Promise<{ ms: number; killed: boolean }> {
  const started = performance.now();
  if (!isRunning(child)) return { ms: 0, killed: false };
  const done = exited(child);
  child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const outcome = await Promise.race([done.then(() => 'exited' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await done;
    return { ms: performance.now() - started, killed: true };
  }
  return { ms: performance.now() - started, killed: false };
}

/** Rejects when the child exits: raced against a start's wait so a crash is reported at once. */
export function exitAsError(child: ChildProcess, name: string, logFile: string): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () =>
      reject(
        new Error(
          `${name} exited (${child.exitCode ?? child.signalCode}) before it was ready; see ${logFile}`,
        ),
      );
    if (!isRunning(child)) fail();
    else child.once('exit', fail);
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function portAccepts(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** GET with a deadline; the status and text, or a thrown error. */
export async function getText(url: string, timeoutMs = 2000): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, text: await response.text() };
}

/** Stops and starts a server again, timing each half. */
export async function timedRestart(
  stop: () => Promise<void>,
  start: () => Promise<void>,
): Promise<{ stopMs: number; startMs: number }> {
  const stopped = performance.now();
  await stop();
  const stopMs = performance.now() - stopped;
  const starting = performance.now();
  await start();
  return { stopMs, startMs: performance.now() - starting };
}
