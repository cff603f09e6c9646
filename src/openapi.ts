// The published OpenAPI 3.1 document is generated from the very schemas that validate and
// serialize each route. @fastify/swagger only collects them: it adds no route, so the API keeps
// exactly its 14. `npm run openapi` writes openapi.json; a test keeps that file current, and the
// test suite checks every response it receives against it (test/helpers/conformance.ts).
//
// What the route schemas do not say by themselves is added here, from the modules that decide it,
// so nothing is written twice:
// - the error responses of each operation follow from the order of checks (src/http/pipeline.ts):
//   every route can fail authentication, limits and scope; writes also test mode and
//   idempotency; a path id gives 404; a query 422 invalid_query_parameter; a body 422
//   validation_failed. A route lists further codes of its own in `x-error-codes`. Each code gets
//   an example body built by src/errors.ts itself;
// - the headers (X-Request-Id, X-RateLimit-*, RateLimit-Policy, RateLimit, Retry-After,
//   Idempotency-Replay) and the
//   Idempotency-Key parameter of every POST and PUT;
// - the generic 500 and the retryable 503 (src/http/error-handler.ts) on every operation;
// - a schema with a `title` (a request body, an invoice line) becomes a named component.
import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { API_PREFIX } from './app-constants.js';
import { ApiError, ERROR_CODES, type ErrorCode, envelopeOf } from './errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from './http/idempotency.js';

type Json = Record<string, unknown>;

export const DOCUMENT_TAGS = [
  { name: 'ping', description: 'Verificar a chave: empresa, modo e permissões.' },
  { name: 'customers', description: 'Clientes da empresa da chave e clientes globais.' },
  {
    name: 'products',
    description: 'Produtos e serviços; uma escrita entra na sincronização do ponto de venda.',
  },
  { name: 'invoices', description: 'Facturas; a API cria apenas rascunhos.' },
  { name: 'payments', description: 'Recibos ligados a facturas da empresa (só leitura).' },
];

const EXAMPLE_REQUEST_ID = 'req_4f1c2a9b7d3e8f6a1b2c3d4e';

/** Codes every route can answer, in the order of the checks. */
function errorCodesOf(method: string, schema: Json): ErrorCode[] {
  const write = method === 'POST' || method === 'PUT';
  const codes: ErrorCode[] = [
    'browser_use_forbidden',
    'invalid_api_key',
    'api_key_expired',
    'api_key_revoked',
    'rate_limit_exceeded',
    'partner_api_disabled',
  ];
  if (write) codes.push('test_mode_read_only');
  codes.push('insufficient_scope');
  if (write) {
    codes.push(
      'idempotency_key_required',
      'idempotency_key_invalid',
      'idempotency_request_in_flight',
      'idempotency_key_reuse',
    );
  }
  if (schema.params) codes.push('resource_not_found');
  // Any route refuses a query parameter it does not take (src/http/input-checks.ts).
  codes.push('invalid_query_parameter');
  if (schema.body) codes.push('validation_failed');
  const own = (schema['x-error-codes'] as ErrorCode[] | undefined) ?? [];
  for (const code of own) if (!codes.includes(code)) codes.push(code);
  return codes;
}

const POLICY_ITEM = '"[a-z-]+";q=[0-9]+;w=[0-9]+';
const POLICY_PATTERN = `^${POLICY_ITEM}(, ${POLICY_ITEM})*$`;
const RATE_LIMIT_PATTERN = '^"[a-z-]+";r=[0-9]+;t=[0-9]+$';

const header = (description: string, schema: Json, example?: unknown) => ({
  description,
  schema: example === undefined ? schema : { ...schema, examples: [example] },
});

