// What every case group gets: the options, the data set, the running servers, keys, the load tool.
import type { DatasetInfo } from '../dataset/marker.js';
import type { BeforeCheckout } from '../lib/before.js';
import type { RunningServer } from '../lib/servers.js';
import type { LoadTool } from '../load/index.js';
import type { Report } from '../report.js';
import type { ProfiledServer } from './profile.js';

export const API_PREFIX = '/api/v1/partner';

export interface RunOptions {
  /** Rows of the request log's data set (group request-log-scale). */
  logRows: number;
  invoices: number;
  quick: boolean;
  groups: Set<string>;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  threads: number;
  /** Requests measured per list case (after one warm-up request). */
  samples: number;
  writeRequests: number;
  walk: boolean;
  /** Pages walked from the start before jumping to the last ones; 0: the whole list. */
  walkPages: number;
  walkMaxMinutes: number;
  pgliteCustomers: number;
  /** Record both servers' CPU profiles in the throughput group (`--profile`). */
  profile: boolean;
  /** Also measure the API of this git ref, side by side (`--before`). */
  before?: string;
}

export interface BenchContext {
  options: RunOptions;
  dataset: DatasetInfo;
  tool: LoadTool;
  api: RunningServer;
  bare: RunningServer;
  /** Live key with every scope, for reads. */
  readKey: string;
  /** A second key, for POST /invoices only (its own write limit and idempotency space). */
  writeKey: { id: number; key: string };
  /** File with the main company's customer ids, one a line, for random reads. */
  customerIdsFile: string;
  report: Report;
  log(line: string): void;
  /** `--before`: the API of the code before, on the same data set, started beside `api`. */
  before?: { checkout: BeforeCheckout; api: RunningServer };
  /** `--profile`: the servers recording a CPU profile; the throughput group adds its rounds. */
  profiles?: { api: ProfiledServer; bare: ProfiledServer; before?: ProfiledServer };
}

/** How a row of the code before is told from this code's: its case, suffixed. */
export function beforeCase(context: BenchContext, caseName: string): string {
  return `${caseName} — before (${context.before?.checkout.ref}, ${context.before?.checkout.commit})`;
}

export function bearer(key: string): string {
  return `Bearer ${key}`;
}
