// Two validators: bodies are checked exactly as sent (no coercion, no removal of unknown fields,
// every problem reported at once); query strings and path parameters are text by nature, so
// there numbers and booleans are coerced from their text form.
//
// What the database cannot store or compare is refused here, before any query sees it: text with
// NUL (U+0000) or a lone UTF-16 surrogate, a year 0000, an offset beyond +-14:59, and numbers in a
// query string that are not plain decimal integers (Ajv's coercion would let "Infinity" through
// past minimum and maximum, and "1e20" or "0x10" are no way to write a page number).
import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { ApiError, addFieldError, type FieldErrors } from '../errors.js';
import { keepLiterals, rememberedLiteral } from '../json-numbers.js';
import { Decimal, decimalOfJson } from '../money.js';
import { isCalendarDate } from '../values.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Largest offset from UTC a timestamp may carry (PostgreSQL refuses more than 15:59). */
const MAX_OFFSET_HOURS = 14;

/** A date `YYYY-MM-DD` that exists in the calendar, years 0001 to 9999 (PostgreSQL has no year 0). */
export function isApiDate(value: string): boolean {
  return isCalendarDate(value);
}

/** ISO 8601 date (`2026-11-22`) or timestamp with optional offset (`2026-11-22T09:30:00+02:00`). */
export function isIsoDateOrTimestamp(value: string): boolean {
  const match =
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/.exec(
      value,
    );
  if (!match) return false;
  const [, date, hour, minute, second, offsetHours, offsetMinutes] = match;
  if (!isApiDate(date!)) return false;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59))
    return false;
  if (offsetHours !== undefined && (Number(offsetHours) > MAX_OFFSET_HOURS || Number(offsetMinutes) > 59))
    return false;
  return true;
}

// With the u flag a surrogate pair is one code point, so this matches only a lone surrogate.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why text cannot be stored as it is, or null: NUL, or a lone UTF-16 surrogate (not Unicode). */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'não pode conter o carácter NUL (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'contém um surrogate UTF-16 isolado (texto Unicode inválido)';
  return null;
}

/** Every string of a JSON body (at any depth) that cannot be stored, keyed by its dotted path. */
export function bodyTextProblems(body: unknown): FieldErrors {
  const errors: FieldErrors = Object.create(null);
  const visit = (value: unknown, path: string[]) => {
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) addFieldError(errors, path.length > 0 ? path.join('.') : 'body', problem);
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...path, String(index)]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  visit(body, []);
  return errors;
}

/**
 * The body without the strings `bodyTextProblems` names (for rules that query the database), its
 * numbers still with their own digits (src/json-numbers.ts).
 */
export function withoutBadText(value: unknown): unknown {
  if (typeof value === 'string') return textProblem(value) ? undefined : value;
  if (Array.isArray(value))
    return keepLiterals(
      value,
      value.map((item) => withoutBadText(item) ?? null),
    );
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) {
      const kept = withoutBadText(item);
      if (kept !== undefined) copy[key] = kept;
    }
    return keepLiterals(value, copy);
  }
  return value;
}

type Bound = 'maximum' | 'minimum' | 'exclusiveMaximum' | 'exclusiveMinimum';

const BOUND_HOLDS: Record<Bound, (value: Decimal, limit: Decimal) => boolean> = {
  maximum: (value, limit) => value.lte(limit),
  minimum: (value, limit) => value.gte(limit),
  exclusiveMaximum: (value, limit) => value.lt(limit),
  exclusiveMinimum: (value, limit) => value.gt(limit),
};
const DOUBLE_HOLDS: Record<Bound, (value: number, limit: number) => boolean> = {
  maximum: (value, limit) => value <= limit,
  minimum: (value, limit) => value >= limit,
  exclusiveMaximum: (value, limit) => value < limit,
  exclusiveMinimum: (value, limit) => value > limit,
};

/**
 * The bounds of a body's numbers, judged on the digits the body wrote them with
 * (src/json-numbers.ts) against the bound's own text: `9999999999999999.99` is below
 * `exclusiveMaximum: 1e16` though its nearest double is 1e16. A number written as the shortest
 * text of its double (nearly all) is compared as a number: for those both comparisons agree.
 */