const HEADERS = {
  'X-Request-Id': header(
    'Identificador do pedido; igual a `error.request_id` num erro. Indique-o ao suporte.',
    { type: 'string' },
    EXAMPLE_REQUEST_ID,
  ),
  'X-RateLimit-Limit': header(
    'Tamanho do limite mais apertado neste momento (chave por minuto, escritas por minuto, por dia ou da empresa).',
    { type: 'integer', minimum: 1 },
    60,
  ),
  'X-RateLimit-Remaining': header(
    'Pedidos que ainda restam nesse limite.',
    { type: 'integer', minimum: 0 },
    59,
  ),
  'RateLimit-Policy': header(
    'Cada limite que contou este pedido, com a sua quota (`q`, pedidos) e janela (`w`, segundos), no formato do rascunho IETF RateLimit headers: ' +
      '`key-minute`, `key-day` e `company-minute` (e `key-writes-minute` num POST ou PUT) para uma chave válida; `ip-minute` para um pedido sem chave válida.',
    { type: 'string', pattern: POLICY_PATTERN },
    '"key-minute";q=60;w=60, "key-day";q=5000;w=86400, "company-minute";q=120;w=60',
  ),
  RateLimit: header(
    'O limite mais apertado desses (rascunho IETF): quantos pedidos ainda restam (`r`) e quantos segundos faltam para a sua janela recomeçar (`t`). ' +
      'Para espaçar os pedidos, sobretudo as escritas, antes de chegar a um 429.',
    { type: 'string', pattern: RATE_LIMIT_PATTERN },
    '"key-minute";r=59;t=60',
  ),
  'WWW-Authenticate': header(
    'Como enviar a chave (RFC 6750): `Bearer realm="partner-api"`, com `error="invalid_token"` quando foi enviada uma chave que não serve.',
    { type: 'string', pattern: '^Bearer realm="partner-api"(, error="invalid_token")?$' },
    'Bearer realm="partner-api", error="invalid_token"',
  ),
  'Retry-After': header('Segundos a esperar antes de repetir o pedido.', { type: 'integer', minimum: 1 }, 2),
  'Idempotency-Replay': header(
    'Presente (`true`) quando a resposta é a repetição guardada de um pedido anterior com a mesma Idempotency-Key.',
    { type: 'string', enum: ['true'] },
  ),
};
type HeaderName = keyof typeof HEADERS;

/** Headers of a response: `required` ones always come; the others only in some cases. */
function responseHeaders(required: HeaderName[], optional: HeaderName[] = []): Json {
  const headers: Json = {};
  for (const name of required) headers[name] = { ...HEADERS[name], required: true };
  for (const name of optional) headers[name] = HEADERS[name];
  return headers;
}

/** What every response of a request that some limit counted carries (src/http/rate-limit/). */
const DRAFT_HEADERS: HeaderName[] = ['RateLimit-Policy', 'RateLimit'];
const LIMIT_HEADERS: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', ...DRAFT_HEADERS];

/** Which headers an error of this status carries (see the order of checks). */
function errorHeaders(status: number, codes: ErrorCode[], write: boolean): Json {
  if (status === 429) return responseHeaders(['X-Request-Id', 'Retry-After', ...LIMIT_HEADERS]);
  // 401: the key is not known, so only the per-IP limit counted it.
  if (status === 401) return responseHeaders(['X-Request-Id', 'WWW-Authenticate', ...DRAFT_HEADERS]);
  const optional: HeaderName[] = [];
  if (codes.includes('idempotency_request_in_flight')) optional.push('Retry-After');
  // A 404 of a write is stored and replayed like a success.
  if (write && status === 404) optional.push('Idempotency-Replay');
  // 403 browser_use_forbidden comes before the key is looked up.
  if (status === 403) return responseHeaders(['X-Request-Id'], [...LIMIT_HEADERS, ...optional]);
  return responseHeaders(['X-Request-Id', ...LIMIT_HEADERS], optional);
}

function exampleFieldErrors(body: Json | undefined): Record<string, string[]> {
  const required = (body?.required as string[] | undefined) ?? [];
  if (required.includes('items')) return { 'items.0.price': ['é obrigatório'] };
  if (required[0]) return { [required[0]]: ['é obrigatório'] };
  return { email: ['formato inválido (email)'] };
}

