// Logs: JSON lines (pino) when the output is not a terminal, short human lines (pino-pretty) when
// it is, or as LOG_FORMAT says. One line per request, written when its response is sent
// (src/ops/request-hooks.ts): Fastify's own two lines per request are turned off in app.ts.
import type { FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';
import type { Config } from '../config.js';

/** Never logged: the API key and the idempotency key of a request. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["idempotency-key"]'];

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
    ...(human && isStandard
      ? { stream: humanStream(destination, terminal && !process.env.NO_COLOR) }
      : stream
        ? { stream }
        : {}),
  };
}
