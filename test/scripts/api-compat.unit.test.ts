// The breaking-change gate (scripts/api-compat/compare.ts) against a corpus of seeded edits of the
// released document: every breaking edit of the policy's list is caught at a JSON path, no additive
// edit is flagged, and today's documents (PT and EN) pass.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compareDocuments } from '../../scripts/api-compat/compare.js';

// biome-ignore lint/suspicious/noExplicitAny: seeded edits reach anywhere into the document
type Doc = any;

const read = (file: string): Doc =>
  JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const BASELINE = read('api/baseline/openapi-1.0.0.json');

const schemas = (doc: Doc) => doc.components.schemas;
const op = (doc: Doc, path: string, method: string) => doc.paths[path][method];
const query = (doc: Doc, path: string, name: string) =>
  op(doc, path, 'get').parameters.find((parameter: Doc) => parameter.name === name);
const ok200 = (doc: Doc, path = '/customers', method = 'get') => op(doc, path, method).responses['200'];

/** [what, edit, the path the finding must name] */
const BREAKING: [string, (doc: Doc) => void, string][] = [
  ['route removed', (d) => delete d.paths['/payments/{id}'].get, "$.paths['/payments/{id}'].get"],
  ['whole path removed', (d) => delete d.paths['/ping'], "$.paths['/ping'].get"],
  [
    'route renamed',
    (d) => {
      d.paths['/clients/{id}'] = d.paths['/customers/{id}'];
      delete d.paths['/customers/{id}'];
    },
    "$.paths['/customers/{id}'].get",
  ],
  [
    'response field removed',
    (d) => delete schemas(d).Customer.properties.email,
    '$.components.schemas.Customer.properties.email',
  ],
  [
    'response field renamed',
    (d) => {
      const customer = schemas(d).Customer;
      customer.properties.full_name = customer.properties.name;
      delete customer.properties.name;
      customer.required = customer.required.map((n: string) => (n === 'name' ? 'full_name' : n));
    },
    '$.components.schemas.Customer.properties.name',
  ],
  [
    'nested response field removed',
    (d) => delete schemas(d).Pagination.properties.total,
    '$.components.schemas.Pagination.properties',
  ],
  [
    'query parameter removed',
    (d) => {
      const get = op(d, '/customers', 'get');
      get.parameters = get.parameters.filter((p: Doc) => p.name !== 'search');
    },
    "$.paths['/customers'].get.parameters",
  ],
  [
    'query parameter renamed',
    (d) => (query(d, '/customers', 'updated_since').name = 'modified_since'),
    "$.paths['/customers'].get.parameters",
  ],
  ['response header removed', (d) => delete ok200(d).headers['X-Request-Id'], "headers['X-Request-Id']"],
  [
    'Retry-After removed from 429',
    (d) => delete op(d, '/customers', 'post').responses['429'].headers['Retry-After'],
    "headers['Retry-After']",
  ],
  [
    'request enum value removed',
    (d) => (schemas(d).CustomerCreate.properties.type.enum = ['individual']),
    '$.components.schemas.CustomerCreate.properties.type',
  ],
  [
    'query enum value removed',
    (d) => (query(d, '/customers', 'sort').schema.enum = ['name', 'created_at']),
    "$.paths['/customers'].get.parameters",
  ],
  [
    'response enum value removed',
    (d) => (schemas(d).Invoice.properties.status.enum = ['draft', 'unpaid', 'paid', 'cancelled']),
    '$.components.schemas.Invoice.properties.status',
  ],
  [
    'response field type changed',
    (d) => (schemas(d).Customer.properties.id.type = 'string'),
    '$.components.schemas.Customer.properties.id',
  ],
  [
    'request field type changed',
    (d) => (schemas(d).CustomerCreate.properties.name.type = 'integer'),
    '$.components.schemas.CustomerCreate.properties.name',
  ],
  [
    'number narrowed to integer in a request',
    (d) => (schemas(d).ProductInput.properties.price.type = 'integer'),
    '$.components.schemas.ProductInput.properties.price',
  ],
  [
    'format changed',
    (d) => (schemas(d).Customer.properties.created_at.format = 'date'),
    '$.components.schemas.Customer.properties.created_at',
  ],
  [
    'format added to a request field',
    (d) => (schemas(d).CustomerCreate.properties.phone.format = 'phone'),
    '$.components.schemas.CustomerCreate.properties.phone',
  ],
  [
    'existing request field made required',
    (d) => schemas(d).CustomerCreate.required.push('nuit'),
    '$.components.schemas.CustomerCreate.required',
  ],
  [
    'new required request field',
    (d) => {
      schemas(d).InvoiceCreate.properties.branch = { type: 'string' };
      schemas(d).InvoiceCreate.required.push('branch');
    },
    '$.components.schemas.InvoiceCreate.required',
  ],
  [
    'smaller maxLength',
    (d) => (schemas(d).CustomerCreate.properties.name.maxLength = 100),
    '$.components.schemas.CustomerCreate.properties.name',
  ],
  [
    'larger minLength',
    (d) => (schemas(d).ProductInput.properties.name.minLength = 3),
    '$.components.schemas.ProductInput.properties.name',
  ],
  [
    'new pattern',
    (d) => (schemas(d).CustomerCreate.properties.nuit.pattern = '^[0-9]{9}$'),
    '$.components.schemas.CustomerCreate.properties.nuit',
  ],
  [
    'narrower maximum',
    (d) => (query(d, '/customers', 'page').schema.maximum = 1000),
    "$.paths['/customers'].get.parameters",
  ],
  [
    'narrower minimum',
    (d) => (schemas(d).ProductInput.properties.price.minimum = 1),
    '$.components.schemas.ProductInput.properties.price',
  ],
  [
    'new maximum',
    (d) => (query(d, '/customers', 'per_page').schema.maximum = 100),
    "$.paths['/customers'].get.parameters",
  ],
  [
    'fewer items allowed',
    (d) => (schemas(d).InvoiceCreate.properties.items.maxItems = 50),
    '$.components.schemas.InvoiceCreate.properties.items',
  ],
  [
    'nullable removed from a request field',
    (d) => (schemas(d).CustomerCreate.properties.email.type = 'string'),
    '$.components.schemas.CustomerCreate.properties.email',
  ],
  [
    'response field may now be null',
    (d) => (schemas(d).Customer.properties.name.type = ['string', 'null']),
    '$.components.schemas.Customer.properties.name',
  ],
  [
    'response field no longer always present',
    (d) => (schemas(d).Customer.required = schemas(d).Customer.required.filter((n: string) => n !== 'name')),
    '$.components.schemas.Customer.required',
  ],
  [
    'new error code',
    (d) => schemas(d).Error.properties.error.properties.code.enum.push('payment_required'),
    '$.components.schemas.Error.properties.error.properties.code',
  ],
  [
    'new error code at a status',
    (d) => {
      const content = op(d, '/customers', 'get').responses['403'].content['application/json'];
      content.examples.rate_limit_exceeded = { value: {} };
    },
    "$.paths['/customers'].get.responses['403'].content",
  ],
  [
    'error status changed',
    (d) => {
      const responses = op(d, '/customers/{id}', 'get').responses;
      responses['400'] = responses['404'];
      delete responses['404'];
    },
    "$.paths['/customers/{id}'].get.responses['404']",
  ],
  [
    'response removed',
    (d) => delete op(d, '/invoices', 'post').responses['409'],
    "$.paths['/invoices'].post.responses['409']",
  ],
  [
    'new response status',
    (d) => (op(d, '/invoices', 'post').responses['402'] = { description: 'x' }),
    "$.paths['/invoices'].post.responses['402']",
  ],
  [
    'query parameter became required',
    (d) => (query(d, '/customers', 'search').required = true),
    "$.paths['/customers'].get.parameters",
  ],
  [
    'new required query parameter',
    (d) =>
      op(d, '/products', 'get').parameters.push({
        in: 'query',
        name: 'branch',
        required: true,
        schema: { type: 'string' },
      }),
    "$.paths['/products'].get.parameters",
  ],
  [
    'new required request header',
    (d) =>
      op(d, '/customers', 'post').parameters.push({
        in: 'header',
        name: 'X-Branch',
        required: true,
        schema: { type: 'string' },
      }),
    "$.paths['/customers'].post.parameters",
  ],
  [
    'Idempotency-Key pattern changed',
    (d) => (d.components.parameters.IdempotencyKey.schema.pattern = '^[a-f0-9-]{36}$'),
    '$.components.parameters.IdempotencyKey.schema',
  ],
  [
    'Idempotency-Key shorter',
    (d) => (d.components.parameters.IdempotencyKey.schema.maxLength = 64),
    '$.components.parameters.IdempotencyKey.schema',
  ],
  ['webhook event type removed', (d) => delete d.webhooks['invoice.paid'], "$.webhooks['invoice.paid'].post"],
  [
    'webhook signature header removed',
    (d) =>
      (d.webhooks['invoice.created'].post.parameters = d.webhooks['invoice.created'].post.parameters.slice(
        0,
        2,
      )),
    '$.components.parameters.WebhookSignature',
  ],
  [
    'event field removed',
    (d) => delete schemas(d).InvoiceEvent.properties.cause,
    '$.components.schemas.InvoiceEvent.properties.cause',
  ],
  [
    'event type constant changed',
    (d) =>
      (d.webhooks['invoice.paid'].post.requestBody.content[
        'application/json'
      ].schema.allOf[1].properties.type.const = 'invoice.settled'),
    "$.webhooks['invoice.paid'].post.requestBody",
  ],
  [
    'new value in a closed response list',
    (d) => schemas(d).Invoice.properties.status.enum.push('refunded'),
    '$.components.schemas.Invoice.properties.status',
  ],
  [
    'new kind of event cause',
    (d) => schemas(d).EventCause.oneOf.push({ type: 'object' }),
    '$.components.schemas.EventCause.oneOf',
  ],
  [
    'response enum dropped',
    (d) => delete schemas(d).Customer.properties.type.enum,
    '$.components.schemas.Customer.properties.type',
  ],
  [
    'request body removed',
    (d) => delete op(d, '/customers', 'post').requestBody,
    "$.paths['/customers'].post.requestBody",
  ],
  [
    'request media type changed',
    (d) => {
      const content = op(d, '/customers', 'post').requestBody.content;
      content['application/vnd.invoicing+json'] = content['application/json'];
      delete content['application/json'];
    },
    "$.paths['/customers'].post.requestBody.content['application/json']",
  ],
  [
    'response header no longer always sent',
    (d) => (ok200(d).headers['X-RateLimit-Limit'].required = false),
    "headers['X-RateLimit-Limit']",
  ],
  [
    'response header pattern dropped',
    (d) => delete ok200(d).headers.RateLimit.schema.pattern,
    'headers.RateLimit.schema',
  ],
  [
    'operation security changed',
    (d) => (op(d, '/ping', 'get').security = []),
    "$.paths['/ping'].get.security",
  ],
  [
    'security scheme changed',
    (d) => (d.components.securitySchemes.bearerAuth.scheme = 'basic'),
    '$.components.securitySchemes.bearerAuth',
  ],
  [
    'base URL changed',
    (d) => (d.servers[0].variables.baseUrl.default = 'http://127.0.0.1:3000/api/v2/partner'),
    '$.servers[0]',
  ],
  [
    'default changed',
    (d) => (query(d, '/customers', 'per_page').schema.default = 10),
    "$.paths['/customers'].get.parameters",
  ],
  [
    'multipleOf added to a request number',
    (d) => (schemas(d).ProductInput.properties.price.multipleOf = 0.01),
    '$.components.schemas.ProductInput.properties.price',
  ],
  [
    'more items required',
    (d) => (schemas(d).InvoiceCreate.properties.items.minItems = 2),
    '$.components.schemas.InvoiceCreate.properties.items',
  ],
  ['major version', (d) => (d.info.version = '2.0.0'), '$.info.version'],
];