function addExactBounds(ajv: Ajv): void {
  for (const keyword of Object.keys(BOUND_HOLDS) as Bound[]) {
    ajv.removeKeyword(keyword);
    const validate: SchemaValidateFunction = (limit: number, data: number, _schema, context) => {
      const literal = rememberedLiteral(context?.parentData, context?.parentDataProperty);
      const holds =
        literal === undefined
          ? DOUBLE_HOLDS[keyword](data, limit)
          : BOUND_HOLDS[keyword](decimalOfJson(literal), new Decimal(String(limit)));
      if (holds) return true;
      validate.errors = [{ keyword, message: `must be ${keyword} ${limit}`, params: { limit } }];
      return false;
    };
    ajv.addKeyword({ keyword, type: 'number', schemaType: 'number', errors: true, validate });
  }
}

function newAjv(options: ConstructorParameters<typeof Ajv>[0]): Ajv {
  const ajv = new Ajv({ strict: true, strictTypes: false, ...options });
  addFormats(ajv, ['date-time', 'email']);
  ajv.addFormat('date', { type: 'string', validate: isApiDate });
  ajv.addFormat('iso-date-or-time', { type: 'string', validate: isIsoDateOrTimestamp });
  // The decimal places a number may have, for readers of the document: the routes' own rules
  // judge them on the body's digits, each with its own message (never `multipleOf`, a float).
  ajv.addKeyword({ keyword: 'x-decimal-places', schemaType: 'number' });
  return ajv;
}

const bodyAjv = newAjv({
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: true,
});
addExactBounds(bodyAjv);
export const queryAjv = newAjv({
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  // Every bad parameter is named in the one 422 (issue 30), as a body's are.
  allErrors: true,
  verbose: true,
});

const INTEGER_TEXT = /^-?[0-9]+$/;
const NUMBER_TEXT = /^-?[0-9]+(?:\.[0-9]+)?$/;
const TEXT_HINT = 'Envie texto sem o carácter NUL (U+0000) e em Unicode válido (UTF-8).';

interface PropertySchema {
  type?: unknown;
  description?: string;
}

/** The query parameters whose text Ajv must not see (see the top of this file), as Ajv errors. */
function queryTextErrors(properties: Record<string, PropertySchema>, query: unknown): ErrorObject[] {
  if (typeof query !== 'object' || query === null) return [];
  const errors: ErrorObject[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const value = (query as Record<string, unknown>)[name];
    if (typeof value !== 'string') continue;
    const error = (keyword: string, message: string, parentSchema: object): ErrorObject => ({
      instancePath: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      schemaPath: `#/properties/${name}`,
      keyword,
      params: {},
      message,
      parentSchema,
    });
    if (textProblem(value)) errors.push(error('text', textProblem(value)!, { description: TEXT_HINT }));
    else if (property.type === 'integer' && !INTEGER_TEXT.test(value)) {
      errors.push(error('type', 'must be integer', property));
    } else if (property.type === 'number' && !NUMBER_TEXT.test(value)) {
      errors.push(error('type', 'must be number', property));
    }
  }
  return errors;
}

type QueryValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** A query-string validator: the plain-text checks above, then Ajv with coercion and defaults. */
function compileQueryValidator(schema: Record<string, unknown>): QueryValidator {
  const validate: ValidateFunction = queryAjv.compile(schema);
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const check: QueryValidator = (data) => {
    const textErrors = queryTextErrors(properties, data);
    const valid = validate(data) as boolean;
    if (textErrors.length === 0) {
      check.errors = validate.errors ?? null;
      return valid;
    }
    // Ajv's verdict on a parameter refused for its text is not used (it may take "Infinity").
    const refused = new Set(textErrors.map((error) => error.instancePath));
    const others = (validate.errors ?? []).filter((error) => !refused.has(error.instancePath));
    check.errors = [...textErrors, ...others];
    return false;
  };
  return check;
}

