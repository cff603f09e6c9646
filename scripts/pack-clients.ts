// `npm run clients:pack [-- --out DIR]`: the installable packages of everything under clients/,
// into clients/dist (or DIR), with their SHA-256 checksums; the docs server serves that folder
// under /sdk/ (src/docs/server.ts).
// - every clients/*/package.json (the TypeScript client, the MCP server, ...): `npm pack` (each
//   package builds itself in its `prepack` script);
// - clients/python: a wheel and an sdist from the package's own standard-library PEP 517 backend;
// - clients/php: a Composer zip (composer.json at its root, tests left out), usable as a Composer
//   "artifact" repository or unzipped and loaded with its autoload.php.
// A package whose manifest lists a sibling client in `bundleDependencies` (the MCP server bundles
// the TypeScript client, which is on no public registry) is packed from a staging copy holding
// that sibling's own tarball, so its tarball installs alone.
// Zips and tarballs are reproducible (fixed times and modes), so a rebuild of the same sources
// gives the same checksums. Also writes SHA256SUMS (`sha256sum -c` reads it), index.html (install
// lines in PT and EN; the docs server fills in its own address) and build.json (the sources'
// fingerprint: a checkout's docs server repacks when they change). The folder is built aside and
// renamed into place, so a server never serves half a pack. Without python3 (PYTHON_BIN) the
// Python packages are left out, with a note on the index, unless --all asks for every package.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { extract } from 'tar';
import { CLIENTS, SDK_DIST, SDK_STAMP, sdkFingerprint } from '../src/docs/sdk-files.js';

const exec = promisify(execFile);
export const DEFAULT_OUT = SDK_DIST;

