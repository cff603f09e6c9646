// GET /customers/{id} and GET /ping under concurrent load against the bare node:http + pg server
// doing the same primary-key read as a named prepared statement, in one interleaved run: bare,
// bare plain query, api, ping, bare, ... Ratios are taken round by round (the machine drifts;
// neighbouring runs see the same drift). Every request asks for compression, as partners' clients
// do (a customer is under the threshold: answered plain, but negotiated).

import { max, median, min, summary } from '../../scripts/lib/stats.js';
import { cpuMs } from '../lib/cpu.js';
import { nowUs, type TimeWindow } from '../lib/profile.js';
import type { RunningServer } from '../lib/servers.js';
import type { LoadResult, LoadSpec } from '../load/index.js';
import { CLIENT_ACCEPT_ENCODING, READ_GOALS } from '../read-goals.js';
import { fmt, fmtRange } from '../report.js';
import { API_PREFIX, type BenchContext, bearer, beforeCase } from './context.js';

export interface Target {
  label: string;
  spec: LoadSpec;
  /** The server's process: its CPU per request is measured (from /proc) in each run. */
  pid?: number;
}

/**
 * One run of a target, with the server's CPU per request when its process is known, and when it ran
 * (on the clock of CPU profiles: the samples of this run are those inside its window).
 */
export type MeasuredRun = LoadResult & { cpuUsPerRequest: number | null; window: TimeWindow };

/** The bare server's plain-query read: its paths start with this (bench/bare-server.ts). */
export const BARE_PLAIN_PREFIX = '/plain';

export function customerReadTarget(
  context: BenchContext,
  server: RunningServer,
  prefix: string,
  idsFile: string,
  key: string,
): LoadSpec {
  const { options } = context;
  return {
    url: server.url,
    path: `${prefix}/customers/{id}`,
    idsFile,
    authorization: bearer(key),
    acceptEncoding: CLIENT_ACCEPT_ENCODING,
    connections: options.connections,
    threads: options.threads,
    seconds: options.seconds,
  };
}

