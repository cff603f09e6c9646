// Where a server's CPU goes, from a V8 CPU profile (`node --cpu-prof`): each sample is charged to
// the function on top of the stack (its self time), and that function to a component by its
// script's URL (a package under node_modules/, a file under src/ or dist/, a node: module) or, for
// natives and V8's own entries, by its name. The first rule that matches wins.
//
// Samples are taken on wall-clock intervals of the main thread only; on a shared machine a
// descheduled process would look slow. So the profile gives only the shares, and the process's
// CPU of the same windows (from /proc, all threads) gives the total they are shares of.
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  /** Microseconds, on the same monotonic clock as process.hrtime() of any process of the machine. */
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds between one sample and the one before it. */
  timeDeltas: number[];
}

export interface ComponentRule {
  component: string;
  /** Packages under node_modules/ (a scope's packages as "@scope/name"). */
  packages?: readonly string[];
  /** Project paths under src/ (or the same under dist/, built), without the extension: "http/idempotency" or a folder "http/rate-limit/". */
  paths?: readonly string[];
  /** Native or V8 entries, by exact function name (their URL is empty). */
  functions?: readonly string[];
  /** Any URL starting with one of these. */
  urlPrefixes?: readonly string[];
  /** Everything else of the project (src/ or dist/). */
  project?: true;
}

export const KERNEL_SOCKET = 'kernel socket writes';
export const OTHER = 'other';

/** The components, in the order shown; for a sample the first matching rule decides. */
export const COMPONENT_RULES: readonly ComponentRule[] = [
  {
    component: KERNEL_SOCKET,
    functions: [
      'writev',
      'writeBuffer',
      'writeUtf8String',
      'writeLatin1String',
      'writeAsciiString',
      'writeUcs2String',
      'shutdown',
    ],
  },
  { component: 'garbage collection', functions: ['(garbage collector)'] },
  // fs.writeSync's native: at run time the servers' only file writes are the log's (sonic-boom).
  { component: 'log', functions: ['writeString'] },
  {
    component: 'framework',
    packages: [
      'fastify',
      '@fastify/*',
      'find-my-way',
      'avvio',
      'light-my-request',
      'fast-json-stringify',
      'ajv',
      'ajv-formats',
      'fast-uri',
      'fast-querystring',
      'fast-content-type-parse',
      'toad-cache',
      'process-warning',
      'abstract-logging',
      'close-with-grace',
    ],
  },
  { component: 'auth', paths: ['keys/', 'http/access'] },
  {
    component: 'limits',
    packages: [
      'rate-limiter-flexible',
      'ioredis',
      '@ioredis/*',
      'redis-parser',
      'denque',
      'cluster-key-slot',
    ],
    // The folder, and the single file it was (profiles taken before the split still read right).
    paths: ['http/rate-limit/'],
  },
  { component: 'idempotency', paths: ['http/idempotency'] },
  {
    component: 'database driver',
    packages: ['pg', 'pg-protocol', 'pg-pool', 'pg-types', 'pg-cloudflare', 'postgres-*', 'drizzle-orm'],
  },
  {
    component: 'log',
    packages: [
      'pino',
      'pino-std-serializers',
      'sonic-boom',
      'thread-stream',
      'fast-redact',
      '@pinojs/*',
      'quick-format-unescaped',
      'safe-stable-stringify',
    ],
  },
  { component: 'metrics', packages: ['prom-client', 'tdigest', 'bintrees'] },
  { component: 'request log', paths: ['request-log/'] },
  { component: 'Node internals', urlPrefixes: ['node:'] },
  { component: "the project's other code", project: true },
];

/** Each component once, in the order of its first rule. */
export const COMPONENTS: readonly string[] = [
  ...new Set([...COMPONENT_RULES.map((rule) => rule.component), OTHER]),
];

