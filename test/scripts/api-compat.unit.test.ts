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
import { judge, parseCorrections } from '../../scripts/api-compat/corrections.js';

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

/** [what, edit, every finding it must give: [its path, its message], an edit of both documents first] */
const BREAKING: [string, (doc: Doc) => void, [string, string][], ((doc: Doc) => void)?][] = [
  [
    'route removed',
    (d) => delete d.paths['/payments/{id}'].get,
    [["$.paths['/payments/{id}'].get", 'route removed: GET /payments/{id}']],
  ],
  [
    'whole path removed',
    (d) => delete d.paths['/ping'],
    [["$.paths['/ping'].get", 'route removed: GET /ping']],
  ],
  [
    'route renamed',
    (d) => {
      d.paths['/clients/{id}'] = d.paths['/customers/{id}'];
      delete d.paths['/customers/{id}'];
    },
    [
      ["$.paths['/customers/{id}'].get", 'route removed: GET /customers/{id}'],
      ["$.paths['/customers/{id}'].put", 'route removed: PUT /customers/{id}'],
    ],
  ],
  [
    'response field removed',
    (d) => delete schemas(d).Customer.properties.email,
    [['$.components.schemas.Customer.properties.email', "field 'email' removed"]],
  ],
  [
    'response field renamed',
    (d) => {
      const customer = schemas(d).Customer;
      customer.properties.full_name = customer.properties.name;
      delete customer.properties.name;
      customer.required = customer.required.map((n: string) => (n === 'name' ? 'full_name' : n));
    },
    [
      ['$.components.schemas.Customer.properties.name', "field 'name' removed"],
      ['$.components.schemas.Customer.required', "field 'name' is no longer always present"],
    ],
  ],
  [
    'nested response field removed',
    (d) => delete schemas(d).Pagination.properties.total,
    [['$.components.schemas.Pagination.properties.total', "field 'total' removed"]],
  ],
  [
    'query parameter removed',
    (d) => {
      const get = op(d, '/customers', 'get');
      get.parameters = get.parameters.filter((p: Doc) => p.name !== 'search');
    },
    [["$.paths['/customers'].get.parameters[4]", "query parameter 'search' removed"]],
  ],
  [
    'query parameter renamed',
    (d) => (query(d, '/customers', 'updated_since').name = 'modified_since'),
    [["$.paths['/customers'].get.parameters[6]", "query parameter 'updated_since' removed"]],
  ],
  [
    'response header removed',
    (d) => delete ok200(d).headers['X-Request-Id'],
    [
      [
        "$.paths['/customers'].get.responses['200'].headers['X-Request-Id']",
        'response header X-Request-Id removed',
      ],
    ],
  ],
  [
    'Retry-After removed from 429',
    (d) => delete op(d, '/customers', 'post').responses['429'].headers['Retry-After'],
    [
      [
        "$.paths['/customers'].post.responses['429'].headers['Retry-After']",
        'response header Retry-After removed',
      ],
    ],
  ],
  [
    'request enum value removed',
    (d) => (schemas(d).CustomerCreate.properties.type.enum = ['individual']),
    [['$.components.schemas.CustomerCreate.properties.type', 'enum value "company" removed']],
  ],
  [
    'query enum value removed',
    (d) => (query(d, '/customers', 'sort').schema.enum = ['name', 'created_at']),
    [["$.paths['/customers'].get.parameters[2].schema", 'enum value "updated_at" removed']],
  ],
  [
    'response enum value removed',
    (d) => (schemas(d).Invoice.properties.status.enum = ['draft', 'unpaid', 'paid', 'cancelled']),
    [['$.components.schemas.Invoice.properties.status', 'enum value "partially_paid" removed']],
  ],
  [
    'response field type changed',
    (d) => (schemas(d).Customer.properties.id.type = 'string'),
    [['$.components.schemas.Customer.properties.id', 'may now be of type string']],
  ],
  [
    'request field type changed',
    (d) => (schemas(d).CustomerCreate.properties.name.type = 'integer'),
    [['$.components.schemas.CustomerCreate.properties.name', 'no longer accepts type string']],
  ],
  [
    'number narrowed to integer in a request',
    (d) => (schemas(d).ProductInput.properties.price.type = 'integer'),
    [['$.components.schemas.ProductInput.properties.price', 'no longer accepts type number']],
  ],
  [
    'format changed',
    (d) => (schemas(d).Customer.properties.created_at.format = 'date'),
    [['$.components.schemas.Customer.properties.created_at', 'format changed from date-time to date']],
  ],
  [
    'format added to a request field',
    (d) => (schemas(d).CustomerCreate.properties.phone.format = 'phone'),
    [['$.components.schemas.CustomerCreate.properties.phone', 'format changed from none to phone']],
  ],
  [
    'existing request field made required',
    (d) => schemas(d).CustomerCreate.required.push('nuit'),
    [['$.components.schemas.CustomerCreate.required', "new required request field 'nuit'"]],
  ],
  [
    'new required request field',
    (d) => {
      schemas(d).InvoiceCreate.properties.branch = { type: 'string' };
      schemas(d).InvoiceCreate.required.push('branch');
    },
    [['$.components.schemas.InvoiceCreate.required', "new required request field 'branch'"]],
  ],
  [
    'smaller maxLength',
    (d) => (schemas(d).CustomerCreate.properties.name.maxLength = 100),
    [['$.components.schemas.CustomerCreate.properties.name', 'maxLength changed from 255 to 100']],
  ],
  [
    'larger minLength',
    (d) => (schemas(d).ProductInput.properties.name.minLength = 3),
    [['$.components.schemas.ProductInput.properties.name', 'minLength changed from 1 to 3']],
  ],
  [
    'new pattern',
    (d) => (schemas(d).CustomerCreate.properties.nuit.pattern = '^[0-9]{9}$'),
    [['$.components.schemas.CustomerCreate.properties.nuit', 'new pattern']],
  ],
  [
    'narrower maximum',
    (d) => (query(d, '/customers', 'page').schema.maximum = 1000),
    [["$.paths['/customers'].get.parameters[0].schema", 'maximum changed from 2147483647 to 1000']],
  ],
  [
    'narrower minimum',
    (d) => (schemas(d).ProductInput.properties.price.minimum = 1),
    [['$.components.schemas.ProductInput.properties.price', 'minimum changed from 0 to 1']],
  ],
  [
    'new maximum',
    (d) => (query(d, '/customers', 'per_page').schema.maximum = 100),
    [["$.paths['/customers'].get.parameters[1].schema", 'maximum changed from none to 100']],
  ],
  [
    'fewer items allowed',
    (d) => (schemas(d).InvoiceCreate.properties.items.maxItems = 50),
    [['$.components.schemas.InvoiceCreate.properties.items', 'maxItems changed from 200 to 50']],
  ],
  [
    'nullable removed from a request field',
    (d) => (schemas(d).CustomerCreate.properties.email.type = 'string'),
    [['$.components.schemas.CustomerCreate.properties.email', 'no longer accepts type null']],
  ],
  [
    'response field may now be null',
    (d) => (schemas(d).Customer.properties.name.type = ['string', 'null']),
    [['$.components.schemas.Customer.properties.name', 'may now be of type null']],
  ],
  [
    'response field no longer always present',
    (d) => (schemas(d).Customer.required = schemas(d).Customer.required.filter((n: string) => n !== 'name')),
    [['$.components.schemas.Customer.required', "field 'name' is no longer always present"]],
  ],
  [
    'new error code',
    (d) => schemas(d).Error.properties.error.properties.code.enum.push('payment_required'),
    [
      [
        '$.components.schemas.Error.properties.error.properties.code',
        'new enum value "payment_required" in a closed list',
      ],
    ],
  ],
  [
    'new error code at a status',
    (d) => {
      const content = op(d, '/customers', 'get').responses['403'].content['application/json'];
      content.examples.rate_limit_exceeded = { value: {} };
    },
    [
      [
        "$.paths['/customers'].get.responses['403'].content",
        "new error code 'rate_limit_exceeded' at this status",
      ],
    ],
  ],
  [
    'error status changed',
    (d) => {
      const responses = op(d, '/customers/{id}', 'get').responses;
      responses['400'] = responses['404'];
      delete responses['404'];
    },
    [
      ["$.paths['/customers/{id}'].get.responses['400']", 'new response status 400'],
      ["$.paths['/customers/{id}'].get.responses['404']", 'response 404 removed'],
    ],
  ],
  [
    'response removed',
    (d) => delete op(d, '/invoices', 'post').responses['409'],
    [["$.paths['/invoices'].post.responses['409']", 'response 409 removed']],
  ],
  [
    'new response status',
    (d) => (op(d, '/invoices', 'post').responses['402'] = { description: 'x' }),
    [["$.paths['/invoices'].post.responses['402']", 'new response status 402']],
  ],
  [
    'query parameter became required',
    (d) => (query(d, '/customers', 'search').required = true),
    [["$.paths['/customers'].get.parameters[4]", "query parameter 'search' became required"]],
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
    [["$.paths['/products'].get.parameters", "new required query parameter 'branch'"]],
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
    [["$.paths['/customers'].post.parameters", "new required header parameter 'X-Branch'"]],
  ],
  [
    'Idempotency-Key pattern changed',
    (d) => (d.components.parameters.IdempotencyKey.schema.pattern = '^[a-f0-9-]{36}$'),
    [['$.components.parameters.IdempotencyKey.schema', 'pattern changed']],
  ],
  [
    'Idempotency-Key shorter',
    (d) => (d.components.parameters.IdempotencyKey.schema.maxLength = 64),
    [['$.components.parameters.IdempotencyKey.schema', 'maxLength changed from 191 to 64']],
  ],
  [
    'webhook event type removed',
    (d) => delete d.webhooks['invoice.paid'],
    [["$.webhooks['invoice.paid'].post", 'webhook event type removed: POST invoice.paid']],
  ],
  [
    'webhook signature header removed',
    (d) =>
      (d.webhooks['invoice.created'].post.parameters = d.webhooks['invoice.created'].post.parameters.slice(
        0,
        2,
      )),
    [['$.components.parameters.WebhookSignature', "header parameter 'webhook-signature' removed"]],
  ],
  [
    'event field removed',
    (d) => delete schemas(d).InvoiceEvent.properties.cause,
    [['$.components.schemas.InvoiceEvent.properties.cause', "field 'cause' removed"]],
  ],
  [
    'event type constant changed',
    (d) =>
      (d.webhooks['invoice.paid'].post.requestBody.content[
        'application/json'
      ].schema.allOf[1].properties.type.const = 'invoice.settled'),
    [
      [
        "$.webhooks['invoice.paid'].post.requestBody.content['application/json'].schema.allOf[1].properties.type",
        'constant changed from "invoice.paid" to "invoice.settled"',
      ],
    ],
  ],
  [
    'new value in a closed response list',
    (d) => schemas(d).Invoice.properties.status.enum.push('refunded'),
    [['$.components.schemas.Invoice.properties.status', 'new enum value "refunded" in a closed list']],
  ],
  [
    'new kind of event cause',
    (d) => schemas(d).EventCause.oneOf.push({ type: 'object' }),
    [['$.components.schemas.EventCause.oneOf', 'oneOf changed from 3 to 4 schemas']],
  ],
  [
    'response enum dropped',
    (d) => delete schemas(d).Customer.properties.type.enum,
    [['$.components.schemas.Customer.properties.type', 'enum removed: any value may now appear']],
  ],
  [
    'request body removed',
    (d) => delete op(d, '/customers', 'post').requestBody,
    [["$.paths['/customers'].post.requestBody", 'request body removed']],
  ],
  [
    'request media type changed',
    (d) => {
      const content = op(d, '/customers', 'post').requestBody.content;
      content['application/vnd.invoicing+json'] = content['application/json'];
      delete content['application/json'];
    },
    [
      [
        "$.paths['/customers'].post.requestBody.content['application/json']",
        'media type application/json removed',
      ],
    ],
  ],
  [
    'response header no longer always sent',
    (d) => (ok200(d).headers['X-RateLimit-Limit'].required = false),
    [
      [
        "$.paths['/customers'].get.responses['200'].headers['X-RateLimit-Limit']",
        'response header X-RateLimit-Limit is no longer always sent',
      ],
    ],
  ],
  [
    'response header pattern dropped',
    (d) => delete ok200(d).headers.RateLimit.schema.pattern,
    [["$.paths['/customers'].get.responses['200'].headers.RateLimit.schema", 'pattern removed']],
  ],
  [
    'operation security changed',
    (d) => (op(d, '/ping', 'get').security = []),
    [["$.paths['/ping'].get.security", 'security changed']],
  ],
  [
    'security scheme changed',
    (d) => (d.components.securitySchemes.bearerAuth.scheme = 'basic'),
    [['$.components.securitySchemes.bearerAuth', 'security scheme changed']],
  ],
  [
    'base URL changed',
    (d) => (d.servers[0].variables.baseUrl.default = 'http://127.0.0.1:3000/api/v2/partner'),
    [['$.servers[0]', 'server (base URL) removed or changed']],
  ],
  [
    'default changed',
    (d) => (query(d, '/customers', 'per_page').schema.default = 10),
    [["$.paths['/customers'].get.parameters[1].schema", 'default changed from 25 to 10']],
  ],
  [
    'multipleOf added to a request number',
    (d) => (schemas(d).ProductInput.properties.price.multipleOf = 0.01),
    [['$.components.schemas.ProductInput.properties.price', 'multipleOf changed']],
  ],
  [
    'more items required',
    (d) => (schemas(d).InvoiceCreate.properties.items.minItems = 2),
    [['$.components.schemas.InvoiceCreate.properties.items', 'minItems changed from 1 to 2']],
  ],
  [
    'major version',
    (d) => (d.info.version = '2.0.0'),
    [['$.info.version', 'major version changed from 1 to 2']],
  ], // Goal 5 of issue 39: what partners' generated clients feel.
  [
    'goal 5: new required parameter declared at path level',
    (d) =>
      (d.paths['/customers/{id}'].parameters = [
        { in: 'query', name: 'branch', required: true, schema: { type: 'string' } },
      ]),
    [["$.paths['/customers/{id}'].parameters", "new required query parameter 'branch'"]],
  ],
  [
    'goal 5: path-level parameter became required',
    (d) => (d.paths['/customers'].parameters[0].required = true),
    [["$.paths['/customers'].parameters[0]", "query parameter 'lang' became required"]],
    (d) => (d.paths['/customers'].parameters = [{ in: 'query', name: 'lang', schema: { type: 'string' } }]),
  ],
  [
    'goal 5: path-level parameter removed',
    (d) => delete d.paths['/customers'].parameters,
    [["$.paths['/customers'].parameters[0]", "query parameter 'lang' removed"]],
    (d) => (d.paths['/customers'].parameters = [{ in: 'query', name: 'lang', schema: { type: 'string' } }]),
  ],
  [
    'goal 5: anyOf added to a request body',
    (d) => (schemas(d).CustomerCreate.anyOf = [{ required: ['nuit'] }, { required: ['email'] }]),
    [
      [
        '$.components.schemas.CustomerCreate.anyOf',
        'new anyOf of 2 schemas: what was accepted may now be refused',
      ],
    ],
  ],
  [
    'goal 5: oneOf added to a request field',
    (d) =>
      (schemas(d).CustomerCreate.properties.nuit.oneOf = [{ type: 'null' }, { minLength: 9, maxLength: 9 }]),
    [
      [
        '$.components.schemas.CustomerCreate.properties.nuit.oneOf',
        'new oneOf of 2 schemas: what was accepted may now be refused',
      ],
    ],
  ],
  [
    'goal 5: new oneOf branch on a request (a value may now match two)',
    (d) => schemas(d).CustomerCreate.properties.nuit.oneOf.push({ type: 'string' }),
    [['$.components.schemas.CustomerCreate.properties.nuit.oneOf', 'oneOf changed from 2 to 3 schemas']],
    (d) =>
      (schemas(d).CustomerCreate.properties.nuit.oneOf = [{ type: 'null' }, { minLength: 9, maxLength: 9 }]),
  ],
  [
    'goal 5: allOf branch added to a request body',
    (d) => (schemas(d).InvoiceCreate.allOf = [{ required: ['due_date'] }]),
    [
      [
        '$.components.schemas.InvoiceCreate.allOf',
        'new allOf of 1 schemas: what was accepted may now be refused',
      ],
    ],
  ],
  [
    'goal 5: not added to a request field',
    (d) => (schemas(d).CustomerCreate.properties.name.not = { pattern: '^[0-9]+$' }),
    [
      [
        '$.components.schemas.CustomerCreate.properties.name',
        'new not: what was accepted may now be refused',
      ],
    ],
  ],
  [
    'goal 5: dependentRequired added to a request body',
    (d) => (schemas(d).CustomerCreate.dependentRequired = { nuit: ['address'] }),
    [
      [
        '$.components.schemas.CustomerCreate.dependentRequired',
        "field 'address' now required when 'nuit' is sent",
      ],
    ],
  ],
  [
    'goal 5: if/then added to a request body',
    (d) => {
      schemas(d).CustomerCreate.if = { properties: { type: { const: 'company' } }, required: ['type'] };
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise
      schemas(d).CustomerCreate.then = { required: ['nuit'] };
    },
    [['$.components.schemas.CustomerCreate', 'new if/then: what was accepted may now be refused']],
  ],
  [
    'goal 5: patternProperties added to a request body',
    (d) => (schemas(d).ProductInput.patternProperties = { '^x_': { type: 'string' } }),
    [
      [
        "$.components.schemas.ProductInput.patternProperties['^x_']",
        "new patternProperties '^x_': what was accepted may now be refused",
      ],
    ],
  ],
  [
    'goal 5: query parameter style changed',
    (d) => Object.assign(query(d, '/customers', 'search'), { style: 'spaceDelimited', explode: true }),
    [
      [
        "$.paths['/customers'].get.parameters[4]",
        "query parameter 'search' style changed from form to spaceDelimited",
      ],
    ],
  ],
  [
    'goal 5: query parameter explode changed',
    (d) => (query(d, '/invoices', 'status').explode = false),
    [
      [
        "$.paths['/invoices'].get.parameters[4]",
        "query parameter 'status' explode changed from true to false",
      ],
    ],
  ],
  [
    'goal 5: path parameter style changed',
    (d) => {
      for (const method of ['get', 'put'])
        for (const parameter of op(d, '/products/{id}', method).parameters)
          if (parameter.in === 'path') parameter.style = 'label';
    },
    [
      [
        "$.paths['/products/{id}'].get.parameters[0]",
        "path parameter 'id' style changed from simple to label",
      ],
      [
        "$.paths['/products/{id}'].put.parameters[1]",
        "path parameter 'id' style changed from simple to label",
      ],
    ],
  ],
  [
    'goal 5: allowReserved withdrawn from a query parameter',
    (d) => delete query(d, '/customers', 'search').allowReserved,
    [
      [
        "$.paths['/customers'].get.parameters[4]",
        "query parameter 'search' no longer allows reserved characters unescaped (allowReserved)",
      ],
    ],
    (d) => (query(d, '/customers', 'search').allowReserved = true),
  ],
  [
    'goal 5: response header explode changed',
    (d) => (ok200(d).headers.RateLimit.explode = true),
    [
      [
        "$.paths['/customers'].get.responses['200'].headers.RateLimit",
        'response header RateLimit explode changed from false to true',
      ],
    ],
  ],
  [
    'goal 5: response field loses its type',
    (d) => delete schemas(d).Customer.properties.name.type,
    [
      [
        '$.components.schemas.Customer.properties.name',
        'lost its type (string): a value of any type may now appear',
      ],
    ],
  ],
  [
    'goal 5: response field becomes an empty schema',
    (d) => (schemas(d).Customer.properties.email = {}),
    [
      [
        '$.components.schemas.Customer.properties.email',
        'lost its type (string, null): a value of any type may now appear',
      ],
    ],
  ],
  [
    'goal 5: response header loses its type',
    (d) => delete ok200(d).headers['X-Request-Id'].schema.type,
    [
      [
        "$.paths['/customers'].get.responses['200'].headers['X-Request-Id'].schema",
        'lost its type (string): a value of any type may now appear',
      ],
    ],
  ],
];

