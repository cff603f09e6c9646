// The client packages served under /sdk/: where they live (clients/dist, in a checkout and in a
// runtime tree alike), what they are built from (a fingerprint of the clients' sources, so a
// checkout repacks them when a source changed) and the versions their file names carry. Packing
// itself is scripts/pack-clients.ts; a checkout's docs server runs it at the first request of
// /sdk/ (src/docs/sdk-pack.ts), a runtime tree ships the packages built (deploy/build-runtime.sh).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of package.json, from src/docs and from dist/docs alike. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLIENTS = join(ROOT, 'clients');
export const SDK_DIST = join(CLIENTS, 'dist');
export const PACK_SCRIPT = join(ROOT, 'scripts/pack-clients.ts');
/** The stamp a pack writes next to the packages: the fingerprint of the sources it packed. */
export const SDK_STAMP = 'build.json';

/** Build output, caches and tests: not what a package is made of. */
const SKIPPED = new Set(['dist', 'node_modules', '__pycache__', 'tests', 'vendor', 'build']);

/** Whether this tree can pack the clients (a checkout), or only serves them (a runtime tree). */
export function canPack(): boolean {
  return existsSync(PACK_SCRIPT) && existsSync(join(CLIENTS, 'typescript/package.json'));
}

async function sourcesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourcesUnder(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found.sort();
}

/** A fingerprint of everything the packages are made of (and of the script that packs them). */
export async function sdkFingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [PACK_SCRIPT, ...(await sourcesUnder(CLIENTS))]) {
    hash.update(`${relative(ROOT, file)}\n`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex');
}

/** The fingerprint the packages in `dir` were built from, or null. */
export async function readSdkStamp(dir = SDK_DIST): Promise<string | null> {
  const text = await readFile(join(dir, SDK_STAMP), 'utf8').catch(() => null);
  try {
    const stamp = text ? (JSON.parse(text) as { fingerprint?: unknown }) : null;
    return typeof stamp?.fingerprint === 'string' ? stamp.fingerprint : null;
  } catch {
    return null;
  }
}

export interface ClientVersions {
  typescript: string;
  mcp: string;
  python: string;
  php: string;
}

/** The version of each client, as its package file names carry it (read from its sources). */
export async function clientVersions(): Promise<ClientVersions> {
  const manifest = async (path: string) =>
    (JSON.parse(await readFile(join(CLIENTS, path), 'utf8')) as { version: string }).version;
  const python = (await readFile(join(CLIENTS, 'python/invoicing_partner_api/client.py'), 'utf8')).match(
    /^__version__ = "([^"]+)"$/m,
  )?.[1];
  if (!python) throw new Error('no __version__ in clients/python/invoicing_partner_api/client.py');
  return {
    typescript: await manifest('typescript/package.json'),
    mcp: await manifest('mcp/package.json'),
    python,
    php: await manifest('php/composer.json'),
  };
}
