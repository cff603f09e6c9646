// The results: one row per measured case, printed as one table at the end and written as JSON.
import { writeFileSync } from 'node:fs';
import type { Machine } from './lib/machine.js';

export interface ResultRow {
  group: string;
  case: string;
  /** e.g. "req/s", "p99 ms", "median ms", "MB". */
  metric: string;
  api: string;
  bare: string;
  /** Measured ratio or value against the goal, e.g. "0.16x" or "204 ms". */
  ratio: string;
  goal: string;
  /** null: informative only, no goal. */
  pass: boolean | null;
  /** Anything worth keeping in the JSON (raw samples, totals, notes). */
  details?: Record<string, unknown>;
}

export interface RunMeta {
  date: string;
  machine: Machine;
  tool: string;
  /** How the API server under test was configured (startApiServer). */
  server: string;
  settings: Record<string, unknown>;
  dataset: Record<string, unknown>;
}

/** CPU per read by component, one column per profiled server (`--profile`). */
export interface ProfileTable {
  title: string;
  columns: string[];
  rows: { component: string; values: string[] }[];
}

export class Report {
  readonly rows: ResultRow[] = [];
  profile: ProfileTable | undefined;

  add(row: ResultRow): void {
    this.rows.push(row);
    const verdict = row.pass === null ? '' : row.pass ? ' PASS' : ' FAIL';
    process.stdout.write(
      `  ${row.case} | ${row.metric} | api ${row.api} | bare ${row.bare} | ${row.ratio} (goal ${row.goal})${verdict}\n`,
    );
  }

  table(): string {
    const header = ['case', 'metric', 'api', 'bare', 'ratio / value', 'goal', 'result'];
    const lines = this.rows.map((row) => [
      row.case,
      row.metric,
      row.api,
      row.bare,
      row.ratio,
      row.goal,
      row.pass === null ? '-' : row.pass ? 'pass' : 'FAIL',
    ]);
    const escapePipes = (cell: string) => cell.replaceAll('|', '\\|');
    return [header, header.map(() => '---'), ...lines]
      .map((cells) => `| ${cells.map(escapePipes).join(' | ')} |`)
      .join('\n');
  }

  profileMarkdown(): string {
    if (!this.profile) return '';
    const { columns, rows } = this.profile;
    const header = ['CPU µs per read', ...columns];
    return [
      header,
      header.map((_, index) => (index === 0 ? '---' : '---:')),
      ...rows.map((row) => [row.component, ...row.values]),
    ]
      .map((cells) => `| ${cells.join(' | ')} |`)
      .join('\n');
  }

  summaryLine(): string {
    const judged = this.rows.filter((row) => row.pass !== null);
    const passed = judged.filter((row) => row.pass).length;
    return `${passed} of ${judged.length} goals met`;
  }

  writeJson(path: string, meta: RunMeta): void {
    writeFileSync(
      path,
      `${JSON.stringify({ ...meta, summary: this.summaryLine(), results: this.rows, profile: this.profile }, null, 2)}\n`,
    );
  }
}

export function describeMachine(meta: RunMeta): string {
  const { machine } = meta;
  return [
    `Date: ${meta.date}`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}`,
    `Node ${machine.node}; ${machine.postgres}; load generator: ${meta.tool}`,
    `API server: ${meta.server}`,
    `Data set: ${JSON.stringify(meta.dataset)}`,
    `Settings: ${JSON.stringify(meta.settings)}`,
  ].join('\n');
}

/** "12.3" for ms, "1,234" for req/s. */
export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 1000 ? Math.round(value).toLocaleString('en-US') : value.toFixed(digits);
}

export function fmtRange(values: { median: number; min: number; max: number }, digits = 1): string {
  return `${fmt(values.median, digits)} (${fmt(values.min, digits)}–${fmt(values.max, digits)})`;
}
