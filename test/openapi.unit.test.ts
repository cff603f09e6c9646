// The published OpenAPI document comes from the route schemas and must stay current; it is
// OpenAPI 3.1 with one operationId per route (the table of test/helpers/routes.ts), named
// schemas, and passes Redocly's recommended rules with no error and no warning.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors.js';
import { generateOpenApiDocument, serializeDocument } from '../src/openapi-document.js';
import { ROUTES } from './helpers/routes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked field by field, each checked by the test
type Json = Record<string, any>;

describe('OpenAPI document', () => {
  let document: Json;
  beforeAll(async () => {
    document = await generateOpenApiDocument();
  });

  it('describes exactly the 14 routes, and openapi.json is up to date (npm run openapi)', () => {
    const operations = Object.entries(document.paths as Json).flatMap(([path, methods]) =>
      Object.entries(methods as Json).map(([method, operation]) => [
        `${method.toUpperCase()} ${path}`,
        (operation as Json).operationId,
      ]),
    );
    expect(operations.sort()).toEqual(
      ROUTES.map((route) => [`${route.method} ${route.path}`, route.operationId]).sort(),
    );
    const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(serializeDocument(document));
  });

  it('is OpenAPI 3.1 with named schemas and a server whose base URL is a variable', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'Customer',
        'Product',
        'Invoice',
        'InvoiceItem',
        'Payment',
        'Ping',
        'Pagination',
        'CustomerCreate',
        'CustomerUpdate',
        'ProductInput',
        'InvoiceCreate',
        'Error',
        'ValidationError',
      ]),
    );
    expect(Object.keys(document.components.schemas).some((name) => name.startsWith('def-'))).toBe(false);
    expect(document.servers[0].url).toBe('{baseUrl}');
    expect(document.servers[0].variables.baseUrl.default).toMatch(/\/api\/v1\/partner$/);
    // Nullable the 3.1 way, money as decimal text with a pattern.
    expect(document.components.schemas.Customer.properties.email.type).toEqual(['string', 'null']);
    expect(document.components.schemas.Invoice.properties.grand_total).toMatchObject({
      type: ['string', 'null'],
      pattern: '^-?[0-9]+\\.[0-9]{2}$',
    });
    expect(JSON.stringify(document)).not.toContain('"nullable"');
  });

  it('documents every operation: summary, description, tag, headers, and its error codes with examples', () => {
    const seen = new Set<string>();
    for (const route of ROUTES) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      expect(operation.summary, route.operationId).toBeTruthy();
      expect(operation.description, route.operationId).toBeTruthy();
      expect(operation.tags, route.operationId).toHaveLength(1);
      const write = route.method !== 'GET';
      const parameters = (operation.parameters ?? []) as Json[];
      expect(parameters.some((p) => p.$ref === '#/components/parameters/IdempotencyKey')).toBe(write);
      for (const name of ['page', 'per_page']) {
        const parameter = parameters.find((p) => p.name === name);
        if (parameter)
          expect(parameter).toMatchObject({ required: false, schema: { default: expect.any(Number) } });
      }
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        expect(response.headers['X-Request-Id'], `${route.operationId} ${status}`).toMatchObject({
          required: true,
        });
        if (Number(status) < 400 || Number(status) >= 500) continue;
        const media = response.content['application/json'];
        const refs = media.schema.anyOf
          ? (media.schema.anyOf as Json[]).map((schema) => schema.$ref)
          : [media.schema.$ref];
        for (const ref of refs) expect(ref).toMatch(/^#\/components\/schemas\/(Error|ValidationError)$/);
        for (const [code, example] of Object.entries(media.examples as Json)) {
          seen.add(code);
          expect(example.value.error.code).toBe(code);
          expect(example.value.error.doc_url).toMatch(new RegExp(`/errors#${code}$`));
        }
      }
      if (write)
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '409', '422']));
    }
    expect([...seen].sort()).toEqual([...ERROR_CODES].sort());
    expect(document.paths['/invoices'].post.responses['404']).toBeDefined();
    expect(document.paths['/ping'].get.responses['404']).toBeUndefined();
  });

  it('decisions "Formats" (the 15 codes stay the only ones): every operation documents the generic 500 and the retryable 503 with Retry-After, never the envelope', () => {
    for (const route of ROUTES) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses as Json;
      for (const [status, schema] of [
        ['500', 'InternalError'],
        ['503', 'ServiceUnavailable'],
      ] as const) {
        const response = responses[status];
        expect(response, `${route.operationId} ${status}`).toBeDefined();
        expect(response.content['application/json'].schema).toEqual({
          $ref: `#/components/schemas/${schema}`,
        });
        expect(Boolean(response.headers['Retry-After']?.required), `${route.operationId} ${status}`).toBe(
          status === '503',
        );
      }
    }
    // Both generic bodies have the same shape as the 500, with `statusCode` equal to the status:
    // the field a typed client tells them from the envelope by.
    for (const [name, status, text] of [
      ['InternalError', 500, 'Internal Server Error'],
      ['ServiceUnavailable', 503, 'Service Unavailable'],
    ] as const) {
      expect(document.components.schemas[name]).toMatchObject({
        required: ['statusCode', 'error', 'message'],
        properties: {
          statusCode: { type: 'integer', const: status },
          error: { const: text },
          message: { const: text },
        },
      });
    }
  });

  it('contract 2.6 "every line must carry a product_id": product_id is required in the invoice line schema', () => {
    const line = document.components.schemas.InvoiceLineInput;
    expect(line.required).toEqual(expect.arrayContaining(['product_id', 'quantity', 'price']));
    expect(line.required).not.toContain('tax_id');
    expect(line.properties.tax_id.description).toContain('Omitido');
  });

  it('documents RateLimit-Policy and RateLimit on every response that a limit counted', () => {
    for (const route of ROUTES) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses as Json;
      for (const [status, response] of Object.entries(responses)) {
        const headers = response.headers as Json;
        // 403 browser_use_forbidden comes before any limit; a 500 or 503 may come before too.
        const always = status !== '403' && Number(status) < 500;
        for (const name of ['RateLimit-Policy', 'RateLimit']) {
          expect(headers[name], `${route.operationId} ${status} ${name}`).toBeDefined();
          expect(Boolean(headers[name].required), `${route.operationId} ${status} ${name}`).toBe(always);
        }
      }
    }
  });

  // Both documents, the Portuguese one and its English translation (src/docs/reference-en.ts).
  it.each(['openapi.json', 'openapi.en.json'])(
    '%s passes Redocly lint (recommended rules) with 0 errors and 0 warnings',
    async (file) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['node_modules/@redocly/cli/bin/cli.js', 'lint', file, '--format=json'],
        {
          cwd: ROOT,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
      const result = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number };
        problems: unknown[];
      };
      expect(result.problems).toEqual([]);
      expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
  );
});
