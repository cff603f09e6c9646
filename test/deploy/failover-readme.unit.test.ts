// Issue 39, goal 4: "The tables in deploy/README.md are generated from the run's results file by a
// script, never pasted." The block between the markers is exactly what
// `npm run rehearsal:failover:readme` makes of deploy/rehearsal/failover/readme-run.json (the
// results file of the run it shows), so a hand edit of a number fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BEGIN,
  END,
  type FailoverResults,
  README_FILE,
  README_RESULTS_FILE,
  renderResults,
  withResults,
} from '../../deploy/rehearsal/failover/results.js';

const readme = readFileSync(README_FILE, 'utf8');
const results = JSON.parse(readFileSync(README_RESULTS_FILE, 'utf8')) as FailoverResults;

describe("deploy/README.md's failover run", () => {
  it('is the rendering of the committed results file, between the markers', () => {
    expect(readme).toContain(BEGIN);
    expect(readme).toContain(END);
    expect(readme).toBe(withResults(readme, results));
    const block = readme.slice(readme.indexOf(BEGIN) + BEGIN.length, readme.indexOf(END));
    expect(block.trim()).toBe(renderResults(results));
  });

  it('is a run with the goals of today: the members-only and rejoin goals among them, each met or missed as judged', () => {
    const names = results.goals.map((goal) => goal.name);
    expect(names.some((name) => name.startsWith('only members steer'))).toBe(true);
    expect(names.some((name) => name.includes('pg_rewind'))).toBe(true);
    expect(names.some((name) => name.includes('in any phase'))).toBe(true);
    expect(results.exitCode).toBe(results.goals.every((goal) => goal.met) ? 0 : 1);
  });

  it('a number changed by hand in the block is caught', () => {
    const begin = readme.indexOf(BEGIN) + BEGIN.length;
    const tampered =
      readme.slice(0, begin) +
      readme.slice(begin).replace(/\| (\d+) \|/, (_, n: string) => `| ${Number(n) + 1} |`);
    expect(tampered).not.toBe(readme);
    expect(tampered).not.toBe(withResults(tampered, results));
  });
});
