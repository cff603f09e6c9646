// Step 10, after the path id: the query string, then the body. Every route is registered with
// `attachValidation` (src/http/pipeline.ts), so a schema failure lands here instead of ending the
// request at once: a bad query is one `invalid_query_parameter`; a bad body also gets the route's
// own rules (`config.bodyRules`) judged on it, so the single 422 names every problem. A body that
// passes its schema goes on to the handler, whose service applies the same own rules in its
// transaction.
import type { FastifyRequest } from 'fastify';
import { addFieldError, type FieldErrors, validationFailed } from '../errors.js';
import { assertReadableBody } from './body.js';
import { contextOf, isWriteMethod } from './request-state.js';
import {
  bodyFieldErrors,
  bodyTextProblems,
  queryValidationError,
  type SchemaError,
  withoutBadText,
} from './validation.js';

type ValidationFailure = Error & { validation?: SchemaError[]; validationContext?: string };

function failureOf(request: FastifyRequest): ValidationFailure | undefined {
  return request.validationError as ValidationFailure | undefined;
}

export async function checkQuery(request: FastifyRequest): Promise<void> {
  const failure = failureOf(request);
  if (failure?.validation && failure.validationContext === 'querystring') {
    throw queryValidationError(failure.validation);
  }
}

export async function checkBody(request: FastifyRequest): Promise<void> {
  if (isWriteMethod(request.method)) assertReadableBody(request);
  const failure = failureOf(request);
  if (failure && (!failure.validation || failure.validationContext !== 'body')) throw failure;
  // Text the database cannot store (NUL, a lone surrogate) is refused even where the schema
  // would take any string.
  const textErrors = bodyTextProblems(request.body);
  if (!failure && Object.keys(textErrors).length === 0) return;
  const errors: FieldErrors = failure?.validation ? bodyFieldErrors(failure.validation) : Object.create(null);
  for (const [path, messages] of Object.entries(textErrors)) {
    for (const message of messages) addFieldError(errors, path, message);
  }
  const bodyRules = request.routeOptions.config.bodyRules;
  if (bodyRules) {
    // The own rules may query the database: they see the body without the refused text.
    const own = await bodyRules(contextOf(request), withoutBadText(request.body), request.resourceId);
    // A field the schema already refuses keeps just that message.
    for (const [path, messages] of Object.entries(own)) {
      if (errors[path]) continue;
      for (const message of messages) addFieldError(errors, path, message);
    }
  }
  throw validationFailed(errors);
}