/** [what, edit, an edit of both documents first] */
const ADDITIVE: [string, (doc: Doc) => void, ((doc: Doc) => void)?][] = [
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
  // Goal 5 of issue 39: what generated clients do not feel stays quiet.
  [
    'goal 5: a path parameter moved to path level',
    (d) => {
      const item = d.paths['/customers/{id}'];
      item.parameters = item.get.parameters.filter((p: Doc) => p.in === 'path');
      for (const method of ['get', 'put'])
        item[method].parameters = item[method].parameters.filter((p: Doc) => p.in !== 'path');
    },
  ],
  [
    'goal 5: new optional parameter at path level',
    (d) => (d.paths['/invoices'].parameters = [{ in: 'query', name: 'lang', schema: { type: 'string' } }]),
  ],
  [
    'goal 5: an operation overrides a path-level parameter with the same one',
    (d) =>
      op(d, '/customers', 'get').parameters.push({ in: 'query', name: 'lang', schema: { type: 'string' } }),
    (d) => (d.paths['/customers'].parameters = [{ in: 'query', name: 'lang', schema: { type: 'string' } }]),
  ],
  [
    'goal 5: style and explode written out as their defaults',
    (d) => {
      Object.assign(query(d, '/customers', 'search'), { style: 'form', explode: true });
      for (const parameter of op(d, '/customers/{id}', 'get').parameters) parameter.style = 'simple';
    },
  ],
  ['goal 5: allowReserved granted', (d) => (query(d, '/customers', 'search').allowReserved = true)],
  [
    'goal 5: a new anyOf branch on a request (more is accepted)',
    (d) => schemas(d).CustomerCreate.properties.nuit.anyOf.push({ type: 'string', minLength: 20 }),
    (d) =>
      (schemas(d).CustomerCreate.properties.nuit.anyOf = [{ type: 'null' }, { minLength: 9, maxLength: 9 }]),
  ],
  [
    'goal 5: a response field written as anyOf of its own types',
    (d) => (schemas(d).Customer.properties.email = { anyOf: [{ type: 'string' }, { type: 'null' }] }),
  ],
  [
    'goal 5: not, if/then, dependentRequired and patternProperties on a response (more precise)',
    (d) => {
      const customer = schemas(d).Customer;
      customer.properties.name.not = { const: '' };
      customer.if = { properties: { type: { const: 'company' } } };
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise
      customer.then = { required: ['nuit'] };
      customer.dependentRequired = { nuit: ['name'] };
      customer.patternProperties = { '^x_': { type: 'string' } };
    },
  ],
  [
    'goal 5: a request anyOf lifted',
    (d) => delete schemas(d).CustomerCreate.anyOf,
    (d) => (schemas(d).CustomerCreate.anyOf = [{ required: ['nuit'] }, { required: ['email'] }]),
  ],
  [
    'goal 5: a request constraint lifted',
    (d) => {
      delete schemas(d).CustomerCreate.dependentRequired;
      delete schemas(d).CustomerCreate.properties.name.not;
    },
    (d) => {
      schemas(d).CustomerCreate.dependentRequired = { nuit: ['address'] };
      schemas(d).CustomerCreate.properties.name.not = { pattern: '^[0-9]+$' };
    },
  ],
];

