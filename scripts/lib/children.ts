// Every process the harness starts is registered here and ended when the harness exits, also on
// Ctrl-C or an error: no server or load generator is left running.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

const children = new Set<ChildProcess>();

export function startChild(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child)));
}

function killAllNow(): void {
  for (const child of children) child.kill('SIGKILL');
}

let installed = false;

/** Ends the children on Ctrl-C / SIGTERM (then exits 130 / 143) and, as a last resort, on exit. */
export function installCleanup(): void {
  if (installed) return;
  installed = true;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the servers and load generators...\n`);
      stopAllChildren().finally(() => process.exit(code));
    });
  }
  process.once('exit', killAllNow);
}
