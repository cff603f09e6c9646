// Turns every failure into the contract's answer: ApiError -> envelope; schema failures ->
// validation_failed / invalid_query_parameter; unreadable bodies -> validation_failed;
// anything else -> the framework's generic 500, logged, with nothing of its internals.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, envelopeOf } from '../errors.js';
import { bodyValidationError, queryValidationError } from './validation.js';

const UNREADABLE_BODY: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'O corpo do pedido excede o tamanho máximo permitido.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'O corpo deve ser JSON, enviado com Content-Type: application/json.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'O corpo do pedido é obrigatório.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'O comprimento do corpo não corresponde ao cabeçalho Content-Length.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'JSON mal formado.',
};

function toApiError(error: FastifyError): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    return error.validationContext === 'body'
      ? bodyValidationError(error.validation)
      : queryValidationError(error.validation);
  }
  const unreadable = error.code ? UNREADABLE_BODY[error.code] : undefined;
  if (unreadable) return new ApiError('validation_failed', { errors: { body: [unreadable] } });
  return null;
}

export function sendApiError(reply: FastifyReply, request: FastifyRequest, error: ApiError, docsUrl: string) {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .send(envelopeOf(error, docsUrl, String(request.id)));
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError) {
      if (apiError.statusCode >= 500) request.log.error({ err: error }, 'api error');
      return sendApiError(reply, request, apiError, app.config.docsUrl);
    }
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'internal error');
    // The framework's own generic shape, never the error's message or stack.
    const body = {
      statusCode: status,
      error: status === 500 ? 'Internal Server Error' : 'Bad Request',
      message: status === 500 ? 'Internal Server Error' : 'Bad Request',
    };
    return reply.code(status).serializer(JSON.stringify).type('application/json; charset=utf-8').send(body);
  });
}
