// Builds the docs site into static files (docs/dist, not committed): `npm run docs:build`
// (deploy/build-runtime.sh runs it for the image), and `serve` in a checkout when the files are
// missing or were built from other sources. Needs the development dependencies marked and Redocly
// CLI. Inputs: the pages (docs/site/), the code samples (docs/samples/), openapi.json and
// openapi.en.json, the error module (through the catalog) and the docs URL. Each reference is
// Redoc's static page, built by Redocly CLI from its document with its script inlined (no request
// leaves the machine). The site is built in a temporary folder and renamed into
// place, so a server never serves half a build and two builders never mix files.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { errorCatalog } from './error-catalog.js';
import { errorsPage, guidePage, homePage, referenceChooserPage } from './pages.js';
import { DOCS_DIST, DOCS_SOURCE, readStamp, STAMP } from './site-files.js';

export { DOCS_DIST, DOCS_SOURCE };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OPENAPI = join(ROOT, 'openapi.json');
const OPENAPI_EN = join(ROOT, 'openapi.en.json');
const SAMPLES = join(ROOT, 'docs/samples');

/** The pages in each language: source under docs/site/, page under the site. */
const GUIDES = [
  { source: 'pt/guia.md', target: 'pt/index.html', lang: 'pt' },
  { source: 'en/guide.md', target: 'en/index.html', lang: 'en' },
  { source: 'pt/webhooks.md', target: 'pt/webhooks.html', lang: 'pt' },
  { source: 'en/webhooks.md', target: 'en/webhooks.html', lang: 'en' },
  { source: 'pt/mcp.md', target: 'pt/mcp.html', lang: 'pt' },
  { source: 'en/mcp.md', target: 'en/mcp.html', lang: 'en' },
  { source: 'pt/fila-offline.md', target: 'pt/fila-offline.html', lang: 'pt' },
  { source: 'en/offline-queue.md', target: 'en/offline-queue.html', lang: 'en' },
] as const;

/** The reference in each language: its document, its page, its title. */
const REFERENCES = [
  { document: OPENAPI, target: 'pt/referencia.html', title: 'Referência — Partner API v1' },
  { document: OPENAPI_EN, target: 'en/reference.html', title: 'Reference — Partner API v1' },
] as const;

const exec = promisify(execFile);
const resolveModule = createRequire(import.meta.url).resolve;
const REDOCLY_PACKAGE = resolveModule('@redocly/cli/package.json');
const REDOCLY_CLI = join(dirname(REDOCLY_PACKAGE), 'bin/cli.js');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]),
    ),
  );
  return nested.flat().sort();
}

/** A fingerprint of everything the site is built from. */
export async function docsFingerprint(docsUrl: string): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`docs url ${docsUrl}\n`);
  hash.update(JSON.stringify(errorCatalog(docsUrl)));
  const sources = [
    OPENAPI,
    OPENAPI_EN,
    ...(await filesUnder(DOCS_SOURCE)),
    ...(await filesUnder(SAMPLES)),
    // Its `openapi:` section configures Redoc (the code samples' languages).
    join(ROOT, 'redocly.yaml'),
    ...(await filesUnder(join(ROOT, 'src/docs'))),
    REDOCLY_PACKAGE,
  ];
  for (const file of sources) {
    hash.update(`${relative(ROOT, file)}\n`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex');
}

async function renderReference(document: string, target: string, title: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  await exec(
    process.execPath,
    [
      REDOCLY_CLI,
      'build-docs',
      document,
      '--inlineBundle',
      '--output',
      target,
      '--title',
      title,
      '--lint-config',
      'off',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
    },
  );
}

/**
 * Redoc's sidebar shows its attribution logo from Redocly's CDN, which no option turns off; the
 * page must not reach outside the machine, so the same attribution gets a local SVG instead.
 */
const REMOTE_LOGOS = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const LOCAL_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="52" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#0044D4">Redoc</text></svg>',
)}`;

async function localizeReference(file: string): Promise<void> {
  const html = await readFile(file, 'utf8');
  await writeFile(file, html.replace(REMOTE_LOGOS, LOCAL_LOGO));
}

async function writePage(dir: string, name: string, html: string): Promise<void> {
  await mkdir(dirname(join(dir, name)), { recursive: true });
  await writeFile(join(dir, name), html);
}

export interface BuildResult {
  dir: string;
  built: boolean;
  ms: number;
}

/** Builds the whole site into `outDir` (default docs/dist). */
export async function buildDocs(docsUrl: string, outDir = DOCS_DIST): Promise<BuildResult> {
  const started = Date.now();
  const fingerprint = await docsFingerprint(docsUrl);
  const temporary = `${outDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(temporary, { recursive: true });
  try {
    // One Redoc build at a time: each is a whole Node process that takes a core.
    for (const reference of REFERENCES) {
      await renderReference(reference.document, join(temporary, reference.target), reference.title);
      await localizeReference(join(temporary, reference.target));
    }
    await mkdir(join(temporary, 'en'), { recursive: true });
    await Promise.all([
      copyFile(OPENAPI, join(temporary, 'openapi.json')),
      copyFile(OPENAPI_EN, join(temporary, 'en/openapi.json')),
      writePage(temporary, 'index.html', homePage()),
      writePage(temporary, 'reference.html', referenceChooserPage()),
      writePage(temporary, 'errors.html', errorsPage(docsUrl)),
      ...GUIDES.map(async (guide) =>
        writePage(
          temporary,
          guide.target,
          guidePage(await readFile(join(DOCS_SOURCE, guide.source), 'utf8'), guide.lang),
        ),
      ),
    ]);
    await writeFile(
      join(temporary, STAMP),
      `${JSON.stringify({ fingerprint, docs_url: docsUrl }, null, 2)}\n`,
    );
    await rm(outDir, { recursive: true, force: true });
    try {
      await rename(temporary, outDir);
    } catch (error) {
      // Another builder renamed its (identical) build into place first: keep that one.
      if ((await stat(outDir).catch(() => null))?.isDirectory())
        return { dir: outDir, built: true, ms: Date.now() - started };
      throw error;
    }
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
  return { dir: outDir, built: true, ms: Date.now() - started };
}

/** Whether `dir` holds a build of the current sources for this docs URL. */
export async function isCurrent(docsUrl: string, dir = DOCS_DIST): Promise<boolean> {
  const stamp = await readStamp(dir);
  return stamp !== null && stamp.fingerprint === (await docsFingerprint(docsUrl));
}

/** Builds the site unless a current build is there already. */
export async function ensureDocs(docsUrl: string, dir = DOCS_DIST): Promise<BuildResult> {
  const started = Date.now();
  if (await isCurrent(docsUrl, dir)) return { dir, built: false, ms: Date.now() - started };
  return buildDocs(docsUrl, dir);
}
