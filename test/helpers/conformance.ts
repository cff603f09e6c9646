// Conformance of every response the suite receives with openapi.json: the test apps
// (startTestApp, limitedApp) and apiCall check each answer of a documented operation: the status
// is documented for it, the body matches the documented schema, an error's code is one listed for
// that status, the required headers are there and every API header present is documented and
// valid. A mismatch fails the request's test at once, with what differs. Requests to routes that
// do not exist (the framework's 404) are not operations and are not checked. A webhook delivery
// can be checked against the `webhooks` of the same document (webhookProblems).
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { API_PREFIX } from '../../src/app-constants.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document, walked as plain JSON
type Json = Record<string, any>;

/** The response headers that belong to the API's contract; any of them present must be documented. */
const API_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'ratelimit-policy',
  'ratelimit',
  'retry-after',
  'idempotency-replay',
  'www-authenticate',
];

export interface ObservedResponse {
  method: string;
  /** The request URL (path and query), with the API prefix. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** The raw body text. */
  body: string;
}

interface Operation {
  method: string;
  pattern: RegExp;
  operation: Json;
  name: string;
}

let loaded: { document: Json; operations: Operation[]; ajv: Ajv2020 } | null = null;
const validators = new Map<string, ValidateFunction>();

/** `#/components/schemas/X` -> `components#/$defs/X`, so that every schema compiles on its own. */
function relink(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relink);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] =
      key === '$ref' && typeof value === 'string'
        ? value.replace('#/components/schemas/', 'components#/$defs/')
        : relink(value);
  }
  return copy;
}

function load() {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv, ['date', 'date-time', 'email', 'uri']);
  ajv.addSchema({ $id: 'components', $defs: relink(document.components.schemas) as Json });
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Json)) {
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(methods as Json)) {
      operations.push({ method: method.toUpperCase(), pattern, operation, name: operation.operationId });
    }
  }
  loaded = { document, operations, ajv };
  return loaded;
}

function validatorFor(key: string, schema: Json): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = load().ajv.compile(relink(schema) as Json);
    validators.set(key, validate);
  }
  return validate;
}

function headerValue(value: string | string[] | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Header text as the JSON value its schema describes. */
function headerAsJson(text: string, schema: Json): unknown {
  return schema.type === 'integer' || schema.type === 'number'
    ? /^-?\d+(\.\d+)?$/.test(text)
      ? Number(text)
      : text
    : text;
}

/** What differs between a response and openapi.json; empty when it conforms or is no operation. */
export function conformanceProblems(observed: ObservedResponse): string[] {
  const { operations } = load();
  const path = new URL(observed.url, 'http://api.local').pathname;
  if (!path.startsWith(`${API_PREFIX}/`)) return [];
  const relative = path.slice(API_PREFIX.length);
  const match = operations.find(
    (entry) => entry.method === observed.method.toUpperCase() && entry.pattern.test(relative),
  );
  if (!match) return [];
  const where = `${match.name} ${observed.status}`;
  const response = match.operation.responses[String(observed.status)] as Json | undefined;
  if (!response) return [`${where}: status ${observed.status} is not documented for ${match.name}`];

  const problems: string[] = [];
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(observed.headers))
    headers[name.toLowerCase()] = headerValue(value);
  const documented = (response.headers ?? {}) as Json;
  const documentedNames = new Set(Object.keys(documented).map((name) => name.toLowerCase()));
  for (const [name, definition] of Object.entries(documented)) {
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (definition.required) problems.push(`${where}: required header ${name} is missing`);
      continue;
    }
    const validate = validatorFor(`header ${name}`, definition.schema);
    if (!validate(headerAsJson(value, definition.schema))) {
      problems.push(`${where}: header ${name}: "${value}" ${load().ajv.errorsText(validate.errors)}`);
    }
  }
  for (const name of API_HEADERS) {
    if (headers[name] !== undefined && !documentedNames.has(name)) {
      problems.push(`${where}: header ${name} is sent but not documented for this response`);
    }
  }

  const media = response.content?.['application/json'] as Json | undefined;
  if (!media)
    return observed.body === '' ? problems : [...problems, `${where}: a body is sent but none is documented`];
  const contentType = headers['content-type'] ?? '';
  if (!contentType.startsWith('application/json')) problems.push(`${where}: content-type "${contentType}"`);
  let body: unknown;
  try {
    body = JSON.parse(observed.body);
  } catch {
    return [...problems, `${where}: the body is not JSON: ${observed.body.slice(0, 200)}`];
  }
  const validate = validatorFor(`${match.name} ${observed.status}`, media.schema);
  if (!validate(body)) {
    problems.push(`${where}: body does not match the schema: ${load().ajv.errorsText(validate.errors)}`);
  }
  if (observed.status >= 400 && media.examples) {
    const code = (body as { error?: { code?: string } }).error?.code;
    if (!code || !(code in media.examples)) {
      problems.push(
        `${where}: error code ${code} is not documented for this status (${Object.keys(media.examples).join(', ')})`,
      );
    }
  }
  return problems;
}

