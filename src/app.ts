// Builds the whole service. The server, the tests and the command line all call buildApp with
// the same options; nothing here listens on a port.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { API_PREFIX } from './app-constants.js';
import type { Config } from './config.js';
import { customerRoutes } from './customers/routes.js';
import { type DatabaseHandle, openDatabase } from './db/client.js';
import { redisKeyPrefix } from './db/installation.js';
import { runMigrations } from './db/migrate.js';
import { storageTargetOf } from './db/target.js';
import { registerCompression } from './http/compression.js';
import { DEPRECATIONS, type DeprecatedItem, installDeprecations } from './http/deprecation.js';
import { answerClientError, registerErrorHandler } from './http/error-handler.js';
import { pruneExpiredKeys } from './http/idempotency.js';
import { decodableUrl, MAX_PARAM_LENGTH } from './http/path-id.js';
import { installPipeline } from './http/pipeline.js';
import { createRateLimiter, type RateLimiter } from './http/rate-limit/index.js';
import { newRequestId } from './http/request-id.js';
import { compileValidator } from './http/validation.js';
import { type InstanceSync, startInstanceSync } from './instances/sync.js';
import { invoiceRoutes } from './invoices/routes.js';
import { createKeyCache } from './keys/key-cache.js';
import { createListMemory } from './lists/memory.js';
import { loggerOptions } from './monitoring/logging.js';
import { installRequestObservation } from './monitoring/request-hooks.js';
import { registerOpenApi } from './openapi.js';
import { paymentRoutes } from './payments/routes.js';
import { pingRoutes } from './ping/routes.js';
import { productRoutes } from './products/routes.js';
import { createRequestLog } from './request-log/writer.js';
import { REQUEST_TIMEOUT_MS, SERVER_TIMEOUT_OPTIONS } from './server-timeouts.js';
import { installTracing } from './tracing/fastify.js';
import type { Tracing } from './tracing/tracing.js';

export { API_PREFIX };

export interface AppOptions {
  config: Config;
  /** An already open database; otherwise one is opened from `config` (and closed with the app). */
  database?: DatabaseHandle;
  /** A rate limiter to use; otherwise one is built from `config` (and closed with the app). */
  rateLimiter?: RateLimiter;
  /** Pino logger options, or false to silence logs (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Where the default logger writes instead of stdout (`serve --json` keeps stdout for its ready line). */
  logStream?: NodeJS.WritableStream;
  /** The request log's clock (epoch milliseconds), Date.now by default: tests move it. */
  clock?: () => number;
  /** The deprecated routes, parameters and fields: DEPRECATIONS (none in v1) unless a test marks its own. */
  deprecations?: readonly DeprecatedItem[];
  /** Tracing, when `serve` started it (src/tracing/start.ts); without it no span is made. */
  tracing?: Tracing | null;
}

export type App = FastifyInstance;

export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config, options.logStream),
    // One log line per request, written by src/monitoring/request-hooks.ts (Fastify's own are two).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: newRequestId,
    // An unreadable request (431 headers too large, ...) also closes its keep-alive connection.
    clientErrorHandler(error, socket) {
      answerClientError.call(this as unknown as FastifyInstance, error, socket, newRequestId());
    },
    requestIdHeader: false,
    // While the server closes, a request that reached it is answered (with `Connection: close`),
    // never refused with a bare 503: the load balancer stopped sending during the drain (src/cli/shutdown.ts).
    return503OnClosing: false,
    // Fastify accepts a hop count too, though its types omit it.
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    bodyLimit: config.bodyLimit,
    // headersTimeout 10 s, requestTimeout 300 s (a full 1 MiB body from a till on a slow link):
    // src/server-timeouts.ts says why.
    http: SERVER_TIMEOUT_OPTIONS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    exposeHeadRoutes: false,
    // A malformed or very long path id is the path-id step's 404, not the router's 400 or 414.
    rewriteUrl: (request) => decodableUrl(request.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // First, so that every route and hook after it is inside the request's server span.
  if (options.tracing) await installTracing(app, options.tracing);

  const database = options.database ?? (await openDatabase(storageTargetOf(config)));
  if (!options.database) await runMigrations(database);
  const rateLimiter =
    options.rateLimiter ??
    createRateLimiter(config, app.log, {
      keyPrefix: await redisKeyPrefix(database.db, config.redisKeyPrefix),
    });
  // Nothing is answered before the limits can count where they are shared (bounded; see
  // src/http/rate-limit/): no instance lets a request through on a count of its own at start.
  await rateLimiter.ready();
  app.decorate('db', database.db);
  app.decorate('config', config);
  app.decorate('rateLimiter', rateLimiter);
  // Keys remembered are believed only while this instance is known to be up to date with every
  // change, which it acknowledges (src/instances/: an operator's change waits for that).
  let sync: InstanceSync | undefined;
  const keyCache = createKeyCache(database.db, {
    ttlMs: config.keyCacheTtlMs,
    trusted: () => sync?.trusted() ?? false,
  });
  app.decorate('keyCache', keyCache);
  app.decorate('listMemory', createListMemory());
  installDeprecations(app, options.deprecations ?? DEPRECATIONS);
  // Listening first: a change made while the instance registers is heard, or read by its heartbeat.
  const stopListening = await database.listen('api_keys_changed', (payload) =>
    sync ? sync.changed(payload) : keyCache.clear(),
  );
  sync = await startInstanceSync(database, {
    forget: () => keyCache.clear(),
    warn: (message) => app.log.warn(message),
  });
  const instanceSync = sync;
  app.addHook('onClose', async () => {
    await stopListening();
    await instanceSync.stop();
    if (!options.rateLimiter) await rateLimiter.close();
    if (!options.database) await database.close();
  });

  app.setValidatorCompiler(compileValidator);
  // Step 2 of the order of checks: every response, success or error, of any route (also the
  // framework's 404) carries the request id. Steps 3 to 10 are src/http/pipeline.ts.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  // Operations: one log line and the metrics of every response (src/monitoring/).
  installRequestObservation(app);
  registerErrorHandler(app);
  await registerOpenApi(app);
  pruneExpiredKeys(app);
  // The request log (src/request-log/): registered after the database's onClose, so it runs
  // before it (Fastify closes in reverse order): the last records are written on a graceful stop.
  const requestLog = createRequestLog(database.db, {
    clock: options.clock,
    log: app.log,
    recording: config.requestLog,
  });
  app.decorate('requestLog', requestLog);
  app.addHook('onClose', () => requestLog.close());

  await app.register(
    async (api) => {
      await registerCompression(api);
      installPipeline(api, { traced: Boolean(options.tracing) });
      await api.register(pingRoutes);
      await api.register(customerRoutes);
      await api.register(productRoutes);
      await api.register(invoiceRoutes);
      await api.register(paymentRoutes);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
