// The failover rehearsal's one table: per phase, the requests the load made (each attempt of the
// official client), the failed ones by kind, the calls that still failed after the client's
// retries, the pause in writes, the writes acknowledged against the rows found on the primary at
// the end, and the webhook events written against those delivered.
import type { TrackedWrite } from '../lib/load.js';
import { isRetryable, type RequestRecord } from '../lib/recorder.js';
import { endedWithin, failuresByKind } from '../lib/report.js';
import type { Phase } from '../lib/scenario.js';

export interface Pause {
  /** First failed write attempt to the first write acknowledged after it, ms (null: none failed). */
  failedToOk: number | null;
  /** The longest time with no write acknowledged, ms. */
  longestGap: number;
}

const isWrite = (record: RequestRecord) =>
  record.route.startsWith('POST') || record.route.startsWith('PATCH');

export function pauseOf(records: RequestRecord[], from: number, to: number): Pause {
  const writes = records
    .filter((r) => isWrite(r) && r.at >= from - 20_000 && r.at < to)
    .sort((a, b) => a.at - b.at);
  const firstFailed = writes.find((r) => r.outcome !== 'ok' && r.at + r.ms >= from);
  let failedToOk: number | null = null;
  if (firstFailed) {
    const ends = writes
      .filter((r) => r.outcome === 'ok' && r.at >= firstFailed.at)
      .map((r) => r.at + r.ms)
      .sort((a, b) => a - b);
    failedToOk = ends.length ? ends[0]! - firstFailed.at : Number.NaN;
  }
  const oks = writes
    .filter((r) => r.outcome === 'ok')
    .map((r) => r.at + r.ms)
    .filter((end) => end >= from && end < to)
    .sort((a, b) => a - b);
  let longestGap = 0;
  let previous = from;
  for (const end of oks) {
    longestGap = Math.max(longestGap, end - previous);
    previous = end;
  }
  longestGap = Math.max(longestGap, to - previous);
  return { failedToOk, longestGap };
}

export interface WriteCount {
  acknowledged: number;
  found: number;
  lost: number;
  duplicated: number;
}

/** Writes sent in [from, to): acknowledged ones, and how the database at the end holds them. */
export function writesOf(
  writes: TrackedWrite[],
  counts: Map<string, number>,
  from: number,
  to: number,
): WriteCount {
  const acked = writes.filter(
    (w) => w.outcome === 'created' && w.sentAt !== undefined && w.sentAt >= from && w.sentAt < to,
  );
  const count = (w: TrackedWrite) => counts.get(w.marker) ?? 0;
  return {
    acknowledged: acked.length,
    found: acked.filter((w) => count(w) === 1).length,
    lost: acked.filter((w) => count(w) === 0).length,
    duplicated: writes.filter(
      (w) => w.sentAt !== undefined && w.sentAt >= from && w.sentAt < to && count(w) > 1,
    ).length,
  };
}

export interface EventCount {
  written: number;
  delivered: number;
}

function kindsCell(kinds: Map<string, number>): string {
  if (kinds.size === 0) return '';
  return [...kinds.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${count}x ${kind}${isRetryable(kind) ? '' : ' (NOT retryable)'}`)
    .join(', ');
}

function s(ms: number | null): string {
  if (ms === null) return '-';
  return Number.isNaN(ms) ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

export interface Row {
  phase: Phase;
  records: RequestRecord[];
  pause: Pause | null;
  writes: WriteCount;
  events: EventCount;
}

export function rowOf(
  phase: Phase,
  records: RequestRecord[],
  writes: WriteCount,
  events: EventCount,
  withPause: boolean,
): Row {
  return {
    phase,
    records: endedWithin(records, phase.start, phase.until),
    pause: withPause ? pauseOf(records, phase.start, phase.until) : null,
    writes,
    events,
  };
}

export function renderTable(rows: Row[], extra: string[][]): string {
  const header = [
    '| phase | what happened | requests | failed | failures by kind | calls failed after retries | pause in writes: first failed to first ok (longest without an ok) | writes acknowledged / found once (lost, duplicated) | events written / delivered |',
    '| --- | --- | ---: | ---: | --- | ---: | --- | --- | --- |',
  ];
  const lines = rows.map((row) => {
    const failed = row.records.filter((r) => r.outcome !== 'ok');
    const pause = row.pause ? `${s(row.pause.failedToOk)} (${s(row.pause.longestGap)})` : '';
    const w = row.writes;
    return `| ${row.phase.name} | ${row.phase.detail} | ${row.records.length} | ${failed.length} | ${kindsCell(
      failuresByKind(row.records),
    )} | ${row.phase.callsFailed} | ${pause} | ${w.acknowledged} / ${w.found} (${w.lost}, ${w.duplicated}) | ${
      row.events.written
    } / ${row.events.delivered} |`;
  });
  for (const cells of extra) lines.push(`| ${cells.join(' | ')} |`);
  return [...header, ...lines].join('\n');
}
