// Turns every failure into the contract's answer: ApiError -> envelope; schema failures ->
// validation_failed / invalid_query_parameter; unreadable bodies -> validation_failed; a bounded
// database wait that expired (lock, statement, pool) -> the framework's generic 503 with
// Retry-After; anything else -> the framework's generic 500, logged, with nothing of its internals.
// Logs name the failure (and the SQL text) but never a query's parameters: they are the caller's
// data, and logging them would let any key holder write whatever it likes into the error log.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeDatabaseError } from '../db/errors.js';
import { ApiError, envelopeOf } from '../errors.js';
import { bodyValidationError, queryValidationError } from './validation.js';

const UNREADABLE_BODY: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'O corpo deve ser JSON, enviado com Content-Type: application/json.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'O corpo do pedido é obrigatório.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'O comprimento do corpo não corresponde ao cabeçalho Content-Length.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'JSON mal formado.',
};

/** A size as people write it: `1 MiB`, `512 KiB`, or bytes. */
function sizeText(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= KIB && bytes % KIB === 0) return `${bytes / KIB} KiB`;
  return `${bytes} bytes`;
}
const KIB = 1024;
const MIB = 1024 * KIB;

/** A body over the limit: the 422 names the limit, so the partner knows how far to split. */
function tooLarge(limit: number): ApiError {
  return new ApiError('validation_failed', {
    errors: { body: [`O corpo do pedido excede o tamanho máximo de ${sizeText(limit)} (${limit} bytes).`] },
    hint: `Envie um corpo de no máximo ${sizeText(limit)}; por exemplo, divida uma factura muito grande em várias. Nada foi criado e a mesma Idempotency-Key pode ser reutilizada.`,
  });
}

function toApiError(error: FastifyError, bodyLimit: number): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge(bodyLimit);
  if (error.validation) {
    return error.validationContext === 'body'
      ? bodyValidationError(error.validation)
      : queryValidationError(error.validation);
  }
  const unreadable = error.code ? UNREADABLE_BODY[error.code] : undefined;
  if (unreadable) return new ApiError('validation_failed', { errors: { body: [unreadable] } });
  return null;
}

/** The contract's envelope of `error`; its code is recorded as the request's (the metrics, the logs). */
export function sendApiError(reply: FastifyReply, request: FastifyRequest, error: ApiError, docsUrl: string) {
  // (no state only outside the API's routes)
  if (request.state) request.state.errorCode = error.code;
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .send(envelopeOf(error, docsUrl, String(request.id)));
}

const MAX_LOGGED_TEXT = 500;
/** Seconds a client is asked to wait after a 503 (the database was busy past a bounded wait). */
const BUSY_RETRY_AFTER_SECONDS = '2';

function clip(text: unknown): string | undefined {
  if (text === undefined || text === null) return undefined;
  const value = String(text);
  return value.length > MAX_LOGGED_TEXT ? `${value.slice(0, MAX_LOGGED_TEXT)}...` : value;
}

/**
 * What a log line says about a failure: its type, code, message and stack, and for a failed
 * query its SQL text and the driver's error, without the query's parameters (drizzle puts them
 * in its message; they are left out here).
 */
export function loggableError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: clip(error) };
  const failed = error as Error & { query?: unknown; params?: unknown; code?: unknown; cause?: unknown };
  if (typeof failed.query === 'string' && Array.isArray(failed.params)) {
    return {
      type: error.name,
      query: clip(failed.query),
      cause: failed.cause === undefined ? undefined : loggableError(failed.cause),
    };
  }
  return {
    type: error.name,
    code: failed.code,
    message: clip(error.message),
    stack: error.stack,
    cause: failed.cause === undefined ? undefined : loggableError(failed.cause),
  };
}

function sendGeneric(reply: FastifyReply, status: number): FastifyReply {
  const text: Record<number, string> = {
    500: 'Internal Server Error',
    503: 'Service Unavailable',
  };
  // The framework's own generic shape, never the error's message or stack.
  const body = {
    statusCode: status,
    error: text[status] ?? 'Bad Request',
    message: text[status] ?? 'Bad Request',
  };
  return reply.code(status).serializer(JSON.stringify).type('application/json; charset=utf-8').send(body);
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request.routeOptions.bodyLimit ?? app.config.bodyLimit);
    if (apiError) {
      if (apiError.statusCode >= 500) request.log.error({ err: loggableError(error) }, 'api error');
      return sendApiError(reply, request, apiError, app.config.docsUrl);
    }
    const database = describeDatabaseError(error);
    if (database.retryable) {
      request.log.warn(
        { reason: database.label, err: loggableError(error) },
        `database ${database.kind}: ${database.reason}`,
      );
      return sendGeneric(reply.header('Retry-After', BUSY_RETRY_AFTER_SECONDS), 503);
    }
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: loggableError(error) }, 'internal error');
    return sendGeneric(reply, status);
  });
}

const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'Exceeded maximum allowed HTTP header size' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'Client Timeout' },
};

/**
 * A request the HTTP parser could not read (headers too large, a broken request line, too slow):
 * the framework's generic answer, written straight to the socket as there is no request, with
 * `Connection: close` because the connection is closed right after it. Without it a keep-alive
 * client would send its next request on this connection and get ECONNRESET.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
  requestId: string,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, message: 'Client Error' };
  const body = JSON.stringify({ statusCode: status, error: STATUS_CODES[status], message });
  this.log.debug({ err: loggableError(error), reqId: requestId }, `client error ${status}`);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
