// `serve`: the API server. On the embedded PGlite database it first locks DATA_DIR (one process
// only may open it), then also listens on the admin socket so that CLI commands run inside this
// process; everything is released on shutdown. A fresh embedded database gets the demo company.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { type DatabaseHandle, openDatabase } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { companies } from '../db/schema.js';
import { storageTargetOf } from '../db/target.js';
import { type DocsOutcome, startDocs } from '../docs/index.js';
import { OperationError } from '../operations/errors.js';
import { executeOperation, type OperationContext } from '../operations/index.js';
import { type RunningServer, startServer } from '../server.js';
import { type AdminServer, startAdminServer } from './admin-socket.js';
import { curlLine } from './commands.js';
import { type DataDirLock, describeOwner, tryAcquireLock } from './lock.js';
import { apiBaseUrl, publicBaseUrl } from './urls.js';

const LOCK_WAIT_MS = 30_000;

export interface ServeOptions {
  json: boolean;
  /** PostgreSQL: create the demo company when the database has no company. */
  demo: boolean;
}

async function lockForServer(dataDir: string): Promise<DataDirLock> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const attempt = tryAcquireLock(dataDir, 'serve');
    if (attempt.acquired) return attempt.lock;
    // Another server: refuse at once. A command running directly on the directory: wait for it.
    if (attempt.owner?.role === 'serve' || Date.now() >= deadline) {
      throw new OperationError(
        `the embedded database in ${dataDir} is already in use by ${describeOwner(attempt.owner)}; stop it first or use another DATA_DIR`,
      );
    }
    await sleep(200);
  }
}

interface DemoResult {
  company: { id: number; name: string };
  live_key: { key: string };
  test_key: { key: string };
}

function banner(lines: string[]): string {
  const rule = '='.repeat(78);
  return `\n${rule}\n${lines.join('\n')}\n${rule}\n\n`;
}

export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const embedded = !config.databaseUrl;
  const lock = embedded ? await lockForServer(config.dataDir) : null;
  let admin: AdminServer | null = null;
  let handle: DatabaseHandle | null = null;
  let running: RunningServer | null = null;
  let docsStarting: Promise<DocsOutcome> | null = null;
  let released: Promise<void> | null = null;
  const release = () => {
    released ??= (async () => {
      try {
        await (await docsStarting)?.server?.close();
        await admin?.close();
        await handle?.close();
      } finally {
        lock?.release();
      }
    })();
    return released;
  };
  try {
    handle = await openDatabase(storageTargetOf(config, 10));
    await runMigrations(handle);
    const context: OperationContext = { db: handle.db, handle, timeZone: config.timeZone };

    let demo: DemoResult | null = null;
    if (embedded || options.demo) {
      const [anyCompany] = await handle.db.select({ id: companies.id }).from(companies).limit(1);
      if (!anyCompany) demo = (await executeOperation(context, 'demo', {})) as DemoResult;
    }

    // The docs site (built if needed) starts alongside the API, on its own port.
    docsStarting = startDocs(config);
    running = await startServer(config, {
      database: handle,
      onStop: release,
      ...(options.json ? { logStream: process.stderr } : {}),
    });
    if (embedded) {
      admin = await startAdminServer(
        config.dataDir,
        (name, args) => executeOperation(context, name, args),
        running.app.log,
      );
    }

    const docs = await docsStarting;
    const address = running.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const baseUrl = publicBaseUrl(config.host, port);
    const apiUrl = apiBaseUrl(config.host, port);
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({
          url: baseUrl,
          api_base_url: apiUrl,
          pid: process.pid,
          storage: handle.description,
          admin_socket: admin?.path ?? null,
          docs_url: docs.server ? `${docs.server.url}/` : null,
          demo,
        })}\n`,
      );
      return;
    }
    const lines = [
      `  Partner API v1 listening on ${apiUrl}`,
      `  Storage: ${handle.description}${admin ? ` (admin socket ${admin.path})` : ''}`,
      docs.server
        ? `  Docs: ${docs.server.url}/ (guide PT/EN, errors, reference); doc_url base ${config.docsUrl}`
        : `  Docs: not served (${docs.problem}); doc_url base ${config.docsUrl}`,
      '',
    ];
    if (demo) {
      lines.push(
        `  First start: demo company ${demo.company.id} created (${demo.company.name}).`,
        `    live key (all scopes): ${demo.live_key.key}`,
        `    test key (read only):  ${demo.test_key.key}`,
        '  These keys are shown only now: store them.',
        '',
        '  Try it:',
        `    ${curlLine(demo.live_key.key, apiUrl)}`,
      );
    } else {
      lines.push(
        '  API keys are shown only when created. To get one:',
        '    bin/invoicing companies list',
        '    bin/invoicing companies enable-api ID',
        '    bin/invoicing keys create --company ID --mode live --scopes all',
        '  then:',
        `    ${curlLine('<key>', apiUrl)}`,
      );
    }
    process.stdout.write(banner(lines));
  } catch (error) {
    await (running ? running.stop() : release()).catch(() => {});
    throw error;
  }
}
