// `--before <git-ref>`: the code just before a change, measured in the same session as the change.
// That commit is checked out in its own git work tree outside the repository (so that no tool of
// this checkout scans it), installed and built there once (`npm ci` runs the build), and reused
// while it is there: a commit's build never changes. Remove it with `git worktree remove <path>`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { repoRoot } from '../../scripts/lib/repo.js';

export interface BeforeCheckout {
  /** What was asked for, e.g. "main" or "HEAD~3". */
  ref: string;
  /** Its commit, short. */
  commit: string;
  /** The work tree, with its own node_modules/ and dist/. */
  root: string;
}

function git(args: string[], cwd = repoRoot): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

export function prepareBefore(ref: string, log: (line: string) => void): BeforeCheckout {
  const commit = git(['rev-parse', '--short=12', `${ref}^{commit}`]);
  const root = `${tmpdir()}/partner-api-before-${commit}`;
  const built =
    existsSync(`${root}/dist/.build-stamp`) && git(['rev-parse', '--short=12', 'HEAD'], root) === commit;
  if (built) {
    log(`Code before (${ref}, ${commit}): reusing its build in ${root}`);
    return { ref, commit, root };
  }
  if (existsSync(root)) git(['worktree', 'remove', '--force', root]);
  git(['worktree', 'prune']);
  log(`Code before (${ref}, ${commit}): checking it out in ${root}, npm ci and its build (minutes)`);
  git(['worktree', 'add', '--detach', root, commit]);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'inherit' });
  if (!existsSync(`${root}/dist/.build-stamp`)) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  return { ref, commit, root };
}