describe('npm run api:compat (scripts/api-compat/compare.ts)', () => {
  it("finds no breaking change in today's openapi.json and openapi.en.json but the corrections api/corrections.json accepts", () => {
    const list = readFileSync(new URL('../../api/corrections.json', import.meta.url), 'utf8');
    const corrections = parseCorrections(list, 'api/corrections.json');
    for (const document of ['openapi.json', 'openapi.en.json']) {
      const { breaking, stale } = judge(compareDocuments(BASELINE, read(document)), corrections);
      expect(breaking, document).toEqual([]);
      expect(stale, document).toEqual([]);
    }
  });

  it(`has a corpus of at least 40 breaking and 20 additive edits (${BREAKING.length}, ${ADDITIVE.length})`, () => {
    expect(BREAKING.length).toBeGreaterThanOrEqual(40);
    expect(ADDITIVE.length).toBeGreaterThanOrEqual(20);
  });

  it.each(BREAKING)('catches a breaking edit: %s', (_what, edit, expected, prepare) => {
    const base = structuredClone(BASELINE);
    prepare?.(base);
    const head = structuredClone(base);
    edit(head);
    const findings = compareDocuments(base, head).map(({ path, message }) => [path, message]);
    expect(findings).toEqual(expected);
  });

  it.each(ADDITIVE)('does not flag an additive edit: %s', (_what, edit, prepare) => {
    const base = structuredClone(BASELINE);
    prepare?.(base);
    const head = structuredClone(base);
    edit(head);
    expect(compareDocuments(base, head)).toEqual([]);
  });

  it("npm run api:compat -- A B checks every file and exits 1 when any has a breaking change, naming each at its JSON path; 0 on today's documents (issue 39: one command in CI)", async () => {
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
      // The broken document first: the good one after it is still checked, and the exit is 1.
      const failed = await run(tsx, ['scripts/api-compat.ts', file, 'openapi.en.json'], { cwd: root }).then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain("$.paths['/ping'].get: route removed: GET /ping");
      expect(failed?.stderr).toContain(
        '$.components.schemas.CustomerCreate.properties.name: maxLength changed from 255 to 100',
      );
      expect(failed?.stderr).toContain(`${file}: 2 breaking change(s)`);
      expect(failed?.stdout).toContain('openapi.en.json: no breaking change');
      // Without arguments: both of today's documents.
      const passed = await run(tsx, ['scripts/api-compat.ts'], { cwd: root });
      expect(passed.stdout).toContain('openapi.json: no breaking change');
      expect(passed.stdout).toContain('openapi.en.json: no breaking change');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
