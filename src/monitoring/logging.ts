// Logs: JSON lines (pino) when the output is not a terminal, short human lines (pino-pretty) when
// it is, or as LOG_FORMAT says. One line per request, written when its response is sent
// (src/monitoring/request-hooks.ts): Fastify's own two lines per request are turned off in app.ts.
import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.js';

/** Never logged: the API key and the idempotency key of a request. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["idempotency-key"]'];

/** An API key anywhere in a text, also percent-encoded (`svc%5Fsk%5F...`). */
const API_KEY_TEXT = /svc(?:_|%5f)sk(?:_|%5f)[A-Za-z0-9_%-]+/gi;
/** The value of a query parameter named like a secret: `api_key=`, `token=`, `X-Api-Key=`... */
const SECRET_PARAMETER = /([?&;][^=&#;]*(?:key|token|secret|passw|signature|auth)[^=&#;]*=)[^&#;]*/gi;

/**
 * A text (a URL, a message) with every key-looking value masked: a key sent in a query string
 * (`?api_key=svc_sk_...`) or a path is never written to a log line.
 */
export function maskSecrets(text: string): string {
  // Nothing to mask without a query-like separator or "svc" (most request lines, every message).
  if (!MAYBE_SECRET.test(text)) return text;
  return text.replace(SECRET_PARAMETER, '$1***').replace(API_KEY_TEXT, 'svc_sk_***');
}

/** Where either pattern above could match: a separator of parameters, or "svc" in any case. */
const MAYBE_SECRET = /[?&;]|svc/i;

function maskedError(error: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(error);
  if (typeof serialized !== 'object' || serialized === null) return serialized;
  return {
    ...serialized,
    message: maskSecrets(String(serialized.message ?? '')),
    stack: maskSecrets(String(serialized.stack ?? '')),
  };
}

/** Every logger's masking of keys: URLs, messages and errors of every line. */
const MASKING = {
  formatters: {
    log(object: Record<string, unknown>): Record<string, unknown> {
      if (typeof object.url !== 'string') return object;
      const url = maskSecrets(object.url);
      // A copy only when something was masked: the same line either way.
      return url === object.url ? object : { ...object, url };
    },
  },
  serializers: {
    err: maskedError,
    // Fastify's own, with the URL masked.
    req(request: {
      method?: string;
      url?: string;
      host?: string;
      ip?: string;
      socket?: { remotePort?: number };
    }) {
      return {
        method: request.method,
        url: maskSecrets(String(request.url ?? '')),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      };
    },
  },
  hooks: {
    logMethod(this: unknown, args: unknown[], method: (...args: unknown[]) => void): void {
      // A copy of the arguments only when a string among them was masked.
      let masked: unknown[] | undefined;
      for (let index = 0; index < args.length; index++) {
        const arg = args[index];
        if (typeof arg !== 'string') continue;
        const text = maskSecrets(arg);
        if (text === arg) continue;
        masked ??= [...args];
        masked[index] = text;
      }
      method.apply(this, masked ?? args);
    },
  },
};

/** Fields of the request line that the human format shows in its message instead. */
const REQUEST_FIELDS = ['method', 'url', 'statusCode', 'responseTime'];

function humanRequestLine(log: Record<string, unknown>, messageKey: string): string {
  if (log.method === undefined || log.statusCode === undefined) return String(log[messageKey] ?? '');
  const ms = typeof log.responseTime === 'number' ? log.responseTime.toFixed(1) : '?';
  return `${log.method} ${log.url} ${log.statusCode} ${ms}ms`;
}

/** A stream writing short human lines to `destination` (a file descriptor: 1 stdout, 2 stderr). */
export function humanStream(destination: 1 | 2, colorize: boolean): NodeJS.WritableStream {
  return pretty({
    destination,
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', ...REQUEST_FIELDS].join(','),
    messageFormat: humanRequestLine,
  });
}

/** Lines gathered before a write (a busy server), and the longest a line waits (a quiet one). */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_INTERVAL_MS = 200;

/**
 * JSON lines written without blocking, gathered: a write goes out when LOG_BATCH_BYTES of lines
 * are waiting, or at the latest LOG_FLUSH_INTERVAL_MS after a line was logged (a write per request
 * line, even asynchronous, was 3% of a read's CPU; a synchronous one 4%). Pino flushes what is left
 * when the process exits.
 */
function jsonStream(destination: 1 | 2): NodeJS.WritableStream {
  return pino.destination({
    dest: destination,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    // sonic-boom's option, passed through (pino's types omit it)
    ...({ periodicFlush: LOG_FLUSH_INTERVAL_MS } as object),
  }) as unknown as NodeJS.WritableStream;
}

/**
 * The logger of the server: JSON or human lines on stdout, or on `stream` (`serve --json` sends
 * logs to stderr, keeping stdout for its ready line).
 */
export function loggerOptions(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  const destination: 1 | 2 = stream === process.stderr ? 2 : 1;
  const output = stream ?? process.stdout;
  const terminal = (output as { isTTY?: boolean }).isTTY === true;
  const human = config.logFormat === 'pretty' || (config.logFormat === 'auto' && terminal);
  const isStandard = stream === undefined || stream === process.stderr;
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, remove: true },
    ...MASKING,
    stream: !isStandard
      ? stream!
      : human
        ? humanStream(destination, terminal && !process.env.NO_COLOR)
        : jsonStream(destination),
  };
}
