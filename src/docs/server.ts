// The docs server: the static files of docs/dist on their own port (DOCS_PORT), never on the
// API's. GET and HEAD only; `/errors` serves errors.html, `/pt/` serves pt/index.html; nothing
// outside the folder can be reached. `/sdk/` serves the client packages that
// `npm run clients:pack` wrote to clients/dist, with their SHA256SUMS; a checkout packs them at the
// first request there (`prepareSdk`), a runtime tree ships them. The index of /sdk/ gets this
// server's own address in its install lines.
// Only regular files inside the root are served: a path is normalized before anything (a redirect
// is built from the normalized path, never from what was sent, so `/.//evil.example/..%2fpt`
// cannot become `Location: //evil.example/...`), and no symbolic link is followed, inside the root
// or out of it. Every answer carries a Content-Security-Policy (frame-ancestors 'none') and
// Referrer-Policy: no-referrer.
import { createReadStream } from 'node:fs';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, relative, sep } from 'node:path';
import { SERVER_TIMEOUT_OPTIONS } from '../server-timeouts.js';
import { canPack, SDK_DIST } from './sdk-files.js';

export { SDK_DIST };

const SDK_PREFIX = '/sdk/';
/** What pack-clients writes where the install lines of /sdk/index.html name this server. */
const SDK_URL_PLACEHOLDER = '__SDK_URL__';

/** Why /sdk/ has no packages, in a tree that can pack them and in one that cannot. */
export function missingSdkText(checkout = canPack()): string {
  return checkout
    ? 'Não encontrado: os pacotes ainda não foram feitos (npm run clients:pack) · Not Found: the packages are not built yet (npm run clients:pack)'
    : 'Não encontrado: esta instalação não traz os pacotes · Not Found: this installation ships no packages';
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.tgz': 'application/gzip',
  '.gz': 'application/gzip',
  '.whl': 'application/zip',
  '.zip': 'application/zip',
};

export interface DocsServer {
  /** e.g. http://127.0.0.1:3001 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Where `path` really is, or null when it is missing. */
async function real(path: string): Promise<string | null> {
  return realpath(path).catch(() => null);
}

/**
 * Whether `path` (inside `root`) is a regular file reached through no symbolic link: its real
 * path is its own, under the root's real path.
 */
async function isPlainFile(root: string, path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  if (!info?.isFile()) return false;
  const [realRoot, realPath] = await Promise.all([real(root), real(path)]);
  return realRoot !== null && realPath === join(realRoot, relative(root, path));
}

/** The URL path decoded and normalized (`/a/./b/../c` → `/a/c`), or null when it cannot be. */
export function normalizedDocsPath(urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const trailing = decoded.endsWith('/') || /\/\.{1,2}$/.test(decoded);
  const path = normalize(`/${decoded}`).replace(/\/+/g, '/');
  if (path.split('/').includes('..')) return null;
  return trailing && !path.endsWith('/') ? `${path}/` : path;
}

/** The file a URL path names inside `root`, or null. */
export async function resolveDocsPath(root: string, urlPath: string): Promise<string | null> {
  const normalized = normalizedDocsPath(urlPath);
  if (normalized === null) return null;
  const path = join(root, normalized);
  if (path !== root && !path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) return null;
  const candidates = normalized.endsWith('/') ? [join(path, 'index.html')] : [path, `${path}.html`];
  for (const candidate of candidates) if (await isPlainFile(root, candidate)) return candidate;
  return null;
}

/** Sent with every answer: no framing, no outside resources, and no address leaves in a Referer. */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'self'",
    // Redoc's pages and the site's sample tabs are inline scripts and styles; Redoc's search runs in a worker made from a blob.
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
};

function send(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/plain; charset=utf-8',
    ...headers,
  });
  response.end(text);
}

interface Site {
  root: string;
  sdkRoot: string;
  /** e.g. http://127.0.0.1:3001/sdk/ (filled in once listening when not given). */
  sdkUrl: string;
  prepareSdk?: () => Promise<string | null>;
  /** The docs' base the files were built for, and the one to show instead (see startDocsServer). */
  rebase?: { from: string; to: string };
}

