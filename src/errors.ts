// The one place that knows the contract's 15 error codes, their HTTP status and default texts.
// Everything else throws `ApiError` with a wire code (`new ApiError('test_mode_read_only')`), so a
// grep for a code lands on the place that decides it; the error handler turns it into the envelope.
import { Type } from 'typebox';

/** The contract's 15 error codes, exactly as they travel on the wire. */
export const ERROR_CODES = [
  'invalid_api_key',
  'api_key_expired',
  'api_key_revoked',
  'partner_api_disabled',
  'browser_use_forbidden',
  'test_mode_read_only',
  'insufficient_scope',
  'resource_not_found',
  'invalid_query_parameter',
  'validation_failed',
  'idempotency_key_required',
  'idempotency_key_invalid',
  'idempotency_request_in_flight',
  'idempotency_key_reuse',
  'rate_limit_exceeded',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

interface ErrorDefinition {
  status: number;
  message: string;
  hint: string;
}

const DEFINITIONS: Record<ErrorCode, ErrorDefinition> = {
  invalid_api_key: {
    status: 401,
    message: 'Chave de API ausente, mal formada ou desconhecida.',
    hint: 'Envie o cabeçalho "Authorization: Bearer svc_sk_live_..." com uma chave válida.',
  },
  api_key_expired: {
    status: 401,
    message: 'A chave de API expirou.',
    hint: 'Peça ao suporte uma nova chave; a validade máxima é de 365 dias.',
  },
  api_key_revoked: {
    status: 401,
    message: 'A chave de API foi revogada.',
    hint: 'Peça ao suporte uma nova chave.',
  },
  partner_api_disabled: {
    status: 403,
    message: 'A API de parceiros não está activa para esta empresa.',
    hint: 'A empresa deve pedir ao suporte a activação da API de parceiros.',
  },
  browser_use_forbidden: {
    status: 403,
    message: 'A API de parceiros não pode ser usada a partir de um navegador.',
    hint: 'Chame a API a partir do seu servidor, sem o cabeçalho Origin; nunca exponha a chave num navegador.',
  },
  test_mode_read_only: {
    status: 403,
    message: 'Chaves de teste só podem fazer pedidos GET.',
    hint: 'Use uma chave svc_sk_live_ para criar ou alterar dados.',
  },
  insufficient_scope: {
    status: 403,
    message: 'A chave de API não tem a permissão necessária para este pedido.',
    hint: 'Peça ao suporte uma chave com a permissão necessária.',
  },
  resource_not_found: {
    status: 404,
    message: 'O recurso pedido não existe.',
    hint: 'Verifique o identificador; só são visíveis os recursos da empresa da chave.',
  },
  invalid_query_parameter: {
    status: 422,
    message: 'Parâmetro de consulta inválido.',
    hint: 'Corrija o parâmetro indicado.',
  },
  validation_failed: {
    status: 422,
    message: 'O corpo do pedido não é válido.',
    hint: 'Corrija os campos indicados em "errors"; nada foi criado e a mesma Idempotency-Key pode ser reutilizada.',
  },
  idempotency_key_required: {
    status: 400,
    message: 'O cabeçalho Idempotency-Key é obrigatório em pedidos POST e PUT.',
    hint: 'Envie um Idempotency-Key único por operação, por exemplo um UUID.',
  },
  idempotency_key_invalid: {
    status: 400,
    message: 'O cabeçalho Idempotency-Key não é válido.',
    hint: 'Use entre 8 e 191 caracteres: letras, dígitos, ".", "_", ":" ou "-".',
  },
  idempotency_request_in_flight: {
    status: 409,
    message: 'Um pedido com esta Idempotency-Key ainda está em curso.',
    hint: 'Repita o mesmo pedido com a mesma chave depois do tempo indicado em Retry-After.',
  },
  idempotency_key_reuse: {
    status: 409,
    message: 'Esta Idempotency-Key já foi usada com um pedido diferente.',
    hint: 'Use uma nova Idempotency-Key para um pedido diferente; o corpo é comparado byte a byte.',
  },
  rate_limit_exceeded: {
    status: 429,
    message: 'Limite de pedidos excedido.',
    hint: 'Aguarde os segundos indicados em Retry-After e tente de novo, com recuo exponencial.',
  },
};

/** Where a FieldErrors map keeps the hint attached to it: a symbol, so never a field path. */
const ATTACHED_HINT: unique symbol = Symbol('attached hint');

/**
 * Dotted field path -> messages; and the hint a rule attached for the whole 422 (a symbol key:
 * neither serialized nor listed with the paths).
 */
export type FieldErrors = Record<string, string[]> & { [ATTACHED_HINT]?: string };

export interface ApiErrorOptions {
  message?: string;
  hint?: string;
  /** Only for `validation_failed`: dotted field path -> messages. */
  errors?: FieldErrors;
  /** Extra response headers (Retry-After, X-RateLimit-*). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly hint: string;
  readonly errors: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const definition = DEFINITIONS[code];
    super(options.message ?? definition.message);
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = definition.status;
    this.hint = options.hint ?? definition.hint;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export function defaultHint(code: ErrorCode): string {
  return DEFINITIONS[code].hint;
}

// A rule that refuses a field may also have a better hint for the whole 422 (a refused `tax_id`:
// the taxes the company may use). It rides with the FieldErrors it was found in, so the one 422
// gets it whichever path builds it (the service, or src/http/input-checks.ts after a schema failure).

/** Attaches the 422's hint to a FieldErrors map (the last one attached wins). */
export function attachHint(errors: FieldErrors, hint: string): void {
  errors[ATTACHED_HINT] = hint;
}

export function attachedHint(errors: FieldErrors): string | undefined {
  return errors[ATTACHED_HINT];
}

/** The 422 of a body; its hint is the one attached to `errors`, if any, else the default. */
export function validationFailed(errors: FieldErrors, hint = errors[ATTACHED_HINT]): ApiError {
  return new ApiError('validation_failed', { errors, ...(hint === undefined ? {} : { hint }) });
}

export function notFound(): ApiError {
  return new ApiError('resource_not_found');
}

/** Adds a message for a field path to a FieldErrors map. */
export function addFieldError(errors: FieldErrors, path: string, message: string): void {
  const list = errors[path] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[path] = list;
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    hint: string;
    doc_url: string;
    request_id: string;
    errors?: FieldErrors;
  };
}

export function envelopeOf(error: ApiError, docsUrl: string, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      hint: error.hint,
      doc_url: `${docsUrl}/errors#${error.code}`,
      request_id: requestId,
      ...(error.errors ? { errors: error.errors } : {}),
    },
  };
}

/** Response schema of every API error, for serialization and the OpenAPI document. */
export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(ERROR_CODES.map((code) => Type.Literal(code))),
      message: Type.String(),
      hint: Type.String(),
      doc_url: Type.String(),
      request_id: Type.String(),
      errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Every API failure' },
);
