// Bodies are read as text so idempotency can compare the raw bytes. A body that is not JSON
// (malformed, empty, another content type) is not refused here: the refusal is a
// `validation_failed` that comes after the idempotency step, in the order of decisions.md.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors.js';

export function registerBodyParsers(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('bodyProblem', undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    try {
      done(null, JSON.parse(text));
    } catch {
      request.bodyProblem = 'JSON mal formado.';
      done(null, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    request.bodyProblem = 'O corpo deve ser JSON, enviado com Content-Type: application/json.';
    done(null, undefined);
  });
}

/** Step 10 of the pipeline for bodies that could not be read at all. */
export function assertReadableBody(request: FastifyRequest): void {
  if (request.bodyProblem !== undefined) {
    throw new ApiError(ErrorCode.ValidationFailed, { errors: { body: [request.bodyProblem] } });
  }
  if (request.rawBody === undefined) {
    throw new ApiError(ErrorCode.ValidationFailed, {
      errors: { body: ['O corpo do pedido é obrigatório (JSON, Content-Type: application/json).'] },
    });
  }
}