/** The package a URL is in (the innermost node_modules/), e.g. "@fastify/compress"; undefined: none. */
export function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const parts = url.slice(at + 'node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** The project path of a URL ("http/idempotency.js" for .../dist/http/idempotency.js); undefined: not the project's. */
export function projectPathOf(url: string): string | undefined {
  if (url.includes('node_modules/')) return undefined;
  const match = /\/(?:src|dist)\/(.+)$/.exec(url);
  return match?.[1];
}

function packageMatches(name: string, pattern: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

function pathMatches(path: string, pattern: string): boolean {
  return pattern.endsWith('/') ? path.startsWith(pattern) : path.replace(/\.[cm]?[jt]s$/, '') === pattern;
}

export function classify(
  callFrame: { functionName: string; url: string },
  rules: readonly ComponentRule[] = COMPONENT_RULES,
): string {
  const { url, functionName } = callFrame;
  const pkg = packageOf(url);
  const path = projectPathOf(url);
  for (const rule of rules) {
    if (url === '' && rule.functions?.includes(functionName)) return rule.component;
    if (pkg !== undefined && rule.packages?.some((pattern) => packageMatches(pkg, pattern)))
      return rule.component;
    if (path !== undefined && rule.paths?.some((pattern) => pathMatches(path, pattern)))
      return rule.component;
    if (rule.urlPrefixes?.some((prefix) => url.startsWith(prefix))) return rule.component;
    if (rule.project && path !== undefined) return rule.component;
  }
  return OTHER;
}

/** A span of time on the monotonic clock, in microseconds (process.hrtime.bigint() / 1000). */
export interface TimeWindow {
  startUs: number;
  endUs: number;
}

export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Sampled time by component within the windows (microseconds). "(idle)" (waiting for events) is
 * not work and is left out; "(program)" (V8 and native code without a JavaScript frame) is "other".
 */
export function sampledTimeByComponent(
  profile: CpuProfile,
  windows: readonly TimeWindow[],
  rules: readonly ComponentRule[] = COMPONENT_RULES,
): Map<string, number> {
  const componentOf = new Map<number, string | null>();
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName;
    const excluded = node.callFrame.url === '' && (name === '(idle)' || name === '(root)');
    componentOf.set(node.id, excluded ? null : classify(node.callFrame, rules));
  }
  const totals = new Map<string, number>();
  let time = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    time += profile.timeDeltas[index] ?? 0;
    // A sample stands for the time until the next one.
    const weight = profile.timeDeltas[index + 1] ?? 0;
    if (!windows.some((window) => time >= window.startUs && time < window.endUs)) continue;
    const component = componentOf.get(profile.samples[index]!);
    if (!component) continue;
    totals.set(component, (totals.get(component) ?? 0) + weight);
  }
  return totals;
}

/**
 * CPU µs per request by component: the process's CPU of the windows (`cpuUs`, all threads) over
 * `requests`, split in the profile's shares. Every component of COMPONENTS is present.
 */
export function cpuPerRequestByComponent(
  profile: CpuProfile,
  windows: readonly TimeWindow[],
  cpuUs: number,
  requests: number,
  rules: readonly ComponentRule[] = COMPONENT_RULES,
): Map<string, number> {
  const sampled = sampledTimeByComponent(profile, windows, rules);
  const total = [...sampled.values()].reduce((sum, value) => sum + value, 0);
  const perRequest = new Map<string, number>();
  for (const component of COMPONENTS) {
    const share = total > 0 ? (sampled.get(component) ?? 0) / total : 0;
    perRequest.set(component, (share * cpuUs) / requests);
  }
  return perRequest;
}

/** The profile node --cpu-prof wrote for process `pid` in `directory`. */
export function readProfileOf(directory: string, pid: number): CpuProfile {
  const file = readdirSync(directory).find(
    (name) => name.endsWith('.cpuprofile') && name.split('.').includes(String(pid)),
  );
  if (!file) throw new Error(`no CPU profile of process ${pid} in ${directory}`);
  return JSON.parse(readFileSync(`${directory}/${file}`, 'utf8')) as CpuProfile;
}
