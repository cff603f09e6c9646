// Where the docs site lives, for the code that serves it without building it: the sources of a
// checkout (docs/site) and the built static files (docs/dist), with the stamp that says which
// DOCS_URL they were built for. Imports nothing that builds (marked, Redocly CLI): a runtime tree
// (deploy/build-runtime.sh) ships the built files and neither of those.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of package.json, from src/docs and from dist/docs alike. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DOCS_SOURCE = join(ROOT, 'docs/site');
export const DOCS_DIST = join(ROOT, 'docs/dist');
export const STAMP = 'build.json';

export interface BuildStamp {
  fingerprint: string;
  docs_url: string;
}

/** The stamp of a build in `dir`, or null when there is none. */
export async function readStamp(dir = DOCS_DIST): Promise<BuildStamp | null> {
  const text = await readFile(join(dir, STAMP), 'utf8').catch(() => null);
  if (!text) return null;
  try {
    const stamp = JSON.parse(text) as Partial<BuildStamp>;
    return typeof stamp.fingerprint === 'string' && typeof stamp.docs_url === 'string'
      ? { fingerprint: stamp.fingerprint, docs_url: stamp.docs_url }
      : null;
  } catch {
    return null;
  }
}
