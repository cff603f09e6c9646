// The alert rules shipped in deploy/prometheus/ load in Prometheus (`promtool check rules`) and fire
// when they should and not before (`promtool test rules`, on series three instances would export).
// promtool comes with Debian's `prometheus` package (scripts/ensure-prometheus.sh installs it).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DIR = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));

async function promtool(args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd: DIR });
    return stdout + stderr;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error(
        'promtool is not installed: run scripts/ensure-prometheus.sh (Debian package prometheus)',
      );
    }
    throw new Error(`promtool ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}

describe('alert rules (deploy/prometheus/alerts.yml)', () => {
  it('load in Prometheus and fire as their unit tests expect', async () => {
    expect(await promtool(['check', 'rules', 'alerts.yml'])).toContain('SUCCESS: 9 rules found');
    expect(await promtool(['test', 'rules', 'alerts.test.yml'])).toContain('SUCCESS');
  });
});
