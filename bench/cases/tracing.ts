// Tracing's cost (docs/tracing.md): the context's API (tracing off, the default: the SDK is not
// even loaded) against the same build started with tracing on at 1% sampling
// (parentbased_traceidratio), exporting OTLP/http-protobuf to a sink in this process, measured in
// one interleaved run against the bare prepared read: req/s and p99 ratios of each, and the
// server's CPU per request (from /proc). Every request makes its spans (99% not sampled: no
// recording, no export), so the difference is the SDK's cost per request.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** An OTLP/HTTP sink in the bench's process: takes every export, answers 200, keeps nothing. */
async function startSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count++;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function runTracing(context: BenchContext): Promise<void> {
  const { api, bare, readKey, customerIdsFile, options, tool, log } = context;
  const sink = await startSink();
  const on = await startApiServer(
    'API on PostgreSQL, tracing at 1%',
    { databaseUrl: context.dataset.url },
    `${resultsDir}/api-postgres-tracing.log`,
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
    },
  ).catch(async (error: unknown) => {
    await sink.close();
    throw error;
  });
  try {
    const targets: Measured[] = [
      {
        label: 'bare prepared',
        pid: null,
        spec: customerReadTarget(context, bare, '', customerIdsFile, readKey),
      },
      {
        label: 'tracing off',
        pid: api.pid,
        spec: customerReadTarget(context, api, API_PREFIX, customerIdsFile, readKey),
      },
      {
        label: 'tracing at 1%',
        pid: on.pid,
        spec: customerReadTarget(context, on, API_PREFIX, customerIdsFile, readKey),
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
    const [bareTarget, offTarget, onTarget] = targets as [Measured, Measured, Measured];
    for (const target of [offTarget, onTarget]) {
      const throughput = ratios(target.runs, bareTarget.runs, (result) => result.requestsPerSecond);
      const p99 = ratios(target.runs, bareTarget.runs, (result) => result.p99Ms);
      const failures = [...target.runs, ...bareTarget.runs].reduce((sum, run) => sum + run.failures, 0);
      context.report.add({
        group: 'tracing',
        case: `GET /customers/{id}, ${target.label}`,
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
      group: 'tracing',
      case: `GET /customers/{id}, tracing at 1% vs off (${sink.exports()} exports received)`,
      metric: 'req/s ratio; CPU per request',
      api: `${fmt(median(onTarget.cpuUsPerRequest), 0)} vs ${fmt(median(offTarget.cpuUsPerRequest), 0)} µs`,
      bare: '-',
      ratio: range(onVsOff, 2, 'x'),
      goal: '-',
      pass: null,
      details: { perRoundRatio: onVsOff },
    });
  } finally {
    await on.stop();
    await sink.close();
  }
}