const ADDITIVE: [string, (doc: Doc) => void][] = [
  [
    'new optional response field',
    (d) => (schemas(d).Customer.properties.website = { type: ['string', 'null'] }),
  ],
  [
    'new optional response field that is always present',
    (d) => {
      schemas(d).Invoice.properties.qr_code = { type: 'string' };
      schemas(d).Invoice.required.push('qr_code');
    },
  ],
  ['new optional response header', (d) => (ok200(d).headers['X-Trace'] = { schema: { type: 'string' } })],
  [
    'optional response header now always sent',
    (d) => (op(d, '/customers', 'post').responses['201'].headers['Idempotency-Replay'].required = true),
  ],
  [
    'new webhook event type',
    (d) => {
      d.webhooks['invoice.refunded'] = structuredClone(d.webhooks['invoice.paid']);
      schemas(d).InvoiceEvent.properties.type.enum.push('invoice.refunded');
    },
  ],
  [
    'new webhook event family',
    (d) => (d.webhooks['tax.updated'] = structuredClone(d.webhooks['product.updated'])),
  ],
  [
    'new optional query parameter',
    (d) =>
      op(d, '/customers', 'get').parameters.push({
        in: 'query',
        name: 'country',
        schema: { type: 'string' },
      }),
  ],
  [
    'new optional request header',
    (d) =>
      op(d, '/customers', 'post').parameters.push({
        in: 'header',
        name: 'X-Correlation-Id',
        schema: { type: 'string' },
      }),
  ],
  [
    'new optional request field',
    (d) => (schemas(d).CustomerCreate.properties.website = { type: ['string', 'null'], maxLength: 255 }),
  ],
  ['operation description changed', (d) => (op(d, '/customers', 'get').description = 'Outra descrição.')],
  [
    'field description changed',
    (d) => (schemas(d).ProductInput.properties.price.description = 'Preço, no máximo 2 casas decimais.'),
  ],
  [
    'summary and tags changed',
    (d) => {
      op(d, '/invoices', 'get').summary = 'Listar as facturas';
      op(d, '/invoices', 'get').tags = ['invoices', 'documents'];
    },
  ],
  [
    'examples changed',
    (d) => {
      ok200(d).headers['X-Request-Id'].schema.examples = ['req_000000000000000000000000'];
      schemas(d).Customer.properties.created_at.examples = ['2027-01-01T00:00:00.000+02:00'];
    },
  ],
  ['code samples changed', (d) => (op(d, '/customers', 'get')['x-codeSamples'] = [])],
  [
    'info description and minor version',
    (d) => {
      d.info.version = '1.1.0';
      d.info.description = 'Nova descrição.';
    },
  ],
  ['new route', (d) => (d.paths['/taxes'] = { get: structuredClone(op(d, '/ping', 'get')) })],
  ['larger maxLength in a request', (d) => (schemas(d).CustomerCreate.properties.name.maxLength = 500)],
  ['request pattern removed', (d) => delete d.components.parameters.IdempotencyKey.schema.pattern],
  [
    'request field accepts null',
    (d) => (schemas(d).InvoiceCreate.properties.customer_id.type = ['integer', 'null']),
  ],
  ['wider request minimum', (d) => (schemas(d).ProductInput.properties.price.minimum = -1)],
  ['more items allowed', (d) => (schemas(d).InvoiceCreate.properties.items.maxItems = 500)],
  ['new value in a request enum', (d) => schemas(d).CustomerCreate.properties.type.enum.push('government')],
  ['response field more precise', (d) => (schemas(d).Customer.properties.name.maxLength = 255)],
  [
    'a request constant lifted',
    (d) => {
      const schema = d.webhooks['invoice.paid'].post.requestBody.content['application/json'].schema;
      schema.allOf[1].properties.type.examples = ['invoice.paid'];
    },
  ],
  ['operation marked deprecated', (d) => (op(d, '/payments', 'get').deprecated = true)],
  ['parameters reordered', (d) => op(d, '/customers', 'get').parameters.reverse()],
  [
    'a component inlined',
    (d) => {
      const page = ok200(d).content['application/json'].schema.properties;
      page.pagination = structuredClone(schemas(d).Pagination);
    },
  ],
  [
    'new optional webhook header',
    (d) =>
      d.webhooks['invoice.created'].post.parameters.push({
        in: 'header',
        name: 'webhook-attempt',
        schema: { type: 'string' },
      }),
  ],
];

