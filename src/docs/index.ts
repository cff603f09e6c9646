// What `serve` calls: the docs site on DOCS_PORT. In a checkout (docs/site is there) it is built
// first when missing or stale, so that `npm ci && npm start` shows the docs; a runtime tree
// (deploy/build-runtime.sh: the image) has no sources and no build tools, and serves the files
// built with it, never building. Docs are a help, not the service: when they cannot be built or
// served, the API runs anyway and the banner says why the docs are missing. The client packages of
// /sdk/ are packed at their first request in a checkout (sdk-pack.ts), shipped in a runtime tree.
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { prepareSdk } from './sdk-pack.js';
import { type DocsServer, startDocsServer } from './server.js';
import { DOCS_DIST, DOCS_SOURCE, readStamp } from './site-files.js';

export interface DocsOutcome {
  server: DocsServer | null;
  /** Why there is no docs server (null when there is one). */
  problem: string | null;
  /** Its port was taken (since serve's check): the start stops, doc_url must not lead there. */
  listenError?: NodeJS.ErrnoException;
}

/** Builds the site in a checkout if needed; null when done, otherwise why there is no site. */
async function prepare(config: Config): Promise<string | null> {
  if (!existsSync(DOCS_SOURCE)) {
    return (await readStamp(DOCS_DIST))
      ? null
      : 'not built: this installation has neither docs/dist nor the docs sources (a runtime tree is made with its docs built)';
  }
  let build: typeof import('./build.js');
  try {
    build = await import('./build.js');
  } catch (error) {
    // A checkout installed without its development dependencies: what was built stays usable.
    if ((await readStamp(DOCS_DIST)) !== null) return null;
    return `not built, and building needs the development dependencies (npm ci): ${(error as Error).message}`;
  }
  try {
    await build.ensureDocs(config.docsUrl, DOCS_DIST);
    return null;
  } catch (error) {
    return `building the docs failed: ${(error as Error).message}`;
  }
}

export async function startDocs(config: Config): Promise<DocsOutcome> {
  if (config.docsPort === null) return { server: null, problem: 'DOCS_PORT=off' };
  const problem = await prepare(config);
  if (problem) return { server: null, problem };
  const stamp = await readStamp(DOCS_DIST);
  try {
    const server = await startDocsServer({
      root: DOCS_DIST,
      host: config.host,
      port: config.docsPort,
      baseUrl: config.docsUrl,
      prepareSdk,
      ...(stamp ? { builtFor: stamp.docs_url } : {}),
    });
    return { server, problem: null };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      server: null,
      ...(code ? { listenError: error as NodeJS.ErrnoException } : {}),
      problem:
        code === 'EADDRINUSE'
          ? `port ${config.docsPort} is in use (set DOCS_PORT to another port, or off)`
          : (error as Error).message,
    };
  }
}
