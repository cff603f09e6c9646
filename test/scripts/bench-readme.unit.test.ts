// bench/README.md is written by `npm run bench` (bench/readme.ts): it says it is generated, what
// the run ran on and how, whether it was a quick run, and every row of the report.
import { describe, expect, it, vi } from 'vitest';
import { benchReadme, GENERATED_NOTICE } from '../../bench/readme.js';
import { Report, type RunMeta } from '../../bench/report.js';

function meta(quick: boolean): RunMeta {
  return {
    date: '2026-11-27T20:18:55.687Z',
    machine: {
      cpu: 'AMD EPYC',
      cores: 2,
      memoryGb: 24,
      node: 'v20.20.2',
      postgres: 'PostgreSQL 15.20',
      os: 'Linux',
    },
    tool: 'wrk (-t2 -c32, 2 rounds of 3 s)',
    server: 'the compiled build (dist/)',
    settings: { invoices: 10_000, quick },
    dataset: { database: 'partner_bench_10000', invoices: 10_000 },
  };
}

function report(): Report {
  const write = vi.spyOn(process.stdout, 'write').mockReturnValue(true);
  const result = new Report();
  result.add({
    group: 'throughput',
    case: 'GET /customers/{id} (vs bare prepared statement)',
    metric: 'req/s',
    api: '935 (935–1,282)',
    bare: '4,179',
    ratio: '0.16x (0.16–0.31)',
    goal: '≥ 0.85x',
    pass: false,
  });
  result.add({
    group: 'throughput',
    case: 'memory',
    metric: 'MB',
    api: '152',
    bare: '-',
    ratio: '152 MB',
    goal: '≤ 200 MB',
    pass: true,
  });
  write.mockRestore();
  return result;
}

describe('bench/README.md', () => {
  const run = { command: 'npm run bench -- --invoices 10000 --quick', commit: 'abc1234' };

  it('says it is generated, then what the run ran on and how, then every row with its median, min and max', () => {
    const page = benchReadme(report(), meta(true), run);
    expect(page.startsWith(`<!-- ${GENERATED_NOTICE} -->\n`)).toBe(true);
    expect(page).toContain('do not edit by hand');
    expect(page).toContain('**A quick run**');
    expect(page).toContain('**1 of 2 goals met.**');
    for (const fact of [
      '2026-11-27T20:18:55.687Z',
      'AMD EPYC, 2 cores, 24 GB RAM',
      'Node v20.20.2',
      '`abc1234`',
      run.command,
    ]) {
      expect(page).toContain(fact);
    }
    expect(page).toContain(
      '| GET /customers/{id} (vs bare prepared statement) | req/s | 935 (935–1,282) | 4,179 | 0.16x (0.16–0.31) | ≥ 0.85x | FAIL |',
    );
    expect(page).toContain('| memory | MB | 152 | - | 152 MB | ≤ 200 MB | pass |');
  });

  it('with --profile, shows the CPU per read by component for each server', () => {
    const withProfile = report();
    withProfile.profile = {
      title: 'Where a read’s CPU goes',
      columns: ['API', 'bare'],
      rows: [{ component: 'database driver', values: ['29.0 (28.1–30.2)', '16.0 (15.5–16.4)'] }],
    };
    const page = benchReadme(withProfile, meta(false), run);
    expect(page).toContain('## Where a read’s CPU goes');
    expect(page).toContain('| CPU µs per read | API | bare |');
    expect(page).toContain('| database driver | 29.0 (28.1–30.2) | 16.0 (15.5–16.4) |');
    expect(benchReadme(report(), meta(false), run)).not.toContain('CPU µs per read');
  });

  it('a full run is not called a quick one', () => {
    expect(benchReadme(report(), meta(false), run)).not.toContain('quick run');
  });
});