describe('npm run api:compat (scripts/api-compat/compare.ts)', () => {
  it("finds no breaking change in today's openapi.json and openapi.en.json", () => {
    expect(compareDocuments(BASELINE, read('openapi.json'))).toEqual([]);
    expect(compareDocuments(BASELINE, read('openapi.en.json'))).toEqual([]);
  });

  it(`has a corpus of at least 40 breaking and 20 additive edits (${BREAKING.length}, ${ADDITIVE.length})`, () => {
    expect(BREAKING.length).toBeGreaterThanOrEqual(40);
    expect(ADDITIVE.length).toBeGreaterThanOrEqual(20);
  });

  it.each(BREAKING)('catches a breaking edit: %s', (_what, edit, path) => {
    const head = structuredClone(BASELINE);
    edit(head);
    const findings = compareDocuments(BASELINE, head);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.map((finding) => finding.path).join('\n')).toContain(path);
  });

  it.each(ADDITIVE)('does not flag an additive edit: %s', (_what, edit) => {
    const head = structuredClone(BASELINE);
    edit(head);
    expect(compareDocuments(BASELINE, head)).toEqual([]);
  });

  it("npm run api:compat -- FILE exits 1 naming each breaking change at its JSON path, 0 on today's documents", async () => {
    const run = promisify(execFile);
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const tsx = join(root, 'node_modules/.bin/tsx');
    const dir = mkdtempSync(join(tmpdir(), 'api-compat-'));
    try {
      const head = structuredClone(BASELINE);
      delete head.paths['/ping'];
      schemas(head).CustomerCreate.properties.name.maxLength = 100;
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(head));
      const failed = await run(tsx, ['scripts/api-compat.ts', file], { cwd: root }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain("$.paths['/ping'].get: route removed: GET /ping");
      expect(failed?.stderr).toContain(
        '$.components.schemas.CustomerCreate.properties.name: maxLength changed from 255 to 100',
      );
      for (const document of ['openapi.json', 'openapi.en.json']) {
        const passed = await run(tsx, ['scripts/api-compat.ts', document], { cwd: root });
        expect(passed.stdout).toContain('no breaking change');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
