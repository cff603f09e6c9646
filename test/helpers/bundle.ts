// A TypeScript program of the repository as one JavaScript file, for the tests that start it many
// times (the MCP server, the offline till): node starts a bundle in a fifth of the CPU that tsx
// takes to load the same sources. Made once per test process, in a temporary folder removed when
// the process exits; the sources are read as they are now, so an edit is never run stale.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const made = new Map<string, Promise<string>>();
let folder: string | null = null;

function outputFolder(): string {
  if (!folder) {
    const dir = mkdtempSync(join(tmpdir(), 'partner-api-bundles-'));
    folder = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return folder;
}

/** The path of `entry` (relative to the repository) bundled with its dependencies, for `node PATH`. */
export function bundled(entry: string): Promise<string> {
  let path = made.get(entry);
  if (!path) {
    const outfile = join(outputFolder(), `${basename(entry, '.ts')}-${made.size}.mjs`);
    path = build({
      entryPoints: [join(ROOT, entry)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      // The repository's paths (@invoicing/partner-api is the TypeScript client's sources), as tsx reads them.
      tsconfig: join(ROOT, 'tsconfig.json'),
      // Packages written as CommonJS call require(): give the bundle one.
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    }).then(() => outfile);
    made.set(entry, path);
  }
  return path;
}
