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
import { statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { errorCatalog } from './error-catalog.js';
import { errorsPage, guidePage, homePage, referenceChooserPage } from './pages.js';
import { CLIENTS, type ClientVersions, clientVersions } from './sdk-files.js';
import { DOCS_DIST, DOCS_SOURCE, readStamp, STAMP } from './site-files.js';

export { DOCS_DIST, DOCS_SOURCE };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Pages whose English text lives in the repository where its readers look for it (a client's
 * README, the operator's and the deployment's docs) and whose Portuguese translation lives under
 * docs/site/pt/: both are published, /pt/<ptName> and /en/<enName>.
 */
export const ENGLISH_ORIGINALS = [
  {
    en: 'clients/typescript/README.md',
    enName: 'client-typescript',
    pt: 'pt/cliente-typescript.md',
    ptName: 'cliente-typescript',
  },
  { en: 'clients/php/README.md', enName: 'client-php', pt: 'pt/cliente-php.md', ptName: 'cliente-php' },
  {
    en: 'clients/python/README.md',
    enName: 'client-python',
    pt: 'pt/cliente-python.md',
    ptName: 'cliente-python',
  },
  { en: 'clients/mcp/README.md', enName: 'client-mcp', pt: 'pt/cliente-mcp.md', ptName: 'cliente-mcp' },
  { en: 'docs/operator-cli.md', enName: 'operator-cli', pt: 'pt/operador.md', ptName: 'operador' },
  { en: 'deploy/README.md', enName: 'deploy', pt: 'pt/implantacao.md', ptName: 'implantacao' },
  { en: 'docs/console.md', enName: 'console', pt: 'pt/consola.md', ptName: 'consola' },
] as const;
const OPENAPI = join(ROOT, 'openapi.json');
const OPENAPI_EN = join(ROOT, 'openapi.en.json');
const SAMPLES = join(ROOT, 'docs/samples');

/** The pages in each language: source (under docs/site/ unless it says otherwise), page under the site. */
const GUIDES = [
  { source: 'pt/guia.md', target: 'pt/index.html', lang: 'pt' },
  { source: 'en/guide.md', target: 'en/index.html', lang: 'en' },
  { source: 'pt/webhooks.md', target: 'pt/webhooks.html', lang: 'pt' },
  { source: 'en/webhooks.md', target: 'en/webhooks.html', lang: 'en' },
  { source: 'pt/mcp.md', target: 'pt/mcp.html', lang: 'pt' },
  { source: 'en/mcp.md', target: 'en/mcp.html', lang: 'en' },
  { source: 'pt/compatibilidade.md', target: 'pt/compatibilidade.html', lang: 'pt' },
  { source: 'en/compatibility.md', target: 'en/compatibility.html', lang: 'en' },
  ...ENGLISH_ORIGINALS.flatMap((page) => [
    { source: page.pt, target: `pt/${page.ptName}.html`, lang: 'pt' as const },
    { source: join(ROOT, page.en), target: `en/${page.enName}.html`, lang: 'en' as const },
  ]),
  { source: 'pt/fila-offline.md', target: 'pt/fila-offline.html', lang: 'pt' },
  { source: 'en/offline-queue.md', target: 'en/offline-queue.html', lang: 'en' },
] as const;

/** The changelogs (Keep a Changelog, in English) of the API and of each client: file, page. */
const CHANGELOGS = [
  ['CHANGELOG.md', 'changelog/api.html'],
  ['clients/typescript/CHANGELOG.md', 'changelog/typescript.html'],
  ['clients/php/CHANGELOG.md', 'changelog/php.html'],
  ['clients/python/CHANGELOG.md', 'changelog/python.html'],
  ['clients/mcp/CHANGELOG.md', 'changelog/mcp.html'],
].map(([source, target]) => ({ source: join(ROOT, source as string), target: target as string }));

/** The reference in each language: its document, its page, its title. */
const REFERENCES = [
  { published: 'openapi.json', target: 'pt/referencia.html', title: 'Referência — Partner API v1' },
  { published: 'en/openapi.json', target: 'en/reference.html', title: 'Reference — Partner API v1' },
] as const;

/**
 * An OpenAPI document (as text) with the docs' base it was generated for (its `info.contact.url`:
 * `npm run openapi` runs with the default DOCS_URL) replaced by `docsUrl` everywhere: the
 * description's link, the contact, every error example's doc_url. The site then names its own base.
 */
export function rebased(text: string, docsUrl: string): string {
  const document = JSON.parse(text) as { info?: { contact?: { url?: string } } };
  const generatedFor = document.info?.contact?.url?.replace(/\/+$/, '');
  const base = docsUrl.replace(/\/+$/, '');
  if (!generatedFor || generatedFor === base) return text;
  return text.replaceAll(`${generatedFor}/`, `${base}/`);
}

const exec = promisify(execFile);
const resolveModule = createRequire(import.meta.url).resolve;
const REDOCLY_PACKAGE = resolveModule('@redocly/cli/package.json');
const REDOCLY_CLI = join(dirname(REDOCLY_PACKAGE), 'bin/cli.js');

/** The files the client versions are read from (their packages' names carry them). */
const VERSION_SOURCES = [
  'typescript/package.json',
  'mcp/package.json',
  'php/composer.json',
  'python/invoicing_partner_api/client.py',
].map((path) => join(CLIENTS, path));

/**
 * A page's markdown with the site's own facts filled in: `{{DOCS_URL}}` (the docs' base, without
 * a trailing slash) and `{{version:typescript|mcp|python|php}}` (a client's version, as the file
 * names under /sdk/ carry it), so that links and install lines work as written.
 */
export function fillPlaceholders(markdown: string, docsUrl: string, versions: ClientVersions): string {
  return markdown.replace(/\{\{(DOCS_URL|version:[a-z]+)\}\}/g, (whole, name: string) => {
    if (name === 'DOCS_URL') return docsUrl.replace(/\/+$/, '');
    const version = versions[name.slice('version:'.length) as keyof ClientVersions];
    if (!version) throw new Error(`unknown placeholder ${whole}`);
    return version;
  });
}

/**
 * A page's relative markdown links as the site has them: a link to another published source (a
 * README, a page of docs/site) points at its page; a link to any other file of the repository
 * (a script, a configuration) becomes its path as text, since the site does not serve it.
 */
export function siteLinks(markdown: string, source: string, target: string): string {
  const pages = new Map<string, string>(
    GUIDES.map((guide) => [resolve(DOCS_SOURCE, guide.source), guide.target]),
  );
  const from = dirname(target);
  return markdown.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, text: string, href: string) => {
    if (/^([a-z]+:|#|\/)/i.test(href)) return whole;
    const [path = '', anchor] = href.split('#');
    const file = resolve(dirname(source), path);
    const page = pages.get(file);
    // Links of the site itself (`../errors`, `reference`) name no file of the repository.
    if (!page && !statSync(file, { throwIfNoEntry: false })?.isFile()) return whole;
    if (page) {
      const name = page.replace(/(^|\/)index\.html$/, '$1').replace(/\.html$/, '');
      const link = relative(from, name) || './';
      return `[${text}](${link}${name.endsWith('/') && !link.endsWith('/') ? '/' : ''}${anchor ? `#${anchor}` : ''})`;
    }
    const shown = relative(ROOT, file);
    return text.replace(/`/g, '') === shown ? text : `${text} (\`${shown}\`)`;
  });
}

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
    ...CHANGELOGS.map((changelog) => changelog.source),
    // Its `openapi:` section configures Redoc (the code samples' languages).
    join(ROOT, 'redocly.yaml'),
    ...VERSION_SOURCES,
    ...ENGLISH_ORIGINALS.map((page) => join(ROOT, page.en)),
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
  const versions = await clientVersions();
  const temporary = `${outDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(temporary, { recursive: true });
  try {
    // One Redoc build at a time: each is a whole Node process that takes a core.
    await mkdir(join(temporary, 'en'), { recursive: true });
    await writeFile(join(temporary, 'openapi.json'), rebased(await readFile(OPENAPI, 'utf8'), docsUrl));
    await writeFile(join(temporary, 'en/openapi.json'), rebased(await readFile(OPENAPI_EN, 'utf8'), docsUrl));
    for (const reference of REFERENCES) {
      await renderReference(
        join(temporary, reference.published),
        join(temporary, reference.target),
        reference.title,
      );
      await localizeReference(join(temporary, reference.target));
    }
    await Promise.all([
      writePage(temporary, 'index.html', homePage()),
      writePage(temporary, 'reference.html', referenceChooserPage()),
      writePage(temporary, 'errors.html', errorsPage(docsUrl)),
      ...GUIDES.map(async (guide) =>
        writePage(
          temporary,
          guide.target,
          guidePage(
            siteLinks(
              fillPlaceholders(await readFile(resolve(DOCS_SOURCE, guide.source), 'utf8'), docsUrl, versions),
              resolve(DOCS_SOURCE, guide.source),
              guide.target,
            ),
            guide.lang,
          ),
        ),
      ),
      ...CHANGELOGS.map(async (changelog) =>
        writePage(temporary, changelog.target, guidePage(await readFile(changelog.source, 'utf8'), 'en')),
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
