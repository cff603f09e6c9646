// The service's Prometheus metrics (prom-client): one registry, a leaf that imports nothing of the
// project, so any module may count something here without depending on the server that serves it
// (src/monitoring/server.ts, /metrics on OPS_PORT):
//
//   import { metrics } from '../metrics/registry.js';
//   metrics.rateLimitRefused('key-minute');
//   metrics.keyCacheLookup(true);        // a cache of API keys, if there is one
//
// Requests (by route, method, status and error code), their latency and the idempotency replays
// and conflicts are counted once per response by src/monitoring/request-hooks.ts. The database
// pool, the rate-limit store and readiness are read when /metrics is scraped, from the sources the
// monitoring server registers (watchPool, watchRateLimitStore, watchReadiness); it also includes
// the webhook deliveries' own registry (src/webhooks/metrics.ts) and sets `invoicing_build_info`.
//
// Two formats from the same metrics: Prometheus text (the default) and OpenMetrics, which a scrape
// asks for with `Accept: application/openmetrics-text` and which alone carries the latency
// histogram's exemplars (`trace_id`, `span_id` of a sampled request: src/tracing/). prom-client
// keeps exemplars only in an OpenMetrics registry, so this one is one, switched to Prometheus text
// for the scrapes that want it.
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type OpenMetricsContentType,
  type PrometheusContentType,
  Registry,
} from 'prom-client';

export const registry = new Registry<OpenMetricsContentType>();
registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);

const PREFIX = 'invoicing_';

const requests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: 'API responses by route (the route pattern, "unmatched" for no route), method, status and error code ("" for none)',
  labelNames: ['route', 'method', 'status', 'error_code'] as const,
  registers: [registry],
});

const latency = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'Time from the request to its response, by route and method',
  labelNames: ['route', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
  enableExemplars: true,
});

const rateLimitRefusals = new Counter({
  name: `${PREFIX}rate_limit_refusals_total`,
  help: 'Requests refused with 429, by the limit that refused them (key-minute, key-writes-minute, key-day, company-minute, ip-minute)',
  labelNames: ['limit'] as const,
  registers: [registry],
});

const idempotencyReplays = new Counter({
  name: `${PREFIX}idempotency_replays_total`,
  help: 'Writes answered with the stored response of an earlier request (Idempotency-Replay: true)',
  registers: [registry],
});

const idempotencyConflicts = new Counter({
  name: `${PREFIX}idempotency_conflicts_total`,
  help: 'Writes refused with 409, by error code (idempotency_key_reuse, idempotency_request_in_flight)',
  labelNames: ['error_code'] as const,
  registers: [registry],
});

const keyCacheLookups = new Counter({
  name: `${PREFIX}api_key_cache_lookups_total`,
  help: 'Lookups of API keys in the in-process key cache, by result (hit, miss)',
  labelNames: ['result'] as const,
  registers: [registry],
});

const requestLogRecords = new Counter({
  name: `${PREFIX}request_log_records_total`,
  help: 'Records of the request log by outcome: written to the database, or dropped (buffer full, or the database did not take them)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const poolWaits = new Counter({
  name: `${PREFIX}db_pool_waits_total`,
  help: 'Database connections asked for while every connection of the pool was busy (the caller queued)',
  registers: [registry],
});

const poolAcquire = new Histogram({
  name: `${PREFIX}db_pool_acquire_seconds`,
  help: 'Time to get a connection from the database pool',
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers: [registry],
});

/** The part of a node-postgres pool the metrics read (structural, so this module imports no driver). */
export interface WatchedPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max?: number };
  connect: (...args: never[]) => unknown;
}

/** How the rate limits count right now: in memory (no REDIS_URL), in Redis, or in memory because Redis is down. */
export type RateLimitStoreState = 'memory' | 'redis' | 'redis-fallback';

let pool: WatchedPool | null = null;
let storeState: (() => RateLimitStoreState) | null = null;

new Gauge({
  name: `${PREFIX}db_pool_connections`,
  help: 'Connections of the PostgreSQL pool by state (total, idle, busy), and its maximum (max)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    if (!pool) return;
    this.set({ state: 'total' }, pool.totalCount);
    this.set({ state: 'idle' }, pool.idleCount);
    this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
    this.set({ state: 'max' }, pool.options.max ?? 10);
  },
});

new Gauge({
  name: `${PREFIX}db_pool_waiting`,
  help: 'Callers waiting now for a connection of the PostgreSQL pool',
  registers: [registry],
  collect() {
    this.set(pool?.waitingCount ?? 0);
  },
});

new Gauge({
  name: `${PREFIX}rate_limit_redis_fallback`,
  help: '1 while Redis (REDIS_URL) cannot be reached and each instance counts its rate limits in its own memory',
  registers: [registry],
  collect() {
    this.set(storeState?.() === 'redis-fallback' ? 1 : 0);
  },
});

new Gauge({
  name: `${PREFIX}rate_limit_store`,
  help: 'Where the rate limits count: 1 for the current store (memory, redis, redis-fallback)',
  labelNames: ['store'] as const,
  registers: [registry],
  collect() {
    this.reset();
    if (storeState) this.set({ store: storeState() }, 1);
  },
});

let readiness: (() => Promise<boolean>) | null = null;

new Gauge({
  name: `${PREFIX}ready`,
  help: '1 while this instance is ready (what /readyz says: database reachable and migrated, not stopping), else 0',
  registers: [registry],
  async collect() {
    this.set(readiness && (await readiness().catch(() => false)) ? 1 : 0);
  },
});