/** Fastify's validator compiler: bodies as sent; query strings and path parameters from text. */
export function compileValidator({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) {
  const plain = schema as Record<string, unknown>;
  if (httpPart === 'body') return bodyAjv.compile(plain);
  if (httpPart === 'querystring') return compileQueryValidator(plain);
  return queryAjv.compile(plain);
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function bodyErrorPath(error: ErrorObject | FastifySchemaValidationError): string {
  const base = (error.instancePath ?? '').split('/').slice(1).map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') base.push(String(params.missingProperty));
  if (error.keyword === 'additionalProperties') base.push(String(params.additionalProperty));
  return base.length > 0 ? base.join('.') : 'body';
}

function bodyErrorMessage(error: ErrorObject | FastifySchemaValidationError): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'é obrigatório';
    case 'additionalProperties':
      return 'campo não permitido';
    case 'type':
      return `deve ser do tipo ${params.type}`;
    case 'enum':
      return `deve ser um de: ${(params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'maxLength':
      return `deve ter no máximo ${params.limit} caracteres`;
    case 'minLength':
      return `deve ter pelo menos ${params.limit} caracteres`;
    case 'minimum':
      return `deve ser maior ou igual a ${params.limit}`;
    case 'maximum':
      return `deve ser menor ou igual a ${params.limit}`;
    case 'exclusiveMinimum':
      return `deve ser maior que ${params.limit}`;
    case 'exclusiveMaximum':
      return `deve ser menor que ${params.limit}`;
    case 'minItems':
      return `deve ter pelo menos ${params.limit} elementos`;
    case 'maxItems':
      return `deve ter no máximo ${params.limit} elementos`;
    case 'format':
      return params.format === 'date'
        ? 'deve ser uma data válida no formato YYYY-MM-DD'
        : `formato inválido (${params.format})`;
    default:
      return error.message ?? 'valor inválido';
  }
}

export type SchemaError = ErrorObject | FastifySchemaValidationError;

/** Ajv errors of a body -> every problem keyed by its dotted path. */
export function bodyFieldErrors(errors: readonly SchemaError[]): FieldErrors {
  // Field names are the caller's (an unknown field is named in the answer): a map without a
  // prototype, so `constructor`, `toString` or `__proto__` are plain keys like any other.
  const fieldErrors: FieldErrors = Object.create(null);
  for (const error of errors) addFieldError(fieldErrors, bodyErrorPath(error), bodyErrorMessage(error));
  return fieldErrors;
}

/** The value at an Ajv instance path of a body (undefined when there is none). */
function valueAt(body: unknown, instancePath: string): unknown {
  let value = body;
  for (const segment of instancePath.split('/').slice(1).map(unescapePointer)) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/**
 * Paths the schema reports only as missing (`required`, or a `null` where no null is allowed):
 * there a route's own rule, which knows why the field is needed, speaks instead of the generic
 * "é obrigatório" or "deve ser do tipo integer".
 */
export function missingOnlyPaths(errors: readonly SchemaError[], body: unknown): Set<string> {
  const missing = new Set<string>();
  const other = new Set<string>();
  for (const error of errors) {
    const absent =
      error.keyword === 'required' ||
      (error.keyword === 'type' && valueAt(body, error.instancePath ?? '') === null);
    (absent ? missing : other).add(bodyErrorPath(error));
  }
  for (const path of other) missing.delete(path);
  return missing;
}

/** Ajv errors of a body -> `validation_failed`. */
export function bodyValidationError(errors: readonly SchemaError[]): ApiError {
  return new ApiError('validation_failed', { errors: bodyFieldErrors(errors) });
}

/**
 * A body's check outside a route (an operation that takes the same body): the route's schema and
 * the route's 422, so both paths refuse alike.
 */
export function bodyChecker(schema: object): (body: unknown) => void {
  const validate = bodyAjv.compile(schema);
  return (body) => {
    if (!validate(body)) throw bodyValidationError(validate.errors ?? []);
  };
}

/** First Ajv error of a query string -> `invalid_query_parameter`, its hint listing the valid values. */
export function queryValidationError(
  errors: readonly (ErrorObject | FastifySchemaValidationError)[],
): ApiError {
  // Each bad parameter once (Ajv may report several keywords of one), with its own hint.
  const hints = new Map<string, string>();
  for (const error of errors) {
    const name = (error.instancePath ?? '').split('/').slice(1).map(unescapePointer).join('.') || 'query';
    if (hints.has(name)) continue;
    const schema = ((error as ErrorObject).parentSchema ?? {}) as { enum?: unknown[]; description?: string };
    hints.set(
      name,
      schema.enum
        ? `Valores válidos para "${name}": ${schema.enum.join(', ')}.`
        : (schema.description ?? 'Corrija o parâmetro indicado.'),
    );
  }
  const [only] = hints;
  if (hints.size <= 1) {
    const [name, hint] = only ?? ['query', 'Corrija o parâmetro indicado.'];
    return new ApiError('invalid_query_parameter', {
      message: `O parâmetro de consulta "${name}" tem um valor inválido.`,
      hint,
    });
  }
  const names = [...hints.keys()].map((name) => `"${name}"`);
  return new ApiError('invalid_query_parameter', {
    message: `Os parâmetros de consulta ${names.slice(0, -1).join(', ')} e ${names.at(-1)} têm valores inválidos.`,
    hint: [...hints]
      .map(([name, hint]) => (hint.includes(`"${name}"`) ? hint : `"${name}": ${hint}`))
      .join(' '),
  });
}
