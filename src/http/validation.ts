// Two validators: bodies are checked exactly as sent (no coercion, no removal of unknown fields,
// every problem reported at once); query strings and path parameters are text by nature, so
// there numbers and booleans are coerced from their text form.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { ApiError, addFieldError, type FieldErrors } from '../errors.js';
import { isCalendarDate } from '../values.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** ISO 8601 date (`2026-11-22`) or timestamp with optional offset (`2026-11-22T09:30:00+02:00`). */
export function isIsoDateOrTimestamp(value: string): boolean {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(
      value,
    );
  if (!match) return false;
  const [, year, month, day, hour, minute, second] = match;
  if (!isCalendarDate(`${year}-${month}-${day}`)) return false;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59))
    return false;
  return true;
}

function newAjv(options: ConstructorParameters<typeof Ajv>[0]): Ajv {
  const ajv = new Ajv({ strict: true, strictTypes: false, ...options });
  addFormats(ajv, ['date', 'date-time', 'email']);
  ajv.addFormat('iso-date-or-time', { type: 'string', validate: isIsoDateOrTimestamp });
  return ajv;
}

export const bodyAjv = newAjv({
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: true,
});
export const queryAjv = newAjv({
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  allErrors: false,
  verbose: true,
});

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
  const fieldErrors: FieldErrors = {};
  for (const error of errors) addFieldError(fieldErrors, bodyErrorPath(error), bodyErrorMessage(error));
  return fieldErrors;
}

/** Ajv errors of a body -> `validation_failed`. */
export function bodyValidationError(errors: readonly SchemaError[]): ApiError {
  return new ApiError('validation_failed', { errors: bodyFieldErrors(errors) });
}

/** First Ajv error of a query string -> `invalid_query_parameter`, its hint listing the valid values. */
export function queryValidationError(
  errors: readonly (ErrorObject | FastifySchemaValidationError)[],
): ApiError {
  const error = errors[0];
  const name = (error?.instancePath ?? '').split('/').slice(1).map(unescapePointer).join('.') || 'query';
  const schema = ((error as ErrorObject | undefined)?.parentSchema ?? {}) as {
    enum?: unknown[];
    description?: string;
  };
  const hint = schema.enum
    ? `Valores válidos para "${name}": ${schema.enum.join(', ')}.`
    : (schema.description ?? 'Corrija o parâmetro indicado.');
  return new ApiError('invalid_query_parameter', {
    message: `O parâmetro de consulta "${name}" tem um valor inválido.`,
    hint,
  });
}
