// The rehearsal's one table: per event, the requests made from its start until the next event,
// how many failed and how, and p50/p99 latency in the windows before, during and after it; then
// the goals, each met or missed.
import { percentile } from '../../../scripts/lib/stats.js';
import type { RequestRecord } from './recorder.js';

export interface EventWindow {
  name: string;
  /** What happened, e.g. "exit 5.3 s, ready 4.1 s". */
  detail: string;
  /** ms on the recorder's clock. */
  start: number;
  end: number;
  /** Where the event's count of requests stops: the next event's start, or the end of the load. */
  until: number;
  /** Length of the before and after windows. */
  beforeMs: number;
  afterMs: number;
  /** The event could not be carried out (its detail says why). */
  failed?: boolean;
  /** The baseline row has a single window. */
  baseline?: boolean;
}

export interface Goal {
  name: string;
  met: boolean;
  detail: string;
}

export interface Latency {
  n: number;
  p50: number;
  p99: number;
}

/** Requests are placed in time by when their answer (or failure) came: that is when it was seen. */
export function endedWithin(records: RequestRecord[], from: number, to: number): RequestRecord[] {
  return records.filter((r) => r.at + r.ms >= from && r.at + r.ms < to);
}

export function latency(records: RequestRecord[], from: number, to: number): Latency {
  const times = endedWithin(records, from, to)
    .filter((r) => r.outcome === 'ok')
    .map((r) => r.ms);
  return { n: times.length, p50: percentile(times, 50), p99: percentile(times, 99) };
}

function ms(value: number): string {
  return Number.isNaN(value) ? '-' : value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function latencyCell(value: Latency): string {
  return value.n === 0 ? '-' : `${ms(value.p50)} / ${ms(value.p99)}`;
}

export function failuresByKind(records: RequestRecord[]): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const record of records)
    if (record.outcome !== 'ok') kinds.set(record.outcome, (kinds.get(record.outcome) ?? 0) + 1);
  return kinds;
}

function kindsCell(kinds: Map<string, number>): string {
  if (kinds.size === 0) return '';
  return [...kinds.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${count}x ${kind}`)
    .join(', ');
}

export interface Row {
  event: string;
  detail: string;
  requests: number;
  failed: number;
  kinds: Map<string, number>;
  before: Latency | null;
  during: Latency;
  after: Latency | null;
}

export function rowsOf(records: RequestRecord[], events: EventWindow[]): Row[] {
  return events.map((event) => {
    const inside = endedWithin(records, event.start, event.until);
    const kinds = failuresByKind(inside);
    return {
      event: event.name,
      detail: event.detail,
      requests: inside.length,
      failed: inside.filter((r) => r.outcome !== 'ok').length,
      kinds,
      before: event.baseline ? null : latency(records, event.start - event.beforeMs, event.start),
      during: latency(records, event.start, event.end),
      after: event.baseline ? null : latency(records, event.end, event.end + event.afterMs),
    };
  });
}

export function renderTable(
  rows: Row[],
  total: { requests: number; failed: number; kinds: Map<string, number> },
): string {
  const header = [
    '| event | what happened | requests | failed | failures by kind | p50 / p99 ms before | during | after |',
    '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: |',
  ];
  const lines = rows.map(
    (row) =>
      `| ${row.event} | ${row.detail} | ${row.requests} | ${row.failed} | ${kindsCell(row.kinds)} | ${
        row.before ? latencyCell(row.before) : ''
      } | ${latencyCell(row.during)} | ${row.after ? latencyCell(row.after) : ''} |`,
  );
  lines.push(`| **whole run** | | ${total.requests} | ${total.failed} | ${kindsCell(total.kinds)} | | | |`);
  return [...header, ...lines].join('\n');
}

export function renderGoals(goals: Goal[]): string {
  return goals.map((goal) => `- ${goal.met ? 'MET   ' : 'MISSED'} ${goal.name}: ${goal.detail}`).join('\n');
}
