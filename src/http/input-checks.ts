// Step 10, after the path id: the query string (first any parameter the route does not take),
// then the body. Every route is registered with
// `attachValidation` (src/http/pipeline.ts), so a schema failure lands here instead of ending the
// request at once: a bad query is one `invalid_query_parameter`; a bad body also gets the route's
// own rules (`config.bodyRules`) judged on it, so the single 422 names every problem. A body that
// passes its schema goes on to the handler, whose service applies the same own rules in its
// transaction.
import type { FastifyRequest } from 'fastify';
import { ApiError, addFieldError, attachedHint, type FieldErrors, validationFailed } from '../errors.js';
import { assertReadableBody } from './body.js';
import { contextOf, isWriteMethod, stateOf } from './request-state.js';
import {
  bodyFieldErrors,
  bodyTextProblems,
  missingOnlyPaths,
  queryValidationError,
  type SchemaError,
  withoutBadText,
} from './validation.js';

type ValidationFailure = Error & { validation?: SchemaError[]; validationContext?: string };

function failureOf(request: FastifyRequest): ValidationFailure | undefined {
  return request.validationError as ValidationFailure | undefined;
}

/** The parameters a route's query schema declares (none for a route without one), computed once. */
const parameterNames = new WeakMap<object, readonly string[]>();
const NO_PARAMETERS: readonly string[] = [];

function routeParameters(request: FastifyRequest): readonly string[] {
  const schema = request.routeOptions.schema?.querystring as { properties?: object } | undefined;
  if (!schema) return NO_PARAMETERS;
  let names = parameterNames.get(schema);
  if (!names) {
    names = Object.keys(schema.properties ?? {});
    parameterNames.set(schema, names);
  }
  return names;
}

/** Longest part of an unknown parameter's name repeated in the answer. */
const SHOWN_NAME_LENGTH = 100;

function shownName(name: string): string {
  return name.length > SHOWN_NAME_LENGTH ? `${name.slice(0, SHOWN_NAME_LENGTH)}…` : name;
}

/**
 * decisions.md, lists: an unknown query parameter is `invalid_query_parameter` naming it, the
 * hint listing the route's parameters (a typo such as `stauts=paid` must never silently return
 * every invoice). A route without query parameters takes none.
 */
function unknownParameterError(request: FastifyRequest): ApiError | null {
  const query = request.query;
  if (typeof query !== 'object' || query === null) return null;
  const known = routeParameters(request);
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length === 0) return null;
  const names = unknown.map((name) => `"${shownName(name)}"`).join(', ');
  return new ApiError('invalid_query_parameter', {
    message:
      unknown.length === 1
        ? `O parâmetro de consulta ${names} não existe neste pedido.`
        : `Os parâmetros de consulta ${names} não existem neste pedido.`,
    hint:
      known.length > 0
        ? `Parâmetros deste pedido: ${known.join(', ')}.`
        : 'Este pedido não aceita parâmetros de consulta.',
  });
}

/** One 422 names every problem of the query: unknown parameters first, then bad values. */
export function checkQuery(request: FastifyRequest): void {
  const unknown = unknownParameterError(request);
  const failure = failureOf(request);
  const bad =
    failure?.validation && failure.validationContext === 'querystring'
      ? queryValidationError(failure.validation)
      : null;
  if (unknown && bad) {
    throw new ApiError('invalid_query_parameter', {
      message: `${unknown.message} ${bad.message}`,
      hint: `${unknown.hint} ${bad.hint}`,
    });
  }
  if (unknown ?? bad) throw unknown ?? bad;
}

/** Synchronous for a body that passes (and for none); the route's own rules may take a query. */
export function checkBody(request: FastifyRequest): undefined | Promise<never> {
  if (isWriteMethod(request.method)) assertReadableBody(request);
  const failure = failureOf(request);
  if (failure && (!failure.validation || failure.validationContext !== 'body')) throw failure;
  // Text the database cannot store (NUL, a lone surrogate) is refused even where the schema
  // would take any string.
  const textErrors = bodyTextProblems(request.body);
  if (!failure && Object.keys(textErrors).length === 0) return undefined;
  return refuseBody(request, failure, textErrors);
}

async function refuseBody(
  request: FastifyRequest,
  failure: ValidationFailure | undefined,
  textErrors: FieldErrors,
): Promise<never> {
  const errors: FieldErrors = failure?.validation ? bodyFieldErrors(failure.validation) : Object.create(null);
  for (const [path, messages] of Object.entries(textErrors)) {
    for (const message of messages) addFieldError(errors, path, message);
  }
  const bodyRules = request.routeOptions.config.bodyRules;
  let hint: string | undefined;
  if (bodyRules) {
    // The own rules may query the database: they see the body without the refused text.
    const { resourceId } = stateOf(request);
    const own = await bodyRules(contextOf(request), withoutBadText(request.body), resourceId);
    hint = attachedHint(own);
    const missing = failure?.validation
      ? missingOnlyPaths(failure.validation, request.body)
      : new Set<string>();
    for (const [path, messages] of Object.entries(own)) {
      // A field the schema already refuses keeps just that message, unless it is merely missing:
      // then the own rule says why it is needed (a line's product_id).
      if (missing.has(path)) errors[path] = [];
      else if (errors[path]) continue;
      for (const message of messages) addFieldError(errors, path, message);
    }
  }
  throw validationFailed(errors, hint);
}
