// `serve`: the API server. Before anything is created it checks that its ports are free and that
// DATA_DIR is what it should be (the configuration was checked before this module was loaded). On
// the embedded PGlite database it then locks DATA_DIR (one process only may open it), and also
// listens on the admin socket so that CLI commands run inside this process; with OPS_PORT it runs
// the monitoring server (health, readiness, metrics). A signal drains, then closes everything
// within a bound (src/cli/shutdown.ts); so does a start that fails halfway. The demo company is
// made only where a person asked for it (decisions.md, "Demo data"): `--demo` (what `npm start`
// passes), into a database without companies, never with NODE_ENV=production (the image, the
// systemd unit); it is created only once the server listens, so that its keys are always printed.
// Otherwise the banner says how to create a company and a key.
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { type ConsoleOutcome, startConsole } from '../console/index.js';
import { type DatabaseHandle, openDatabase } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { storageTargetOf } from '../db/target.js';
import { type DocsOutcome, startDocs } from '../docs/index.js';
import { translator, type UiLanguage } from '../i18n/catalog.js';
import { tell } from '../i18n/message.js';
import { type MonitoringServer, startMonitoringServer } from '../monitoring/server.js';
import { hasAnyCompany } from '../operations/companies.js';
import { OperationError } from '../operations/errors.js';
import {
  executeNamedOperation,
  executeOperation,
  type OperationResult,
  type OperationSetup,
} from '../operations/index.js';
import { type RunningServer, startServer } from '../server.js';
import { tracingSummary } from '../tracing/start.js';
import type { Tracing } from '../tracing/tracing.js';
import { startWebhookWorker, type WebhookWorker } from '../webhooks/worker.js';
import { type AdminServer, adminSocketPath, startAdminServer } from './admin-socket.js';
import { type DataDirLock, describeOwner, tryAcquireLock } from './lock.js';
import { checkPorts, listenProblem, prepareDataDir, StartRefused } from './preflight.js';
import { closeOnSignals, type ShutdownLogger } from './shutdown.js';
import { apiBaseUrl, curlLine, publicBaseUrl } from './urls.js';

const LOCK_WAIT_MS = 30_000;

export interface ServeOptions {
  json: boolean;
  /** Create the demo company when the database has no company (`--demo`; `npm start`). */
  demo: boolean;
  /** NODE_ENV=production: never a demo company, whatever was asked. */
  production: boolean;
  /** Who started it, for the audit record of the demo company (OS user or --actor). */
  actor: string;
  /** Tracing, when the OTEL_* variables asked for it (src/tracing/start.ts), started before this module loaded. */
  tracing?: Tracing | null;
  /** The language of the start banner (src/cli/language.ts). */
  language: UiLanguage;
}

async function lockForServer(dataDir: string): Promise<DataDirLock> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const attempt = tryAcquireLock(dataDir, 'serve');
    if (attempt.acquired) return attempt.lock;
    // Another server: refuse at once. A command running directly on the directory: wait for it.
    if (attempt.owner?.role === 'serve' || Date.now() >= deadline) {
      throw new OperationError({
        key: 'serve.busy',
        params: { dir: dataDir, owner: describeOwner(attempt.owner) },
      });
    }
    await sleep(200);
  }
}

function banner(lines: string[]): string {
  const rule = '='.repeat(78);
  return `\n${rule}\n${lines.join('\n')}\n${rule}\n\n`;
}

/** Listens, or says exactly why not (the port may have been taken since it was checked). */
async function listen(config: Config, options: Parameters<typeof startServer>[1]): Promise<RunningServer> {
  try {
    return await startServer(config, options);
  } catch (error) {
    const problem = listenProblem(error, 'PORT', config.host, config.port);
    throw problem ? new StartRefused(problem) : error;
  }
}

async function listenOps(
  config: Config,
  running: RunningServer,
  handle: DatabaseHandle,
): Promise<MonitoringServer> {
  try {
    return await startMonitoringServer(
      config,
      { handle, rateLimiter: running.app.rateLimiter },
      running.app.log,
    );
  } catch (error) {
    const problem = listenProblem(error, 'OPS_PORT', config.opsHost, config.opsPort ?? 0);
    throw problem ? new StartRefused(problem) : error;
  }
}

