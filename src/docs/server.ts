// The docs server: the static files of docs/dist on their own port (DOCS_PORT), never on the
// API's. GET and HEAD only; `/errors` serves errors.html, `/pt/` serves pt/index.html; nothing
// outside the folder can be reached. `/sdk/` serves the client packages that
// `npm run clients:pack` wrote to clients/dist, with their SHA256SUMS.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run clients:pack` writes the packages (the same from src/ and from dist/). */
export const SDK_DIST = fileURLToPath(new URL('../../clients/dist', import.meta.url));
const SDK_PREFIX = '/sdk/';

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

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/** The file a URL path names inside `root`, or null. */
export async function resolveDocsPath(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const path = normalize(join(root, decoded));
  if (path !== root && !path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) return null;
  const candidates = decoded.endsWith('/') ? [join(path, 'index.html')] : [path, `${path}.html`];
  for (const candidate of candidates) if (await isFile(candidate)) return candidate;
  return null;
}

function send(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(text);
}

async function handle(
  root: string,
  sdkRoot: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
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
    const file = await resolveDocsPath(sdkRoot, `/${pathname.slice(SDK_PREFIX.length)}`);
    if (file) await sendFile(request, response, file);
    else send(response, 404, 'Not Found (the packages are built by: npm run clients:pack)');
    return;
  }
  const file = await resolveDocsPath(root, pathname);
  if (!file && pathname === '/favicon.ico') {
    // Browsers ask for it on every page; the site has none.
    response.writeHead(204, { 'cache-control': 'max-age=86400' });
    response.end();
    return;
  }
  if (!file) {
    // A folder asked for without its slash (`/pt`): the same page with it, so links resolve.
    if (!pathname.endsWith('/') && (await resolveDocsPath(root, `${pathname}/`))) {
      send(response, 301, 'Moved Permanently', { location: `${pathname}/` });
      return;
    }
    send(response, 404, 'Not Found');
    return;
  }
  await sendFile(request, response, file);
}

async function sendFile(request: IncomingMessage, response: ServerResponse, file: string): Promise<void> {
  const info = await stat(file);
  response.writeHead(200, {
    'content-type':
      TYPES[extname(file)] ??
      (extname(file) === '' ? 'text/plain; charset=utf-8' : 'application/octet-stream'),
    'content-length': String(info.size),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
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
}): Promise<DocsServer> {
  const root = normalize(options.root);
  const sdkRoot = normalize(options.sdkRoot ?? SDK_DIST);
  const server: Server = createServer((request, response) => {
    handle(root, sdkRoot, request, response).catch(() => {
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
  return {
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
