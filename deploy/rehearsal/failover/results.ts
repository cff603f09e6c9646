// The failover rehearsal's results file (results/failover/results.json), written by run.ts at the
// end of every run, and the one way it is shown in deploy/README.md: renderResults, between the
// marker comments, by write-readme.ts (`npm run rehearsal:failover:readme`). The README's numbers
// are therefore a run's own, never typed.
import path from 'node:path';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { type Goal, renderGoals } from '../lib/report.js';

export const RESULTS_FILE = path.join(repoRoot, 'deploy/rehearsal/results/failover/results.json');
/** The results the README's block was made from, committed next to the code that made them. */
export const README_RESULTS_FILE = path.join(repoRoot, 'deploy/rehearsal/failover/readme-run.json');
export const README_FILE = path.join(repoRoot, 'deploy/README.md');
export const BEGIN =
  '<!-- failover-run: made from deploy/rehearsal/failover/readme-run.json by `npm run rehearsal:failover:readme` -->';
export const END = '<!-- /failover-run -->';

export interface FailoverResults {
  /** ISO time of the start. */
  startedAt: string;
  /** CPU, cores, memory, kernel, load average at the start, Node. */
  machine: string;
  /** Versions of PostgreSQL, Patroni, etcd, pgBackRest, HAProxy. */
  components: string;
  /** The phases' table (markdown). */
  table: string;
  goals: Goal[];
  notes: string[];
  /** From the start of the run to its verdict. */
  wallMs: number;
  exitCode: number;
}

function minutes(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)} min ${total % 60} s`;
}

/** The README's block for one run: what ran where, the table, each goal, the notes, the verdict. */
export function renderResults(results: FailoverResults): string {
  const met = results.goals.filter((goal) => goal.met).length;
  return [
    `Run of ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC. Machine: ${results.machine}.`,
    `Components: ${results.components}.`,
    '',
    results.table,
    '',
    renderGoals(results.goals),
    ...results.notes.map((note) => `- note: ${note}`),
    '',
    `${met} of ${results.goals.length} goals met; exit ${results.exitCode}; the run took ${minutes(results.wallMs)}.`,
  ].join('\n');
}

/** `readme` with the block between the markers replaced by the rendering of `results`. */
export function withResults(readme: string, results: FailoverResults): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin)
    throw new Error(`deploy/README.md: the markers ${BEGIN} ... ${END} are missing`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${renderResults(results)}\n${readme.slice(end)}`;
}