function errorExample(code: ErrorCode, docsUrl: string, body: Json | undefined): Json {
  const error = new ApiError(code, code === 'validation_failed' ? { errors: exampleFieldErrors(body) } : {});
  return envelopeOf(error, docsUrl, EXAMPLE_REQUEST_ID) as unknown as Json;
}

function errorResponses(codes: ErrorCode[], write: boolean, docsUrl: string, body: Json | undefined): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = new ApiError(code).statusCode;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Json = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    // A write's 422 is validation_failed (with `errors`) or invalid_query_parameter.
    const schema = !statusCodes.includes('validation_failed')
      ? ref('Error')
      : statusCodes.length === 1
        ? ref('ValidationError')
        : { anyOf: [ref('ValidationError'), ref('Error')] };
    const examples: Json = {};
    for (const code of statusCodes) {
      const value = errorExample(code, docsUrl, body);
      examples[code] = { summary: (value.error as Json).message, value };
    }
    responses[String(status)] = {
      description: `Erro: ${statusCodes.map((code) => `\`${code}\``).join(', ')}. Veja o catálogo de erros em doc_url.`,
      headers: errorHeaders(status, statusCodes, write),
      content: {
        'application/json': {
          schema,
          examples,
        },
      },
    };
  }
  return responses;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Moves every inline schema with a `title` into components.schemas and refers to it. */
function hoistTitledSchemas(node: unknown, schemas: Json, inComponentRoot = false): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistTitledSchemas(item, schemas));
  if (!isObject(node)) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) {
    // Examples are data, not schemas: a `title` inside one is a field value.
    copy[key] = key === 'examples' || key === 'example' ? value : hoistTitledSchemas(value, schemas);
  }
  if (!inComponentRoot && typeof copy.title === 'string' && (copy.type !== undefined || copy.properties)) {
    const name = copy.title;
    const existing = schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(copy)) {
      throw new Error(`two different schemas are both titled ${name}`);
    }
    schemas[name] = copy;
    return { $ref: `#/components/schemas/${name}` };
  }
  return copy;
}

/**
 * The error envelope of src/errors.ts (the schema that serializes every failure), documented:
 * `Error` for any code, `ValidationError` for validation_failed, whose `errors` always comes.
 */
function errorComponent(envelope: Json, validation: boolean): Json {
  const error = (envelope.properties as Json).error as Json;
  const properties = { ...(error.properties as Json) };
  properties.code = validation
    ? { type: 'string', const: 'validation_failed' }
    : {
        type: 'string',
        enum: [...ERROR_CODES],
        description: 'O que aconteceu; decida sempre por este campo.',
      };
  properties.message = { type: 'string', description: 'Explicação para pessoas; o texto pode mudar.' };
  properties.hint = { type: 'string', description: 'O que fazer; o texto pode mudar.' };
  properties.doc_url = {
    type: 'string',
    format: 'uri',
    description: 'A entrada deste código no catálogo de erros.',
  };
  properties.request_id = { type: 'string', description: 'Igual ao cabeçalho X-Request-Id.' };
  properties.errors = {
    ...(properties.errors as Json),
    description: 'Só em validation_failed: caminho do campo (`items.0.price`, a partir de 0) -> mensagens.',
  };
  const required = [...(error.required as string[]), ...(validation ? ['errors'] : [])];
  return {
    type: 'object',
    description: validation
      ? 'validation_failed: o corpo não é válido; `errors` diz o que corrigir em cada campo. Nada foi criado.'
      : 'Toda a falha da API tem este envelope.',
    required: ['error'],
    properties: { error: { ...error, required, properties } },
  };
}

// The two generic answers of src/http/error-handler.ts (never the envelope, nothing of the cause):
// a 500 for an internal failure, a 503 with Retry-After when a bounded database wait expired
// (src/db/client.ts, databaseBusyReason). Their own schemas, whose `statusCode` is the status, so a
// typed client (openapi-typescript + openapi-fetch) tells them from the envelope by that field.
const GENERIC_HEADERS = responseHeaders(['X-Request-Id'], [...LIMIT_HEADERS]);
const GENERIC_TEXT = { 500: 'Internal Server Error', 503: 'Service Unavailable' } as const;

