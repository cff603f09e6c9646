// `npm run clients:pack [-- --out DIR]`: the installable packages of everything under clients/,
// into clients/dist (or DIR), with their SHA-256 checksums; the docs server serves that folder
// under /sdk/ (src/docs/server.ts).
// - every clients/*/package.json (the TypeScript client, the MCP server, ...): `npm pack` (each
//   package builds itself in its `prepack` script);
// - clients/python: a wheel and an sdist from the package's own standard-library PEP 517 backend;
// - clients/php: a Composer zip (composer.json at its root, tests left out), usable as a Composer
//   "artifact" repository or unzipped and loaded with its autoload.php.
// Zips and tarballs are reproducible (fixed times and modes), so a rebuild of the same sources
// gives the same checksums. Also writes SHA256SUMS (`sha256sum -c` reads it) and index.html.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateRawSync } from 'node:zlib';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLIENTS = join(ROOT, 'clients');
export const DEFAULT_OUT = join(CLIENTS, 'dist');

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

/** `npm pack` of a folder with a package.json; returns the tarball's name. */
async function npmPack(dir: string, out: string): Promise<string> {
  const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', out], {
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

function indexPage(files: PackedFile[]): string {
  const rows = files
    .map(
      (file) =>
        `<tr><td><a href="${encodeURIComponent(file.name)}">${escapeHtml(file.name)}</a></td><td>${file.bytes}</td><td><code>${file.sha256}</code></td><td>${escapeHtml(file.source)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SDK · Partner API v1</title>
<style>body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .6rem;text-align:left}code{font-size:.8rem}</style></head>
<body><h1>Clientes e ferramentas · Clients and tools</h1>
<p>Verifique o SHA-256 antes de instalar · Check the SHA-256 before installing:
<a href="SHA256SUMS">SHA256SUMS</a> (<code>sha256sum -c SHA256SUMS</code>).</p>
<table><thead><tr><th>File</th><th>Bytes</th><th>SHA-256</th><th>Source</th></tr></thead><tbody>
${rows}
</tbody></table>
<ul>
<li>TypeScript / Node.js: <code>npm install ./invoicing-partner-api-&lt;version&gt;.tgz</code></li>
<li>Python 3.9+: <code>pip install ./invoicing_partner_api-&lt;version&gt;-py3-none-any.whl</code></li>
<li>PHP 8.1+ (Composer): an <code>artifact</code> repository holding the zip, then <code>composer require invoicing/partner-api</code></li>
</ul>
</body></html>
`;
}

/** Builds every package into `out` (emptied first) and returns them with their checksums. */
export async function packClients(out = DEFAULT_OUT): Promise<PackedFile[]> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const sources = new Map<string, string>();
  for (const entry of (await readdir(CLIENTS, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const dir = join(CLIENTS, entry.name);
    if (entry.isDirectory() && (await exists(join(dir, 'package.json')))) {
      sources.set(await npmPack(dir, out), `clients/${entry.name}`);
    }
  }
  for (const name of await pythonPack(out)) sources.set(name, 'clients/python');
  sources.set(await phpPack(out), 'clients/php');

  const files: PackedFile[] = [];
  for (const name of [...sources.keys()].sort()) {
    const data = await readFile(join(out, name));
    files.push({
      name,
      sha256: createHash('sha256').update(data).digest('hex'),
      bytes: data.length,
      source: sources.get(name) as string,
    });
  }
  await writeFile(join(out, 'SHA256SUMS'), files.map((file) => `${file.sha256}  ${file.name}\n`).join(''));
  await writeFile(join(out, 'index.html'), indexPage(files));
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const flag = process.argv.indexOf('--out');
  const out = flag >= 0 && process.argv[flag + 1] ? resolve(process.argv[flag + 1] as string) : DEFAULT_OUT;
  const files = await packClients(out);
  for (const file of files)
    console.log(`${file.sha256}  ${file.name}  (${file.source}, ${file.bytes} bytes)`);
  console.log(
    `\n${files.length} packages in ${relative(process.cwd(), out) || '.'}; served under /sdk/ by the docs server`,
  );
}