/** A webhook delivery as a receiver got it: its headers (lower case) and its raw body. */
export interface ObservedDelivery {
  headers: Record<string, string | undefined>;
  body: string;
}

/**
 * What differs between a webhook delivery and openapi.json's `webhooks` entry for its type: the
 * type is documented, the body matches the entry's schema (the envelope, `data` as the resource's
 * schema) and the signature headers are there and match theirs.
 */
export function webhookProblems(delivery: ObservedDelivery): string[] {
  const { document, ajv } = load();
  let body: { type?: unknown };
  try {
    body = JSON.parse(delivery.body) as { type?: unknown };
  } catch {
    return [`the delivery's body is not JSON: ${delivery.body.slice(0, 200)}`];
  }
  const type = String(body.type);
  const operation = (document.webhooks as Json | undefined)?.[type]?.post as Json | undefined;
  if (!operation) return [`event type ${type} is not documented under webhooks`];
  const problems: string[] = [];
  for (const parameter of operation.parameters as Json[]) {
    const name = (parameter.$ref as string).replace('#/components/parameters/', '');
    const definition = document.components.parameters[name] as Json;
    const value = delivery.headers[(definition.name as string).toLowerCase()];
    if (value === undefined) {
      problems.push(`${type}: header ${definition.name} is missing`);
      continue;
    }
    const validate = validatorFor(`webhook header ${definition.name}`, definition.schema);
    if (!validate(value))
      problems.push(`${type}: header ${definition.name}: "${value}" ${ajv.errorsText(validate.errors)}`);
  }
  const validate = validatorFor(`webhook ${type}`, operation.requestBody.content['application/json'].schema);
  if (!validate(body))
    problems.push(`${type}: body does not match the schema: ${ajv.errorsText(validate.errors)}`);
  return problems;
}

export class ConformanceError extends Error {}

/** Throws when the response does not conform to openapi.json. */
export function assertConforms(observed: ObservedResponse): void {
  const problems = conformanceProblems(observed);
  if (problems.length > 0) {
    throw new ConformanceError(
      `response differs from openapi.json (${observed.method} ${observed.url}):\n  ${problems.join('\n  ')}\nbody: ${observed.body.slice(0, 500)}`,
    );
  }
}

/** The body as JSON text: a compressed answer (the request asked for it) decoded first. */
function decodedBody(encoding: unknown, raw: Buffer, body: string): string {
  if (encoding === 'gzip') return gunzipSync(raw).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(raw).toString('utf8');
  return body;
}

interface Injectable {
  inject: (...args: never[]) => unknown;
}

/**
 * Makes every `app.inject(...)` of this app check its response. Only the promise form of inject
 * is checked (the one the suite uses); a chained or callback inject goes through unchanged.
 */
export function checkConformance<T extends Injectable>(app: T): T {
  const original = app.inject.bind(app) as (...args: unknown[]) => unknown;
  const wrapped = (...args: unknown[]) => {
    const result = original(...args);
    const options = args[0] as { method?: string; url?: string; path?: string } | string | undefined;
    const thenable = result as PromiseLike<unknown> | undefined;
    if (args.length !== 1 || options === undefined || typeof thenable?.then !== 'function') return result;
    const method = typeof options === 'string' ? 'GET' : (options.method ?? 'GET');
    const url = typeof options === 'string' ? options : (options.url ?? options.path ?? '/');
    return Promise.resolve(thenable).then((answer) => {
      const response = answer as {
        statusCode: number;
        headers: ObservedResponse['headers'];
        body: string;
        rawPayload: Buffer;
      };
      assertConforms({
        method,
        url,
        status: response.statusCode,
        headers: response.headers,
        body: decodedBody(response.headers['content-encoding'], response.rawPayload, response.body),
      });
      return response;
    });
  };
  (app as unknown as { inject: unknown }).inject = wrapped;
  return app;
}