function genericExample(status: keyof typeof GENERIC_TEXT): Json {
  return { statusCode: status, error: GENERIC_TEXT[status], message: GENERIC_TEXT[status] };
}

const INTERNAL_ERROR = {
  description:
    'Falha interna: a resposta genérica do servidor, sem o envelope de erro e sem detalhes. Repita com recuo (nas escritas, com a mesma Idempotency-Key) e indique o X-Request-Id ao suporte.',
  headers: GENERIC_HEADERS,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/InternalError' },
      example: genericExample(500),
    },
  },
};

const SERVICE_UNAVAILABLE = {
  description:
    'Base de dados ocupada além de uma espera limitada: a mesma resposta genérica, sem o envelope de erro, com Retry-After. Nada foi gravado; repita depois de Retry-After (nas escritas, com a mesma Idempotency-Key).',
  headers: responseHeaders(['X-Request-Id', 'Retry-After'], [...LIMIT_HEADERS]),
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/ServiceUnavailable' },
      example: genericExample(503),
    },
  },
};

/** The schema of a generic answer: `statusCode` equal to the status, the status text twice. */
function genericSchema(status: keyof typeof GENERIC_TEXT, description: string): Json {
  return {
    type: 'object',
    description,
    required: ['statusCode', 'error', 'message'],
    properties: {
      statusCode: { type: 'integer', const: status },
      error: { type: 'string', const: GENERIC_TEXT[status] },
      message: { type: 'string', const: GENERIC_TEXT[status] },
    },
  };
}

/** Success response: its description, headers, and the schema as generated. */
function finishSuccess(response: Json, write: boolean): Json {
  return {
    ...response,
    headers: responseHeaders(['X-Request-Id', ...LIMIT_HEADERS], write ? ['Idempotency-Replay'] : []),
  };
}

/** Query parameters with a default may be left out: they are not required. */
function finishParameters(parameters: Json[] | undefined): Json[] | undefined {
  return parameters?.map((parameter) => {
    const schema = parameter.schema as Json | undefined;
    return parameter.in === 'query' && schema?.default !== undefined
      ? { ...parameter, required: false }
      : parameter;
  });
}

type RouteOperation = Json & { 'x-error-codes': ErrorCode[]; responses: Json; parameters?: Json[] };

/** The JSON schema of an operation's request body, if it takes one. */
function bodySchemaOf(operation: Json): Json | undefined {
  const content = (operation.requestBody as Json | undefined)?.content as Json | undefined;
  return (content?.['application/json'] as Json | undefined)?.schema as Json | undefined;
}

/**
 * One operation as published: a write's Idempotency-Key, its parameters, and every answer it can
 * give (its successes, its error codes, 500 and 503). Also the error envelope its 4xx declare.
 */
function finishOperation(
  method: string,
  operation: Json,
  docsUrl: string,
): { finished: Json; envelope?: Json } {
  const write = method === 'post' || method === 'put';
  const { 'x-error-codes': codes, responses, parameters, ...rest } = operation as RouteOperation;
  let envelope: Json | undefined;
  const successes: Json = {};
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('4'))
      envelope ??= (((response as Json).content as Json)['application/json'] as Json).schema as Json;
    else successes[status] = finishSuccess(response as Json, write);
  }
  const finishedParameters = [
    ...(write ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(finishParameters(parameters) ?? []),
  ];
  const finished = {
    ...rest,
    ...(finishedParameters.length > 0 ? { parameters: finishedParameters } : {}),
    responses: {
      ...successes,
      ...errorResponses(codes, write, docsUrl, bodySchemaOf(rest)),
      500: INTERNAL_ERROR,
      503: SERVICE_UNAVAILABLE,
    },
  };
  return envelope ? { finished, envelope } : { finished };
}

