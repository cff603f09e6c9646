// The rehearsal's one clock (ms since it started: requests, events and progress lines share it)
// and its progress lines on stderr.
const t0 = performance.now();

export function now(): number {
  return performance.now() - t0;
}

export function say(message: string): void {
  process.stderr.write(`[${(now() / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
