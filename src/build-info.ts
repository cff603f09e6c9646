// What runs: the package version, the commit it was built from when known, and Node's version
// (the `invoicing_build_info` metric). A runtime tree built by deploy/build-runtime.sh carries
// `build-info.json` next to package.json; a git checkout is read from .git directly (no process
// is started); anything else says "unknown".
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  version: string;
  commit: string;
  nodeVersion: string;
}

/** The directory of package.json, from src/ and from dist/ alike. */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/** HEAD's commit of the checkout at `root` (a worktree's `.git` file points at its git directory). */
function gitCommit(root: string): string | null {
  let gitDir = join(root, '.git');
  if (!existsSync(gitDir)) return null;
  if (statSync(gitDir).isFile()) {
    const pointer = /^gitdir: (.+)$/m.exec(readText(gitDir) ?? '')?.[1];
    if (!pointer) return null;
    gitDir = pointer.startsWith('/') ? pointer : join(root, pointer);
  }
  const head = readText(join(gitDir, 'HEAD'));
  if (!head) return null;
  const ref = /^ref: (.+)$/.exec(head)?.[1];
  if (!ref) return /^[0-9a-f]{40}$/.test(head) ? head : null;
  // A worktree keeps its refs in the common directory.
  const common = readText(join(gitDir, 'commondir'));
  const refDirs = [gitDir, ...(common ? [common.startsWith('/') ? common : join(gitDir, common)] : [])];
  for (const dir of refDirs) {
    const loose = readText(join(dir, ref));
    if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
    const packed = readText(join(dir, 'packed-refs'));
    const line = packed?.split('\n').find((entry) => entry.endsWith(` ${ref}`));
    if (line) return line.slice(0, 40);
  }
  return null;
}

let cached: BuildInfo | null = null;

export function buildInfo(root = ROOT): BuildInfo {
  if (cached && root === ROOT) return cached;
  const version =
    (JSON.parse(readText(join(root, 'package.json')) ?? '{}') as { version?: string }).version ?? 'unknown';
  let commit: string | null = null;
  try {
    const recorded = JSON.parse(readText(join(root, 'build-info.json')) ?? 'null') as {
      commit?: string;
    } | null;
    commit = recorded?.commit ?? gitCommit(root);
  } catch {
    commit = null;
  }
  const info = { version, commit: commit ?? 'unknown', nodeVersion: process.version };
  if (root === ROOT) cached = info;
  return info;
}