export interface PackedFile {
  name: string;
  sha256: string;
  bytes: number;
  /** Where it came from, e.g. clients/python. */
  source: string;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

interface Manifest {
  name: string;
  version: string;
  files?: string[];
  bundleDependencies?: string[];
}

/** `npm pack` of a folder with a package.json; returns the tarball's name. */
async function npmPack(dir: string, out: string, ignoreScripts = false): Promise<string> {
  const args = ['pack', '--json', '--pack-destination', out, ...(ignoreScripts ? ['--ignore-scripts'] : [])];
  const { stdout } = await exec('npm', args, {
    cwd: dir,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_loglevel: 'error' },
  });
  // Lifecycle scripts may print before the JSON: it is the last top-level array.
  const json = stdout.slice(stdout.lastIndexOf('\n[') + 1);
  const [packed] = JSON.parse(json.trimStart().startsWith('[') ? json : stdout) as { filename: string }[];
  if (!packed) throw new Error(`npm pack in ${dir} packed nothing`);
  return packed.filename.replace(/^@[^/]+\//, '').replace('/', '-');
}

/**
 * A package that bundles sibling clients: built in place (its `prepack`), then packed from a
 * staging copy of what it publishes, with each bundled sibling unpacked from its own tarball into
 * node_modules, as npm bundles a dependency (npm does not follow a workspace's links).
 */
async function npmPackBundling(
  dir: string,
  manifest: Manifest,
  out: string,
  tarballs: Map<string, string>,
): Promise<string> {
  await exec('npm', ['run', 'build'], { cwd: dir, env: { ...process.env, npm_config_loglevel: 'error' } });
  const stage = await mkdtemp(join(tmpdir(), 'partner-pack-'));
  try {
    for (const path of ['package.json', ...(manifest.files ?? [])])
      await cp(join(dir, path), join(stage, path), { recursive: true });
    for (const name of manifest.bundleDependencies ?? []) {
      const tarball = tarballs.get(name);
      if (!tarball) throw new Error(`${manifest.name} bundles ${name}, which no folder of clients/ packs`);
      const target = join(stage, 'node_modules', name);
      await mkdir(target, { recursive: true });
      await extract({ file: join(out, tarball), cwd: target, strip: 1 });
    }
    return await npmPack(stage, out, true);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

async function pythonPack(out: string): Promise<string[]> {
  const python = process.env.PYTHON_BIN ?? 'python3';
  const { stdout } = await exec(python, [join(CLIENTS, 'python/_build/partner_api_build.py'), out]);
  return stdout
    .trim()
    .split('\n')
    .map((line) => relative(out, line.trim()));
}

// A zip writer (deflate, no extras): enough for a Composer archive, reproducible.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** 1980-01-01 00:00 in MS-DOS date and time: the earliest a zip entry can say. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

export function zip(entries: { path: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { path, data } of entries) {
    const name = Buffer.from(path, 'utf8');
    const deflated = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(deflated.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(deflated.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, deflated);
    centrals.push(central, name);
    offset += local.length + name.length + deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

async function phpPack(out: string): Promise<string> {
  const dir = join(CLIENTS, 'php');
  const manifest = JSON.parse(await readFile(join(dir, 'composer.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  // What Composer's own `archive` keeps: the package without its tests (composer.json "archive").
  const files = [
    'composer.json',
    'README.md',
    'autoload.php',
    ...(await filesUnder(join(dir, 'src'))).map((f) => relative(dir, f)),
  ];
  const entries = await Promise.all(
    files.sort().map(async (path) => ({ path, data: await readFile(join(dir, path)) })),
  );
  const name = `${manifest.name.replace('/', '-')}-${manifest.version}.zip`;
  await writeFile(join(out, name), zip(entries));
  return name;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string,
  );
}

/** Where the docs server writes its own address (…/sdk/) into index.html as it serves it. */
export const SDK_URL_PLACEHOLDER = '__SDK_URL__';

/** The shell lines that install a package straight from /sdk/, by kind of package. */
export function installLines(files: PackedFile[]): { id: string; label: string; lines: string[] }[] {
  const named = (pattern: RegExp) => files.find((file) => pattern.test(file.name))?.name;
  const url = (name: string) => `${SDK_URL_PLACEHOLDER}${name}`;
  const blocks: { id: string; label: string; lines: string[] }[] = [];
  const ts = named(/^invoicing-partner-api-.*\.tgz$/);
  if (ts)
    blocks.push({ id: 'typescript', label: 'TypeScript / Node.js 20+', lines: [`npm install ${url(ts)}`] });
  const mcp = named(/^invoicing-partner-mcp-.*\.tgz$/);
  if (mcp)
    blocks.push({
      id: 'mcp',
      label: 'MCP (Node.js 20+)',
      lines: [`npm install -g ${url(mcp)}`, 'partner-mcp --help'],
    });
  const wheel = named(/\.whl$/);
  if (wheel) blocks.push({ id: 'python', label: 'Python 3.9+', lines: [`pip install ${url(wheel)}`] });
  const zipped = named(/^invoicing-partner-api-.*\.zip$/);
  if (zipped)
    blocks.push({
      id: 'php',
      label: 'PHP 8.1+ (Composer)',
      lines: [
        'mkdir -p pacotes',
        `curl -fsSL -o pacotes/${zipped} ${url(zipped)}`,
        `composer init --no-interaction --name minha-empresa/integracao --repository '{"type":"artifact","url":"pacotes"}'`,
        'composer require invoicing/partner-api:^1.0',
      ],
    });
  return blocks;
}

const INDEX_TEXT = {
  pt: {
    title: 'Instalar',
    intro:
      'Cada comando instala o pacote directamente deste endereço. O servidor MCP traz o cliente TypeScript dentro do seu pacote: instala-se sozinho. No PHP, o Composer lê o zip de uma pasta local (um repositório <code>artifact</code>).',
    missing: 'Em falta neste servidor',
  },
  en: {
    title: 'Install',
    intro:
      'Each command installs the package straight from this address. The MCP server carries the TypeScript client inside its package: it installs alone. For PHP, Composer reads the zip from a local folder (an <code>artifact</code> repository).',
    missing: 'Missing on this server',
  },
} as const;

function indexPage(files: PackedFile[], missing: string[]): string {
  const rows = files
    .map(
      (file) =>
        `<tr><td><a href="${encodeURIComponent(file.name)}">${escapeHtml(file.name)}</a></td><td>${file.bytes}</td><td><code>${file.sha256}</code></td><td>${escapeHtml(file.source)}</td></tr>`,
    )
    .join('\n');
  const sections = (['pt', 'en'] as const)
    .map((lang) => {
      const text = INDEX_TEXT[lang];
      const blocks = installLines(files)
        .map(
          (block) =>
            `<h3>${escapeHtml(block.label)}</h3>\n<pre><code class="language-sh" data-install="${block.id}">${escapeHtml(block.lines.join('\n'))}</code></pre>`,
        )
        .join('\n');
      const absent = missing.length
        ? `<p><strong>${text.missing}:</strong> ${missing.map(escapeHtml).join('; ')}</p>`
        : '';
      return `<section lang="${lang}" id="${lang}">\n<h2>${text.title} (${lang.toUpperCase()})</h2>\n<p>${text.intro}</p>\n${blocks}\n${absent}\n</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="pt"><head><meta charset="utf-8"><title>SDK · Partner API v1</title>
<style>body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .6rem;text-align:left}code{font-size:.8rem}pre{background:#f4f6f8;padding:.6rem 1rem;overflow-x:auto}</style></head>
<body><h1>Clientes e ferramentas · Clients and tools</h1>
<p>Verifique o SHA-256 antes de instalar · Check the SHA-256 before installing:
<a href="SHA256SUMS">SHA256SUMS</a> (<code>sha256sum -c SHA256SUMS</code>).</p>
<table><thead><tr><th>Ficheiro · File</th><th>Bytes</th><th>SHA-256</th><th>Origem · Source</th></tr></thead><tbody>
${rows}
</tbody></table>
${sections}
</body></html>
`;
}

/** Whether a failure is "the program is not installed". */
function notInstalled(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Builds every package into `out` (replaced whole) and returns them with their checksums. Without
 * python3 the Python packages are left out (with a note on the index) unless `all` is set.
 */
export async function packClients(out = DEFAULT_OUT, options: { all?: boolean } = {}): Promise<PackedFile[]> {
  const fingerprint = await sdkFingerprint();
  const work = `${out}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(work, { recursive: true });
  try {
    const sources = new Map<string, string>();
    const missing: string[] = [];
    const packages: { dir: string; manifest: Manifest }[] = [];
    for (const entry of await readdir(CLIENTS, { withFileTypes: true })) {
      const dir = join(CLIENTS, entry.name);
      if (entry.isDirectory() && (await exists(join(dir, 'package.json')))) {
        packages.push({
          dir,
          manifest: JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest,
        });
      }
    }
    // Those that bundle a sibling after the siblings themselves.
    const bundles = (one: { manifest: Manifest }) => (one.manifest.bundleDependencies?.length ? 1 : 0);
    packages.sort((a, b) => bundles(a) - bundles(b) || a.dir.localeCompare(b.dir));
    const tarballs = new Map<string, string>();
    for (const { dir, manifest } of packages) {
      const name = manifest.bundleDependencies?.length
        ? await npmPackBundling(dir, manifest, work, tarballs)
        : await npmPack(dir, work);
      tarballs.set(manifest.name, name);
      sources.set(name, relative(join(CLIENTS, '..'), dir));
    }
    try {
      for (const name of await pythonPack(work)) sources.set(name, 'clients/python');
    } catch (error) {
      if (options.all || !notInstalled(error)) throw error;
      missing.push('Python (python3 not found: PYTHON_BIN)');
    }
    sources.set(await phpPack(work), 'clients/php');

    const files: PackedFile[] = [];
    for (const name of [...sources.keys()].sort()) {
      const data = await readFile(join(work, name));
      files.push({
        name,
        sha256: createHash('sha256').update(data).digest('hex'),
        bytes: data.length,
        source: sources.get(name) as string,
      });
    }
    await writeFile(join(work, 'SHA256SUMS'), files.map((file) => `${file.sha256}  ${file.name}\n`).join(''));
    await writeFile(join(work, 'index.html'), indexPage(files, missing));
    await writeFile(join(work, SDK_STAMP), `${JSON.stringify({ fingerprint, missing }, null, 2)}\n`);
    await rm(out, { recursive: true, force: true });
    try {
      await rename(work, out);
    } catch (error) {
      // Another pack of the same sources renamed its (identical) folder into place first.
      if (!(await stat(out).catch(() => null))?.isDirectory()) throw error;
    }
    return files;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const flag = process.argv.indexOf('--out');
  const out = flag >= 0 && process.argv[flag + 1] ? resolve(process.argv[flag + 1] as string) : DEFAULT_OUT;
  const files = await packClients(out, { all: process.argv.includes('--all') });
  for (const file of files)
    console.log(`${file.sha256}  ${file.name}  (${file.source}, ${file.bytes} bytes)`);
  console.log(
    `\n${files.length} packages in ${relative(process.cwd(), out) || '.'}; served under /sdk/ by the docs server`,
  );
}
