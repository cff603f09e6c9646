// The order test files start in: the longest first, so that a run does not end with one long file
// alone on a core while the other waits. Vitest orders by the previous run's durations when it has
// them, and otherwise (a fresh clone) by project and as the files were found. Without durations,
// this estimates them: a file that starts processes (servers, commands, a browser, tills, MCP
// servers) is long, then the longer text. The unit project goes first (some of its files build an
// embedded database), then the storage projects in name order, each file once per project.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const STARTS_PROCESS =
  /startServe\(|startServerProcess\(|runCli\(|cliJson\(|startTill\(|connectStdio\(|startHttpMcp\(|chromium\.launch\(/g;

/** A file's estimated cost: each process it starts outweighs any length of text. */
function estimate(file: string): number {
  const text = readFileSync(file, 'utf8');
  return (text.match(STARTS_PROCESS)?.length ?? 0) * 1_000_000 + text.length;
}

const projectRank = (spec: TestSpecification) => (spec.project.name === 'unit' ? 0 : 1);

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byDuration = await super.sort(files);
    const key = (spec: TestSpecification) =>
      `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
    const timed = files.every((spec) => this.ctx.cache.getFileTestResults(key(spec)) !== undefined);
    const estimates = new Map(files.map((spec) => [spec, timed ? 0 : estimate(spec.moduleId)]));
    return byDuration.sort(
      (a, b) =>
        projectRank(a) - projectRank(b) ||
        (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0) ||
        (estimates.get(b) ?? 0) - (estimates.get(a) ?? 0),
    );
  }
}
