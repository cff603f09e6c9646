// Bodies are read as text so idempotency can compare the raw bytes. A body that is not JSON
// (malformed, empty, another content type) is not refused here: the refusal is a
// `validation_failed` at step 10, after the idempotency step, in the order of decisions.md.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

// Bytes that are not UTF-8 are refused rather than read as U+FFFD (what a lossy decoding would
// store in their place, silently). The BOM, if any, stays in the text, as JSON does not allow it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      request.rawBody = bytes.toString('utf8');
      request.bodyProblem = 'O corpo não é texto UTF-8 válido.';
      done(null, undefined);
      return;
    }
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

/** A write's body must at least be readable JSON before its schema is judged. */
export function assertReadableBody(request: FastifyRequest): void {
  if (request.bodyProblem !== undefined) {
    throw new ApiError('validation_failed', { errors: { body: [request.bodyProblem] } });
  }
  if (request.rawBody === undefined) {
    throw new ApiError('validation_failed', {
      errors: { body: ['O corpo do pedido é obrigatório (JSON, Content-Type: application/json).'] },
    });
  }
}