const buildInfo = new Gauge({
  name: `${PREFIX}build_info`,
  help: 'Always 1; its labels say what runs: the package version, the commit it was built from ("unknown" when not recorded) and Node.js',
  labelNames: ['version', 'commit', 'node_version'] as const,
  registers: [registry],
});

/** Registries of other modules (the webhook deliveries' own), served with this one. */
const included: Registry[] = [];

let defaultMetrics = false;

export interface ResponseObservation {
  route: string;
  method: string;
  status: number;
  errorCode: string;
  seconds: number;
  replayed: boolean;
  /** The request's trace when it is sampled (tracing on): the exemplar of its latency bucket. */
  exemplar?: { trace_id: string; span_id: string } | undefined;
}

const NO_EXEMPLAR = {};

type Named = { name: string };
type AnyRegistry = Registry<PrometheusContentType> | Registry<OpenMetricsContentType>;

/** Renders run one at a time: the content type and counters' names are the registries' shared state. */
let rendering: Promise<unknown> = Promise.resolve();

/**
 * The text of `registries` in one format. prom-client renames counters for OpenMetrics (without
 * `_total`) in place; their names are put back after each render.
 */
function render(registries: AnyRegistry[], openMetrics: boolean): Promise<string> {
  const run = rendering.then(async () => {
    const types = registries.map((each) => each.contentType);
    const names = new Map<Named, string>();
    for (const each of registries) {
      for (const metric of each.getMetricsAsArray() as unknown as Named[]) names.set(metric, metric.name);
      (each as Registry).setContentType(
        (openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE) as never,
      );
    }
    try {
      const texts = await Promise.all(registries.map((each) => each.metrics()));
      if (!openMetrics) return texts.join('\n');
      // One document: a single `# EOF`, at its end.
      return `${texts.map((text) => text.replace(/# EOF\n?$/, '').trimEnd()).join('\n')}\n# EOF\n`;
    } finally {
      for (const [metric, name] of names) metric.name = name;
      registries.forEach((each, index) => {
        (each as Registry).setContentType(types[index] as never);
      });
    }
  });
  rendering = run.catch(() => undefined);
  return run;
}

export const metrics = {
  /** One API response (src/monitoring/request-hooks.ts calls this once per request). */
  response(observation: ResponseObservation): void {
    const { route, method, status, errorCode, seconds, replayed, exemplar } = observation;
    requests.inc({ route, method, status: String(status), error_code: errorCode });
    latency.observe({ labels: { route, method }, value: seconds, exemplarLabels: exemplar ?? NO_EXEMPLAR });
    if (replayed) idempotencyReplays.inc();
    if (errorCode === 'idempotency_key_reuse' || errorCode === 'idempotency_request_in_flight') {
      idempotencyConflicts.inc({ error_code: errorCode });
    }
  },

  /** A request refused by a rate limit (the limit's name). */
  rateLimitRefused(limit: string): void {
    rateLimitRefusals.inc({ limit });
  },

  /** Records of the request log written or dropped (src/request-log/writer.ts). */
  requestLogRecords(outcome: 'written' | 'dropped', count: number): void {
    requestLogRecords.inc({ outcome }, count);
  },

  /** A lookup in a cache of API keys. */
  keyCacheLookup(hit: boolean): void {
    keyCacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  },

  /**
   * Reads the pool's use at each scrape, and times every connection it hands out (node-postgres
   * takes one through `connect` for a query too). One pool is watched: the latest.
   */
  watchPool(watched: WatchedPool): void {
    pool = watched;
    const original = watched.connect.bind(watched) as (callback?: (...args: unknown[]) => void) => unknown;
    const timed = (callback?: (...args: unknown[]) => void): unknown => {
      if (watched.idleCount === 0 && watched.totalCount >= (watched.options.max ?? 10)) poolWaits.inc();
      const end = poolAcquire.startTimer();
      if (callback) {
        return original((...args: unknown[]) => {
          end();
          callback(...args);
        });
      }
      return (original() as Promise<unknown>).finally(end);
    };
    watched.connect = timed as WatchedPool['connect'];
  },

  /** Whether the instance is ready, asked at each scrape (`invoicing_ready`). */
  watchReadiness(ready: () => Promise<boolean>): void {
    readiness = ready;
  },

  /** What runs (`invoicing_build_info`). */
  setBuildInfo(info: { version: string; commit: string; nodeVersion: string }): void {
    buildInfo.reset();
    buildInfo.set({ version: info.version, commit: info.commit, node_version: info.nodeVersion }, 1);
  },

  /** Serves another module's registry with these metrics (once per registry). */
  include(other: Registry): void {
    if (!included.includes(other)) included.push(other);
  },

  /** Where the rate limits count, read at each scrape. */
  watchRateLimitStore(state: () => RateLimitStoreState): void {
    storeState = state;
  },

  /** Node's own metrics (memory, CPU, event loop, garbage collection), once per process. */
  collectProcessMetrics(): void {
    if (defaultMetrics) return;
    defaultMetrics = true;
    collectDefaultMetrics({ register: registry, prefix: PREFIX });
  },

  /** The text of /metrics: Prometheus text, or OpenMetrics (with exemplars). */
  text(options: { openMetrics?: boolean } = {}): Promise<string> {
    return render([registry, ...included], options.openMetrics === true);
  },

  contentType: Registry.PROMETHEUS_CONTENT_TYPE,
  openMetricsContentType: Registry.OPENMETRICS_CONTENT_TYPE,
};