/** Warm-up of every target, then `rounds` rounds of all targets in turn; results by label. */
export async function interleaved(
  context: BenchContext,
  targets: Target[],
): Promise<Map<string, MeasuredRun[]>> {
  const { options, tool, log } = context;
  for (const target of targets) {
    log(`  warm-up ${target.label} (${options.warmupSeconds} s)`);
    await tool.run({ ...target.spec, seconds: options.warmupSeconds });
  }
  const results = new Map<string, MeasuredRun[]>(targets.map((target) => [target.label, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const target of targets) {
      const cpuBefore = target.pid === undefined ? 0 : cpuMs(target.pid);
      const startUs = nowUs();
      const load = await tool.run(target.spec);
      const window = { startUs, endUs: nowUs() };
      const cpuUsPerRequest =
        target.pid === undefined ? null : ((cpuMs(target.pid) - cpuBefore) * 1000) / load.requests;
      const result = { ...load, cpuUsPerRequest, window };
      results.get(target.label)!.push(result);
      log(
        `  round ${round}/${options.rounds} ${target.label}: ${fmt(result.requestsPerSecond)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms${result.failures ? `, ${result.failures} FAILED` : ''}`,
      );
    }
  }
  return results;
}

export function ratios(
  api: LoadResult[],
  bare: LoadResult[],
  pick: (result: LoadResult) => number,
): number[] {
  return api.map((result, index) => pick(result) / pick(bare[index]!));
}

export function failuresOf(...runs: LoadResult[][]): number {
  return runs.flat().reduce((sum, run) => sum + run.failures, 0);
}

/** The req/s row of one API target against the bare runs of the same rounds; goal: null for the code before. */
export function throughputRow(
  context: BenchContext,
  caseName: string,
  api: LoadResult[],
  bare: LoadResult[],
  goal: number,
  judged = true,
): void {
  const perRound = ratios(api, bare, (result) => result.requestsPerSecond);
  const failures = failuresOf(api, bare);
  context.report.add({
    group: 'throughput',
    case: caseName,
    metric: 'req/s',
    api: fmtRange(summary(api.map((result) => result.requestsPerSecond)), 0),
    bare: fmt(median(bare.map((result) => result.requestsPerSecond)), 0),
    ratio: `${median(perRound).toFixed(2)}x (${min(perRound).toFixed(2)}–${max(perRound).toFixed(2)})`,
    goal: `≥ ${goal.toFixed(2)}x`,
    pass: judged ? failures === 0 && median(perRound) >= goal : null,
    details: { perRoundRatio: perRound, api, bare, failures },
  });
}

/**
 * The rows of one API (this code's, or with `named` the code before's, informative only): reads
 * against the bare prepared statement (req/s, p99, p50, CPU per read) and /ping.
 */
function apiRows(
  context: BenchContext,
  apiRuns: MeasuredRun[],
  pingRuns: MeasuredRun[],
  bareRuns: MeasuredRun[],
  named: (caseName: string) => string,
  judged: boolean,
): void {
  throughputRow(
    context,
    named('GET /customers/{id} (vs bare prepared statement)'),
    apiRuns,
    bareRuns,
    READ_GOALS.customerReadRatio,
    judged,
  );
  const p99Ratios = ratios(apiRuns, bareRuns, (result) => result.p99Ms);
  context.report.add({
    group: 'throughput',
    case: named('GET /customers/{id}'),
    metric: 'p99 ms',
    api: fmtRange(summary(apiRuns.map((result) => result.p99Ms)), 2),
    bare: fmt(median(bareRuns.map((result) => result.p99Ms)), 2),
    ratio: `${median(p99Ratios).toFixed(2)}x (${min(p99Ratios).toFixed(2)}–${max(p99Ratios).toFixed(2)})`,
    goal: `≤ ${READ_GOALS.customerReadP99Ratio.toFixed(1)}x`,
    pass: judged ? median(p99Ratios) <= READ_GOALS.customerReadP99Ratio : null,
    details: { perRoundRatio: p99Ratios },
  });
  context.report.add({
    group: 'throughput',
    case: named('GET /customers/{id}'),
    metric: 'p50 ms',
    api: fmt(median(apiRuns.map((result) => result.p50Ms)), 2),
    bare: fmt(median(bareRuns.map((result) => result.p50Ms)), 2),
    ratio: `${median(ratios(apiRuns, bareRuns, (result) => result.p50Ms)).toFixed(2)}x`,
    goal: '-',
    pass: null,
  });
  // Where the ratio comes from: what one read costs each process (the machine's two cores are shared
  // with wrk, PostgreSQL and Redis, so CPU per read, not req/s, is what the API can change).
  const apiCpu = apiRuns.map((run) => run.cpuUsPerRequest!);
  const bareCpu = bareRuns.map((run) => run.cpuUsPerRequest!);
  context.report.add({
    group: 'throughput',
    case: named('GET /customers/{id}'),
    metric: 'server CPU µs per read',
    api: fmtRange(summary(apiCpu), 0),
    bare: fmtRange(summary(bareCpu), 0),
    ratio: `${median(apiCpu.map((cpu, index) => cpu / bareCpu[index]!)).toFixed(2)}x`,
    goal: '-',
    pass: null,
    details: { apiCpuUsPerRequest: apiCpu, bareCpuUsPerRequest: bareCpu },
  });
  throughputRow(
    context,
    named('GET /ping (vs bare prepared customer read)'),
    pingRuns,
    bareRuns,
    READ_GOALS.pingRatio,
    judged,
  );
}

export async function runThroughput(context: BenchContext): Promise<void> {
  const { api, bare, readKey, customerIdsFile, options, before, profiles } = context;
  const bareSpec = customerReadTarget(context, bare, '', customerIdsFile, readKey);
  const plainSpec = customerReadTarget(context, bare, BARE_PLAIN_PREFIX, customerIdsFile, readKey);
  const apiSpec = customerReadTarget(context, api, API_PREFIX, customerIdsFile, readKey);
  const pingSpec: LoadSpec = { ...apiSpec, path: `${API_PREFIX}/ping`, idsFile: undefined };
  const beforeSpec = before && customerReadTarget(context, before.api, API_PREFIX, customerIdsFile, readKey);
  const results = await interleaved(context, [
    { label: 'bare prepared', spec: bareSpec, pid: bare.pid },
    { label: 'bare plain query', spec: plainSpec },
    { label: 'api customers/{id}', spec: apiSpec, pid: api.pid },
    ...(before && beforeSpec
      ? [{ label: 'api before customers/{id}', spec: beforeSpec, pid: before.api.pid }]
      : []),
    { label: 'api ping', spec: pingSpec },
    ...(beforeSpec
      ? [
          {
            label: 'api before ping',
            spec: { ...beforeSpec, path: `${API_PREFIX}/ping`, idsFile: undefined },
          },
        ]
      : []),
  ]);
  const bareRuns = results.get('bare prepared')!;
  const plainRuns = results.get('bare plain query')!;
  const apiRuns = results.get('api customers/{id}')!;
  const pingRuns = results.get('api ping')!;

  apiRows(context, apiRuns, pingRuns, bareRuns, (caseName) => caseName, true);
  if (before) {
    apiRows(
      context,
      results.get('api before customers/{id}')!,
      results.get('api before ping')!,
      bareRuns,
      (caseName) => beforeCase(context, caseName),
      false,
    );
  }
  if (profiles) {
    profiles.api.runs.push(...apiRuns);
    profiles.bare.runs.push(...bareRuns);
    profiles.before?.runs.push(...(results.get('api before customers/{id}') ?? []));
  }
  const plainRatios = ratios(apiRuns, plainRuns, (result) => result.requestsPerSecond);
  context.report.add({
    group: 'throughput',
    case: 'GET /customers/{id} (vs bare plain query, as in the first round)',
    metric: 'req/s',
    api: fmt(median(apiRuns.map((result) => result.requestsPerSecond)), 0),
    bare: fmt(median(plainRuns.map((result) => result.requestsPerSecond)), 0),
    ratio: `${median(plainRatios).toFixed(2)}x (${min(plainRatios).toFixed(2)}–${max(plainRatios).toFixed(2)})`,
    goal: '-',
    pass: null,
    details: { perRoundRatio: plainRatios },
  });
  context.log(
    `  connections ${options.connections}, threads ${options.threads}, ${options.seconds} s per run`,
  );
}