/** The error components every answer refers to, made from the envelope the routes declare. */
function errorSchemas(envelope: Json): Json {
  return {
    Error: errorComponent(envelope, false),
    ValidationError: errorComponent(envelope, true),
    InternalError: genericSchema(
      500,
      'A resposta genérica de uma falha interna (src/http/error-handler.ts).',
    ),
    ServiceUnavailable: genericSchema(
      503,
      'A resposta genérica de uma espera limitada da base de dados que expirou (src/http/error-handler.ts).',
    ),
  };
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  description:
    'Uma chave única por operação (por exemplo um UUID). Repetir o mesmo pedido, byte a byte, com a mesma chave devolve a resposta guardada em vez de criar de novo; guardada 24 horas.',
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source, minLength: 8, maxLength: 191 },
  example: '7d0c5a3e-2b1f-4c8e-9a6d-5e4f3b2a1c0d',
};

/**
 * The document as published: every operation finished, the error components added, and titled
 * schemas hoisted into components (sorted by name).
 */
function finishDocument(document: Json, docsUrl: string): Json {
  const components = document.components as Json;
  let envelope: Json | undefined;
  const finishedPaths: Json = {};
  for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    const finished: Json = {};
    for (const [method, operation] of Object.entries(operations)) {
      const result = finishOperation(method, operation, docsUrl);
      finished[method] = result.finished;
      envelope ??= result.envelope;
    }
    finishedPaths[path] = finished;
  }
  if (!envelope) throw new Error('no route declares the error envelope');
  const schemas: Json = { ...(components.schemas as Json), ...errorSchemas(envelope) };
  const hoisted = hoistTitledSchemas(finishedPaths, schemas) as Json;
  for (const [name, schema] of Object.entries(schemas))
    schemas[name] = hoistTitledSchemas(schema, schemas, true);
  return {
    ...document,
    paths: hoisted,
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
    },
  };
}

/** The documentation-only copy of a route's schema: the error codes it can answer. */
function documentedSchema(schema: Json, route: RouteOptions): Json {
  const method = String(route.method);
  return { ...schema, 'x-error-codes': errorCodesOf(method, schema) };
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const docsUrl = app.config.docsUrl;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner API v1 — serviço de facturação',
        version: '1.0.0',
        summary:
          'Ler e escrever os dados de uma empresa: clientes, produtos, facturas (rascunhos) e recibos.',
        description:
          'API servidor-a-servidor com que um sistema externo (ERP, loja, ponto de venda) lê e escreve os dados de ' +
          'UMA empresa. Autenticação com `Authorization: Bearer svc_sk_live_...` (ou `svc_sk_test_...`, só leitura). ' +
          'Todo o POST e PUT leva `Idempotency-Key`. Dinheiro: as respostas trazem texto decimal com duas casas ' +
          '(`"1250.00"`) e os pedidos levam números JSON (`"price": 1250.5`; `"price": "450.00"` é um 422); ' +
          `datas e horas são ISO 8601 com fuso. O guia e o catálogo de erros estão em ${docsUrl}/.`,
        contact: { name: 'Suporte do serviço de facturação', url: `${docsUrl}/` },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [
        {
          url: '{baseUrl}',
          description: 'O endereço do serviço, terminado em /api/v1/partner.',
          variables: {
            baseUrl: {
              default: `http://127.0.0.1:3000${API_PREFIX}`,
              description: 'Por exemplo o servidor local de `npm start`.',
            },
          },
        },
      ],
      tags: DOCUMENT_TAGS,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'Chave de API da empresa: `svc_sk_live_...` (dados reais, leitura e escrita conforme as permissões) ' +
              'ou `svc_sk_test_...` (só GET).',
          },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // A schema with an $id (Customer, Invoice, Pagination...) is a named component.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
    // Paths are documented relative to the server URL above.
    transform: ({ schema, url, route }) => ({
      schema: documentedSchema(schema as unknown as Json, route) as never,
      url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url,
    }),
    transformObject: (documentObject) =>
      finishDocument((documentObject as unknown as { openapiObject: Json }).openapiObject, docsUrl),
  });
}
