// `--profile`: where each server's CPU per read goes. The throughput group's servers run with
// `--cpu-prof`; once they have exited (and written their profiles), the samples of each measured
// round are charged to components (bench/lib/profile.ts) and scaled to that round's CPU per read.
// One column per server, each cell the median of the rounds with their minimum and maximum.
import { summary } from '../../scripts/lib/stats.js';
import {
  COMPONENTS,
  type CpuProfile,
  cpuPerRequestByComponent,
  KERNEL_SOCKET,
  readProfileOf,
  type TimeWindow,
} from '../lib/profile.js';
import { fmtRange, type ProfileTable } from '../report.js';

/** What a measured round of the throughput group tells about a server (its MeasuredRun). */
export interface ProfiledRun {
  requests: number;
  cpuUsPerRequest: number | null;
  window: TimeWindow;
}

export interface ProfiledServer {
  /** Column title, e.g. "API" or "bare". */
  label: string;
  /** Where its --cpu-prof profile is written. */
  directory: string;
  pid: number;
  /** Its measured rounds (filled in by the throughput group). */
  runs: ProfiledRun[];
}

export const TOTAL = 'all of the process';
export const OUTSIDE_KERNEL = 'all but the kernel socket writes';

/** Per round, CPU µs per read by component, plus the total and the total outside the kernel's writes. */
export function perRoundByComponent(profile: CpuProfile, runs: ProfiledRun[]): Map<string, number[]> {
  const rows = new Map<string, number[]>([...COMPONENTS, TOTAL, OUTSIDE_KERNEL].map((name) => [name, []]));
  for (const run of runs) {
    if (run.cpuUsPerRequest === null || run.requests === 0) continue;
    const byComponent = cpuPerRequestByComponent(
      profile,
      [run.window],
      run.cpuUsPerRequest * run.requests,
      run.requests,
    );
    for (const [component, value] of byComponent) rows.get(component)!.push(value);
    rows.get(TOTAL)!.push(run.cpuUsPerRequest);
    rows.get(OUTSIDE_KERNEL)!.push(run.cpuUsPerRequest - (byComponent.get(KERNEL_SOCKET) ?? 0));
  }
  return rows;
}

/** The table of the servers' profiles; a server whose profile is missing shows why in its column. */
export function profileTable(servers: ProfiledServer[], title: string): ProfileTable {
  const columns = servers.map((server) => {
    try {
      return perRoundByComponent(readProfileOf(server.directory, server.pid), server.runs);
    } catch (error) {
      return (error as Error).message;
    }
  });
  return {
    title,
    columns: servers.map((server) => server.label),
    rows: [...COMPONENTS, TOTAL, OUTSIDE_KERNEL].map((component) => ({
      component,
      values: columns.map((column) =>
        typeof column === 'string' ? column : fmtRange(summary(column.get(component) ?? []), 1),
      ),
    })),
  };
}
