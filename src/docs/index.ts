// What `serve` calls: the docs site built if needed, then served on DOCS_PORT. Docs are a help,
// not the service: when they cannot be built or the port is taken, the API runs anyway and the
// banner says why the docs are missing.
import type { Config } from '../config.js';
import { DOCS_DIST, ensureDocs } from './build.js';
import { type DocsServer, startDocsServer } from './server.js';

export interface DocsOutcome {
  server: DocsServer | null;
  /** Why there is no docs server (null when there is one). */
  problem: string | null;
}

export async function startDocs(config: Config): Promise<DocsOutcome> {
  if (config.docsPort === null) return { server: null, problem: 'DOCS_PORT=off' };
  try {
    await ensureDocs(config.docsUrl, DOCS_DIST);
  } catch (error) {
    return { server: null, problem: `building the docs failed: ${(error as Error).message}` };
  }
  try {
    const server = await startDocsServer({ root: DOCS_DIST, host: config.host, port: config.docsPort });
    return { server, problem: null };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      server: null,
      problem:
        code === 'EADDRINUSE'
          ? `port ${config.docsPort} is in use (set DOCS_PORT to another port, or off)`
          : (error as Error).message,
    };
  }
}
