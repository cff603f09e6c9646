// wrk, driven by random-ids.lua. `wrk --version` exits 1 even when wrk is there: only a
// missing binary (ENOENT) means "not available".
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startChild } from '../../scripts/lib/children.js';
import type { LoadResult, LoadSpec, LoadTool } from './types.js';

const script = fileURLToPath(new URL('random-ids.lua', import.meta.url));

export function wrkAvailable(): Promise<boolean> {
  return new Promise((resolve) =>
    execFile('wrk', ['--version'], (error) => resolve(!error || ('code' in error && error.code === 1))),
  );
}

function run(spec: LoadSpec): Promise<LoadResult> {
  const args = ['-t', String(spec.threads), '-c', String(spec.connections), '-d', `${spec.seconds}s`];
  args.push('--latency', '--timeout', '10s', '-s', script, spec.url);
  const env = {
    ...process.env,
    BENCH_PATH: spec.path,
    BENCH_IDS_FILE: spec.idsFile ?? '',
    BENCH_AUTH: spec.authorization,
    BENCH_ACCEPT_ENCODING: spec.acceptEncoding ?? '',
  };
  const child = startChild('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const line = output.split('\n').find((text) => text.startsWith('BENCH_RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`wrk failed (exit ${code}): ${output.slice(-2000)}`));
        return;
      }
      const raw = JSON.parse(line.slice('BENCH_RESULT '.length));
      const errors = raw.errors as Record<string, number>;
      resolve({
        requestsPerSecond: raw.requests / (raw.duration_us / 1e6),
        p50Ms: raw.p50_us / 1000,
        p99Ms: raw.p99_us / 1000,
        requests: raw.requests,
        failures: Object.values(errors).reduce((sum, value) => sum + value, 0),
      });
    });
  });
}

export const wrkTool: LoadTool = { name: 'wrk', run };