async function handle(site: Site, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { root, sdkRoot } = site;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, 405, 'Method Not Allowed', { allow: 'GET, HEAD' });
    return;
  }
  const { pathname } = new URL(request.url ?? '/', 'http://docs.local');
  if (pathname === '/sdk') {
    send(response, 301, 'Moved Permanently', { location: SDK_PREFIX });
    return;
  }
  if (pathname.startsWith(SDK_PREFIX)) {
    const problem = site.prepareSdk ? await site.prepareSdk() : null;
    if (problem) {
      send(response, 503, problem, { 'retry-after': '30' });
      return;
    }
    const file = await resolveDocsPath(sdkRoot, `/${pathname.slice(SDK_PREFIX.length)}`);
    if (file && file === join(sdkRoot, 'index.html')) {
      const html = (await readFile(file, 'utf8')).replaceAll(SDK_URL_PLACEHOLDER, site.sdkUrl);
      sendText(request, response, html, TYPES['.html'] as string);
    } else if (file) await sendFile(site, request, response, file);
    else if (await isPlainFile(sdkRoot, join(sdkRoot, 'index.html')))
      send(
        response,
        404,
        'Não encontrado: a lista dos pacotes está em /sdk/ · Not Found: the packages are listed at /sdk/',
      );
    else send(response, 404, missingSdkText());
    return;
  }
  const file = await resolveDocsPath(root, pathname);
  if (!file && pathname === '/favicon.ico') {
    // Browsers ask for it on every page; the site has none.
    response.writeHead(204, { ...SECURITY_HEADERS, 'cache-control': 'max-age=86400' });
    response.end();
    return;
  }
  if (!file) {
    // A folder asked for without its slash (`/pt`): the same page with it, so links resolve. The
    // address is made from the normalized path, each segment encoded again: always one leading
    // slash, so never another host.
    const normalized = normalizedDocsPath(pathname);
    if (normalized && !normalized.endsWith('/') && (await resolveDocsPath(root, `${normalized}/`))) {
      const location = `${normalized.split('/').map(encodeURIComponent).join('/')}/`;
      send(response, 301, 'Moved Permanently', { location });
      return;
    }
    send(response, 404, 'Not Found');
    return;
  }
  await sendFile(site, request, response, file);
}

function sendText(request: IncomingMessage, response: ServerResponse, text: string, type: string): void {
  const body = Buffer.from(text, 'utf8');
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': String(body.length),
    'cache-control': 'no-cache',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

async function sendFile(
  site: Site,
  request: IncomingMessage,
  response: ServerResponse,
  file: string,
): Promise<void> {
  const type = TYPES[extname(file)];
  if (site.rebase && (extname(file) === '.html' || extname(file) === '.json')) {
    const { from, to } = site.rebase;
    sendText(
      request,
      response,
      (await readFile(file, 'utf8')).replaceAll(`${from}/`, `${to}/`),
      type as string,
    );
    return;
  }
  const info = await lstat(file);
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type':
      TYPES[extname(file)] ??
      (extname(file) === '' ? 'text/plain; charset=utf-8' : 'application/octet-stream'),
    'content-length': String(info.size),
    'cache-control': 'no-cache',
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  createReadStream(file).pipe(response);
}

/** Listens on host:port and serves the files of `root`, and under /sdk/ those of `sdkRoot`. */
export async function startDocsServer(options: {
  root: string;
  host: string;
  port: number;
  /** Default: clients/dist of this checkout. */
  sdkRoot?: string;
  /** The docs' public base (DOCS_URL): the /sdk/ install lines name it. Default: this server's address. */
  baseUrl?: string;
  /** Called before each /sdk/ request: makes the packages current; null, or why they cannot be. */
  prepareSdk?: () => Promise<string | null>;
  /**
   * The docs' base the site was built for (its stamp's docs_url), when it is not `baseUrl`: a
   * runtime tree's site is built once, and its server may run with another DOCS_PORT or DOCS_URL.
   * Its pages and documents then name `baseUrl` instead, so every link opens here.
   */
  builtFor?: string;
}): Promise<DocsServer> {
  const trim = (url: string) => url.replace(/\/+$/, '');
  const site: Site = {
    root: normalize(options.root),
    sdkRoot: normalize(options.sdkRoot ?? SDK_DIST),
    sdkUrl: options.baseUrl ? `${options.baseUrl.replace(/\/+$/, '')}${SDK_PREFIX}` : '',
    ...(options.prepareSdk ? { prepareSdk: options.prepareSdk } : {}),
    ...(options.builtFor && options.baseUrl && trim(options.builtFor) !== trim(options.baseUrl)
      ? { rebase: { from: trim(options.builtFor), to: trim(options.baseUrl) } }
      : {}),
  };
  const server: Server = createServer(SERVER_TIMEOUT_OPTIONS, (request, response) => {
    handle(site, request, response).catch(() => {
      if (!response.headersSent) send(response, 500, 'Internal Server Error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown =
    options.host === '0.0.0.0' || options.host === ''
      ? '127.0.0.1'
      : options.host === '::'
        ? '::1'
        : options.host;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  if (!site.sdkUrl) site.sdkUrl = `${url}${SDK_PREFIX}`;
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
