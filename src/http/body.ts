// Bodies are read as text so idempotency can compare the raw bytes. A body that is not JSON
// (malformed, empty, nested too deep or holding too many values, another content type) is not
// refused here: the refusal is a `validation_failed` at step 10, after the idempotency step, in
// the order of decisions.md.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { parseJsonExact } from '../json-numbers.js';
import { stateOf } from './request-state.js';

/** Deepest nesting of arrays and objects a body may have (every body of this API needs 3). */
export const MAX_BODY_DEPTH = 32;
/**
 * Most values a body may hold: array elements and object members, counted by their separators
 * (an invoice of 200 lines needs about 1,700). It bounds the work of validation and the size of
 * the 422 that lists every problem.
 */
export const MAX_BODY_VALUES = 10_000;

/**
 * Why a JSON text is too deep or too large to be parsed and judged, or null. One pass over the
 * characters, outside strings, before the parse: so that no body, however nested (10,000 levels)
 * or however many keys it has, costs more than its bytes before it is refused, and no recursive
 * step after it (parse, validation, text checks) can run out of stack. Malformed text passes
 * here and is the parser's to refuse.
 */
export function bodyShapeProblem(text: string): string | null {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > MAX_BODY_DEPTH)
        return `O JSON tem mais de ${MAX_BODY_DEPTH} níveis de objectos ou listas.`;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth--;
    } else if (char === COMMA && ++values > MAX_BODY_VALUES) {
      return `O JSON tem mais de ${MAX_BODY_VALUES} valores.`;
    }
  }
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

// Bytes that are not UTF-8 are refused rather than read as U+FFFD (what a lossy decoding would
// store in their place, silently). The BOM, if any, stays in the text, as JSON does not allow it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const state = stateOf(request);
    const bytes = body as Buffer;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      state.rawBody = bytes.toString('utf8');
      state.bodyProblem = 'O corpo não é texto UTF-8 válido.';
      done(null, undefined);
      return;
    }
    state.rawBody = text;
    const shape = bodyShapeProblem(text);
    if (shape) {
      state.bodyProblem = shape;
      done(null, undefined);
      return;
    }
    try {
      // Every number keeps its own digits (src/json-numbers.ts): amounts never pass through a double.
      done(null, parseJsonExact(text));
    } catch {
      state.bodyProblem = 'JSON mal formado.';
      done(null, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const state = stateOf(request);
    state.rawBody = body as string;
    state.bodyProblem = 'O corpo deve ser JSON, enviado com Content-Type: application/json.';
    done(null, undefined);
  });
}

/** A write's body must at least be readable JSON before its schema is judged. */
export function assertReadableBody(request: FastifyRequest): void {
  const { bodyProblem, rawBody } = stateOf(request);
  if (bodyProblem !== undefined) {
    throw new ApiError('validation_failed', { errors: { body: [bodyProblem] } });
  }
  if (rawBody === undefined) {
    throw new ApiError('validation_failed', {
      errors: { body: ['O corpo do pedido é obrigatório (JSON, Content-Type: application/json).'] },
    });
  }
}