/** The API's logger once it exists (a signal may come during the start: then plain lines on stderr). */
function logOf(server: () => RunningServer | null): ShutdownLogger {
  const line = (level: string) => (object: object, message: string) => {
    const log = server()?.app.log;
    if (log) (log[level as 'info'] as (o: object, m: string) => void).call(log, object, message);
    else process.stderr.write(`${level}: ${message} ${JSON.stringify(object)}\n`);
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const embedded = !config.databaseUrl;
  await checkPorts(config);
  const dataDirNotice = embedded ? prepareDataDir(config.dataDir) : null;
  // Before anything starts: where the admin socket can be, or a refusal saying why.
  if (embedded) adminSocketPath(config.dataDir);
  if (dataDirNotice) process.stderr.write(`\n!!! ${tell(dataDirNotice, translator(options.language))}\n\n`);
  const lock = embedded ? await lockForServer(config.dataDir) : null;
  let admin: AdminServer | null = null;
  let ops: MonitoringServer | null = null;
  let handle: DatabaseHandle | null = null;
  let running: RunningServer | null = null;
  let webhooks: WebhookWorker | null = null;
  let docsStarting: Promise<DocsOutcome> | null = null;
  let consoleStarting: Promise<ConsoleOutcome> | null = null;
  // The worker's attempts may run on into the drain; abandoned (leases given back) halfway through the close.
  const webhookGraceMs = config.shutdown.drainMs + config.shutdown.timeoutMs / 2;
  const begin = () => {
    ops?.markStopping();
    running?.drain();
    void webhooks?.stop({ graceMs: webhookGraceMs });
  };
  let finished: Promise<void> | null = null;
  const finish = () => {
    finished ??= (async () => {
      try {
        // The API answers what it has received; operator commands and webhook attempts end.
        await Promise.all([
          running?.stop(),
          docsStarting?.then((docs) => docs.server?.close()),
          consoleStarting?.then((outcome) => outcome.server?.close()),
          admin?.close(),
          webhooks?.stop({ graceMs: webhookGraceMs }),
        ]);
        await ops?.close();
        await handle?.close();
        // The spans of the last requests and attempts are sent before the process ends.
        await options.tracing?.shutdown().catch(() => {});
      } finally {
        lock?.release();
      }
    })();
    return finished;
  };
  const shutdown = closeOnSignals(
    config.shutdown,
    logOf(() => running),
    { begin, finish },
  );
  try {
    const target = storageTargetOf(config, 10);
    // PostgreSQL's statements are traced by the pg instrumentation; PGlite's by the handle itself.
    const tracer = options.tracing?.tracer;
    handle = await openDatabase(target.kind === 'pglite' && tracer ? { ...target, tracer } : target);
    await runMigrations(handle);
    const setup: OperationSetup = {
      handle,
      timeZone: config.timeZone,
      webhooks: config.webhooks,
      runsIn: 'server',
    };

    // The docs site starts alongside the API, on its own port.
    docsStarting = startDocs(config);
    running = await listen(config, {
      database: handle,
      ...(options.json ? { logStream: process.stderr } : {}),
      tracing: options.tracing ?? null,
    });
    // The support console (src/console/): its own port, beside the docs.
    consoleStarting = startConsole(config, {
      handle,
      setup,
      production: options.production,
      logger: running.app.log,
    });
    // Webhook deliveries go out from every server process (src/webhooks/worker.ts).
    running.app.log.info(tracingSummary(process.env, Boolean(options.tracing)), 'tracing');
    webhooks = startWebhookWorker({ handle, config, log: running.app.log, tracer: tracer ?? null });
    if (config.opsPort !== undefined) ops = await listenOps(config, running, handle);
    const address = running.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const baseUrl = publicBaseUrl(config.host, port);
    const apiUrl = apiBaseUrl(config.host, port);
    if (embedded) {
      admin = await startAdminServer(
        config.dataDir,
        (name, args, actor) => executeNamedOperation(setup, name, args, actor),
        running.app.log,
        apiUrl,
      );
    }

    // A docs port taken since the check stops the start too, before a demo's keys are made.
    const docs = await docsStarting;
    if (docs.listenError && config.docsPort !== null) {
      const problem = listenProblem(docs.listenError, 'DOCS_PORT', config.host, config.docsPort);
      if (problem) throw new StartRefused(problem);
    }

    // Last, once everything listens: the keys of a demo company created now are always printed.
    let demo: OperationResult<'demo'> | null = null;
    const anyCompany = await hasAnyCompany(handle.db);
    if (!anyCompany && options.demo && !options.production) {
      // Decided again under a lock: of servers started together, one creates the demo.
      demo = await executeOperation(setup, 'demo', { if_empty: true }, options.actor);
    }

    const consoleOutcome = await consoleStarting;
    // With the demo, a demo administrator of the console (never in production: no demo there).
    const demoAdmin =
      demo && consoleOutcome.server
        ? await executeOperation(
            setup,
            'staff.create',
            { email: 'admin@demo.invalid', name: 'Administrador de demonstração', role: 'admin' },
            options.actor,
          )
        : null;
    const demoAdminLink =
      demoAdmin && consoleOutcome.server ? `${consoleOutcome.server.url}${demoAdmin.setup_path}` : null;
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({
          url: baseUrl,
          api_base_url: apiUrl,
          pid: process.pid,
          storage: handle.description,
          data_dir: embedded ? resolve(config.dataDir) : null,
          admin_socket: admin?.path ?? null,
          ops_url: ops?.url ?? null,
          data_dir_created: dataDirNotice !== null,
          docs_url: docs.server ? `${docs.server.url}/` : null,
          console_url: consoleOutcome.server ? `${consoleOutcome.server.url}/` : null,
          console_admin_setup_link: demoAdminLink,
          demo,
        })}\n`,
      );
      return;
    }
    const t = translator(options.language);
    const lines = [
      `  ${t('serve.listening', { url: apiUrl })}`,
      // Which database, so that an operator's commands can be pointed at the same one.
      embedded
        ? `  ${
            admin
              ? t('serve.storage_embedded_socket', { dir: resolve(config.dataDir), socket: admin.path })
              : t('serve.storage_embedded', { dir: resolve(config.dataDir) })
          }`
        : `  ${t('serve.storage_postgres', { storage: handle.description })}`,
      ...(ops ? [`  ${t('serve.operations', { url: ops.url })}`] : []),
      docs.server
        ? `  ${t('serve.docs', { url: `${docs.server.url}/`, base: config.docsUrl })}`
        : `  ${t('serve.docs_off', { problem: docs.problem ?? '', base: config.docsUrl })}`,
      consoleOutcome.server
        ? `  ${t(
            consoleOutcome.server.keySource === 'CONSOLE_SECRET_KEY'
              ? 'serve.console'
              : 'serve.console_dev_key',
            { url: `${consoleOutcome.server.url}/` },
          )}`
        : `  ${t('serve.console_off', { problem: consoleOutcome.problem ?? '' })}`,
      '',
    ];
    if (demo) {
      lines.push(
        `  ${t('serve.demo_created', { id: demo.company.id, name: demo.company.name })}`,
        `    ${t('cli.demo.live_key', { key: demo.live_key.key })}`,
        `    ${t('cli.demo.test_key', { key: demo.test_key.key })}`,
        `  ${t('serve.keys_once')}`,
        '',
        `  ${t('serve.try_it')}`,
        `    ${curlLine(demo.live_key.key, apiUrl)}`,
      );
      if (demoAdmin && demoAdminLink) {
        lines.push(
          '',
          `  ${t('serve.demo_admin', { email: demoAdmin.email })}`,
          `    ${demoAdminLink}`,
          `  ${t('serve.demo_admin_once', { id: demoAdmin.id })}`,
        );
      }
    } else {
      if (options.demo && options.production) lines.push(`  ${t('serve.demo_ignored')}`);
      lines.push(
        anyCompany ? `  ${t('serve.keys_when_created')}` : `  ${t('serve.no_company')}`,
        anyCompany
          ? '    bin/invoicing companies list'
          : '    bin/invoicing companies create --name "Empresa, Lda"',
        '    bin/invoicing companies enable-api ID',
        '    bin/invoicing keys create --company ID --mode live --scopes all',
        `  ${t('serve.then')}`,
        `    ${curlLine(t('serve.key_placeholder'), apiUrl)}`,
      );
    }
    process.stdout.write(banner(lines));
  } catch (error) {
    shutdown.uninstall();
    await finish().catch(() => {});
    throw error;
  }
}
