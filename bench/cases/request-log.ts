// The request log's cost (REQUEST_LOG): the same build started twice on the same data, one server
// with the log on (the context's API, as production runs) and one with it off, measured in one
// interleaved run against the bare prepared read: req/s and p99 ratios of each, and the server's
// CPU per request (from /proc). The log's batches compete with the API and PostgreSQL for the
// same cores, so the difference shows in both columns.

import { max, median, min } from '../../scripts/lib/stats.js';
import { cpuMs } from '../lib/cpu.js';
import { resultsDir } from '../lib/paths.js';
import { startApiServer } from '../lib/servers.js';
import type { LoadResult, LoadSpec } from '../load/index.js';
import { READ_GOALS } from '../read-goals.js';
import { fmt } from '../report.js';
import { API_PREFIX, type BenchContext } from './context.js';
import { customerReadTarget, ratios } from './throughput.js';

interface Measured {
  label: string;
  spec: LoadSpec;
  pid: number | null;
  runs: LoadResult[];
  cpuUsPerRequest: number[];
}

const range = (values: number[], digits: number, unit = '') =>
  `${fmt(median(values), digits)}${unit} (${fmt(min(values), digits)}–${fmt(max(values), digits)})`;

export async function runRequestLog(context: BenchContext): Promise<void> {
  const { api, bare, readKey, customerIdsFile, options, tool, log } = context;
  const off = await startApiServer(
    'API on PostgreSQL, REQUEST_LOG=off',
    { databaseUrl: context.dataset.url },
    `${resultsDir}/api-postgres-log-off.log`,
    { REQUEST_LOG: 'off' },
  );
  try {
    const targets: Measured[] = [
      {
        label: 'bare prepared',
        pid: null,
        spec: customerReadTarget(context, bare, '', customerIdsFile, readKey),
      },
      {
        label: 'log on',
        pid: api.pid,
        spec: customerReadTarget(context, api, API_PREFIX, customerIdsFile, readKey),
      },
      {
        label: 'log off',
        pid: off.pid,
        spec: customerReadTarget(context, off, API_PREFIX, customerIdsFile, readKey),
      },
    ].map((target) => ({ ...target, runs: [], cpuUsPerRequest: [] }));
    for (const target of targets) {
      log(`  warm-up ${target.label} (${options.warmupSeconds} s)`);
      await tool.run({ ...target.spec, seconds: options.warmupSeconds });
    }
    for (let round = 1; round <= options.rounds; round++) {
      // Each round in another order: neither server always runs right after the bare one.
      const order = round % 2 === 1 ? targets : [targets[0]!, targets[2]!, targets[1]!];
      for (const target of order) {
        const cpuBefore = target.pid ? cpuMs(target.pid) : 0;
        const result = await tool.run(target.spec);
        if (target.pid)
          target.cpuUsPerRequest.push(((cpuMs(target.pid) - cpuBefore) * 1000) / result.requests);
        target.runs.push(result);
        log(
          `  round ${round}/${options.rounds} ${target.label}: ${fmt(result.requestsPerSecond)} req/s, p99 ${fmt(result.p99Ms, 2)} ms`,
        );
      }
    }
    const [bareTarget, onTarget, offTarget] = targets as [Measured, Measured, Measured];
    for (const target of [onTarget, offTarget]) {
      const throughput = ratios(target.runs, bareTarget.runs, (result) => result.requestsPerSecond);
      const p99 = ratios(target.runs, bareTarget.runs, (result) => result.p99Ms);
      const failures = [...target.runs, ...bareTarget.runs].reduce((sum, run) => sum + run.failures, 0);
      context.report.add({
        group: 'request-log',
        case: `GET /customers/{id}, request log ${target.label.replace('log ', '')}`,
        metric: 'req/s; p99; API CPU per request',
        api: `${fmt(median(target.runs.map((run) => run.requestsPerSecond)), 0)} req/s; ${range(
          target.cpuUsPerRequest,
          0,
          ' µs',
        )}`,
        bare: fmt(median(bareTarget.runs.map((run) => run.requestsPerSecond)), 0),
        ratio: `${range(throughput, 2, 'x')}; p99 ${range(p99, 2, 'x')}`,
        goal: `≥ ${READ_GOALS.customerReadRatio}x; p99 ≤ ${READ_GOALS.customerReadP99Ratio}x`,
        pass:
          failures === 0 &&
          median(throughput) >= READ_GOALS.customerReadRatio &&
          median(p99) <= READ_GOALS.customerReadP99Ratio,
        details: { perRoundRatio: throughput, p99Ratios: p99, cpuUsPerRequest: target.cpuUsPerRequest },
      });
    }
    const onVsOff = ratios(onTarget.runs, offTarget.runs, (result) => result.requestsPerSecond);
    context.report.add({
      group: 'request-log',
      case: 'GET /customers/{id}, log on vs log off',
      metric: 'req/s ratio; CPU per request',
      api: `${fmt(median(onTarget.cpuUsPerRequest), 0)} vs ${fmt(median(offTarget.cpuUsPerRequest), 0)} µs`,
      bare: '-',
      ratio: range(onVsOff, 2, 'x'),
      goal: '-',
      pass: null,
      details: { perRoundRatio: onVsOff },
    });
  } finally {
    await off.stop();
  }
}
