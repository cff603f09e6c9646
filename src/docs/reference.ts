// What the published reference adds to the document the route schemas make (src/openapi.ts), in
// each language: the code samples of every operation (`x-codeSamples`, from docs/samples) and the
// webhook events (OpenAPI 3.1 `webhooks`: the envelope, each type, its `data` as the resource's own
// schema, the signature headers). openapi.json is the Portuguese document; openapi.en.json the
// same document with every description in English (src/docs/reference-en.ts) and the samples'
// comments in English. `npm run openapi` writes both; a test keeps them current.
import { Decimal } from '../money.js';
import type { Language } from './error-catalog.js';
import { ENGLISH } from './reference-en.js';
import { codeSamples, SAMPLES } from './samples.js';
import {
  type Text,
  WEBHOOK_EVENTS,
  WEBHOOK_TEXT,
  WEBHOOK_TYPES,
  type WebhookType,
} from './webhook-events.js';

type Json = Record<string, unknown>;

const ref = (kind: 'schemas' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** `invoice.partially_paid` -> `invoicePartiallyPaidEvent` */
function operationIdOf(type: string): string {
  return `${type.replace(/[._]([a-z])/g, (_, letter: string) => letter.toUpperCase())}Event`;
}

/** The envelope schema of the events whose `data` is `data` (a resource schema, or the ping's). */
function envelope(types: readonly string[], data: Json, lang: Language): Json {
  const t = (text: Text) => text[lang];
  return {
    type: 'object',
    description: t(WEBHOOK_TEXT.envelope),
    required: ['id', 'type', 'created_at', 'data', 'cause'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        pattern: '^evt_[0-9a-f]{24}$',
        description: t(WEBHOOK_TEXT.id),
        examples: ['evt_5f0c1e2d3b4a59687766a1b2'],
      },
      type: { type: 'string', enum: [...types], description: t(WEBHOOK_TEXT.type) },
      created_at: {
        type: 'string',
        format: 'date-time',
        description: t(WEBHOOK_TEXT.createdAt),
        examples: ['2026-11-22T09:30:00.000+02:00'],
      },
      data,
      cause: ref('schemas', 'EventCause'),
    },
  };
}

function webhookSchemas(lang: Language): Json {
  const t = (text: Text) => text[lang];
  const typesOf = (data: string | null) => WEBHOOK_TYPES.filter((type) => WEBHOOK_EVENTS[type].data === data);
  const withDescription = (schema: string) => ({
    ...ref('schemas', schema),
    description: t(WEBHOOK_TEXT.data),
  });
  return {
    InvoiceEvent: envelope(typesOf('Invoice'), withDescription('Invoice'), lang),
    PaymentEvent: envelope(typesOf('Payment'), withDescription('Payment'), lang),
    CustomerEvent: envelope(typesOf('Customer'), withDescription('Customer'), lang),
    ProductEvent: envelope(typesOf('Product'), withDescription('Product'), lang),
    PingEvent: envelope(
      typesOf(null),
      {
        type: 'object',
        description: t(WEBHOOK_TEXT.pingData),
        required: ['endpoint_id', 'message'],
        additionalProperties: false,
        properties: {
          endpoint_id: { type: 'integer', description: t(WEBHOOK_TEXT.endpointId) },
          message: { type: 'string', description: t(WEBHOOK_TEXT.message) },
        },
      },
      lang,
    ),
    EventCause: {
      description: t(WEBHOOK_TEXT.cause),
      oneOf: [
        ref('schemas', 'EventCauseApiKey'),
        ref('schemas', 'EventCauseOperator'),
        ref('schemas', 'EventCauseSystem'),
      ],
      discriminator: {
        propertyName: 'kind',
        mapping: {
          api_key: '#/components/schemas/EventCauseApiKey',
          operator: '#/components/schemas/EventCauseOperator',
          system: '#/components/schemas/EventCauseSystem',
        },
      },
    },
    EventCauseApiKey: {
      type: 'object',
      description: t(WEBHOOK_TEXT.causeApiKey),
      required: ['kind', 'api_key_id', 'api_key_last4', 'request_id', 'idempotency_key'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string', const: 'api_key' },
        api_key_id: { type: 'integer', description: t(WEBHOOK_TEXT.apiKeyId), examples: [12] },
        api_key_last4: { type: 'string', description: t(WEBHOOK_TEXT.apiKeyLast4), examples: ['9f3c'] },
        request_id: {
          type: 'string',
          description: t(WEBHOOK_TEXT.requestId),
          examples: ['req_4f1c2a9b7d3e8f6a1b2c3d4e'],
        },
        idempotency_key: {
          type: 'string',
          description: t(WEBHOOK_TEXT.idempotencyKey),
          examples: ['order-2026-0042'],
        },
      },
    },
    EventCauseOperator: {
      type: 'object',
      description: t(WEBHOOK_TEXT.causeOperator),
      required: ['kind', 'operator', 'command'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string', const: 'operator' },
        operator: { type: 'string', description: t(WEBHOOK_TEXT.operator), examples: ['maria'] },
        command: { type: 'string', description: t(WEBHOOK_TEXT.command), examples: ['invoices issue'] },
      },
    },
    EventCauseSystem: {
      type: 'object',
      description: t(WEBHOOK_TEXT.causeSystem),
      required: ['kind', 'name'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string', const: 'system' },
        name: { type: 'string', description: t(WEBHOOK_TEXT.systemName), examples: ['webhooks test'] },
      },
    },
  };
}

function webhookParameters(lang: Language): Json {
  const header = (name: string, description: Text, schema: Json, example: string) => ({
    name,
    in: 'header',
    required: true,
    description: description[lang],
    schema,
    example,
  });
  return {
    WebhookId: header(
      'webhook-id',
      WEBHOOK_TEXT.webhookId,
      { type: 'string' },
      'evt_5f0c1e2d3b4a59687766a1b2',
    ),
    WebhookTimestamp: header(
      'webhook-timestamp',
      WEBHOOK_TEXT.webhookTimestamp,
      { type: 'string', pattern: '^[0-9]+$' },
      '1795000000',
    ),
    WebhookSignature: header(
      'webhook-signature',
      WEBHOOK_TEXT.webhookSignature,
      { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
      'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    ),
  };
}

/** How each type changes its resource's example (components.schemas.X.examples[0]) and who causes it. */
function exampleOf(type: WebhookType, data: Json | null): Json {
  const invoice = (changes: Json) => ({ ...data, invoice_code: 'FT 2026/000123', ...changes });
  const grandTotal = new Decimal(String(data?.grand_total ?? '0'));
  const part = grandTotal.div(2).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  const byApi = {
    kind: 'api_key',
    api_key_id: 12,
    api_key_last4: '9f3c',
    request_id: 'req_4f1c2a9b7d3e8f6a1b2c3d4e',
    idempotency_key: 'order-2026-0042',
  };
  const byOperator = (command: string) => ({ kind: 'operator', operator: 'maria', command });
  const examples: Record<WebhookType, [Json, Json]> = {
    'invoice.created': [data!, byApi],
    'invoice.issued': [invoice({ status: 'unpaid' }), byOperator('invoices issue')],
    'invoice.partially_paid': [
      invoice({
        status: 'partially_paid',
        paid_amount: part.toFixed(2),
        remaining_amount: grandTotal.minus(part).toFixed(2),
      }),
      byOperator('payments record'),
    ],
    'invoice.paid': [
      invoice({ status: 'paid', paid_amount: grandTotal.toFixed(2), remaining_amount: '0.00' }),
      byOperator('payments record'),
    ],
    'invoice.cancelled': [invoice({ status: 'cancelled' }), byOperator('invoices cancel')],
    'payment.created': [data!, byOperator('payments record')],
    'customer.created': [data!, byApi],
    'customer.updated': [data!, byApi],
    'product.created': [data!, byApi],
    'product.updated': [data!, byApi],
    ping: [
      { endpoint_id: 3, message: 'Teste do webhook: se recebeu isto, o endpoint está configurado.' },
      { kind: 'system', name: 'webhooks test' },
    ],
  };
  const [example, cause] = examples[type];
  return {
    id: 'evt_5f0c1e2d3b4a59687766a1b2',
    type,
    created_at: '2026-11-22T09:30:00.000+02:00',
    data: example,
    cause,
  };
}

/** One `webhooks` entry per event type: a POST to the partner with the event and its signature. */
function webhooks(lang: Language, schemas: Json): Json {
  const entries: Json = {};
  for (const type of WEBHOOK_TYPES) {
    const event = WEBHOOK_EVENTS[type];
    const schema = `${event.data ?? 'Ping'}Event`;
    const resource = event.data ? ((schemas[event.data] as Json).examples as Json[])[0]! : null;
    entries[type] = {
      post: {
        operationId: operationIdOf(type),
        summary: type,
        description: `${event.when[lang]}\n\n${WEBHOOK_TEXT.description[lang]}`,
        tags: ['webhooks'],
        security: [],
        parameters: [
          ref('parameters', 'WebhookId'),
          ref('parameters', 'WebhookTimestamp'),
          ref('parameters', 'WebhookSignature'),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [ref('schemas', schema), { type: 'object', properties: { type: { const: type } } }],
              },
              example: exampleOf(type, resource),
            },
          },
        },
        responses: {
          '2XX': { description: WEBHOOK_TEXT.accepted[lang] },
          '400': { description: WEBHOOK_TEXT.refused[lang] },
        },
      },
    };
  }
  return entries;
}

function sortedByName(entries: Json): Json {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
}

/** Adds the samples of each operation, the webhooks and their components, in `lang`. */
function withExtras(document: Json, lang: Language): Json {
  const paths: Json = {};
  const operations = new Set(SAMPLES.filter((sample) => sample.operation).map((sample) => sample.id));
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    const finished: Json = {};
    for (const [method, operation] of Object.entries(methods)) {
      const id = operation.operationId as string;
      if (!operations.delete(id))
        throw new Error(`no code sample for ${id} (docs/samples, src/docs/samples.ts)`);
      finished[method] = { ...operation, 'x-codeSamples': codeSamples(id, lang) };
    }
    paths[path] = finished;
  }
  if (operations.size > 0) throw new Error(`code samples of no operation: ${[...operations].join(', ')}`);
  const components = document.components as Json;
  const { paths: _, ...rest } = document;
  return {
    ...rest,
    tags: [...(document.tags as Json[]), { name: 'webhooks', description: WEBHOOK_TEXT.tag[lang] }],
    paths,
    webhooks: webhooks(lang, components.schemas as Json),
    components: {
      ...components,
      schemas: sortedByName({ ...(components.schemas as Json), ...webhookSchemas(lang) }),
      parameters: sortedByName({ ...(components.parameters as Json), ...webhookParameters(lang) }),
    },
  };
}

/** Keys whose subtree is data or code, never prose to translate. */
const NOT_PROSE = new Set(['examples', 'example', 'x-codeSamples', 'enum', 'const', 'default', 'pattern']);
/** Keys that hold prose. */
const PROSE = new Set(['description', 'summary']);

/** The document with every description and summary in English; throws naming any not translated. */
function translated(document: Json): Json {
  const missing = new Set<string>();
  const walk = (node: unknown, key: string | null): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, null));
    if (typeof node === 'string') {
      if (key === null || !PROSE.has(key)) return node;
      const english = ENGLISH[node];
      if (english === undefined) missing.add(node);
      return english ?? node;
    }
    if (typeof node !== 'object' || node === null) return node;
    const copy: Json = {};
    for (const [name, value] of Object.entries(node))
      copy[name] = NOT_PROSE.has(name) ? value : walk(value, name);
    return copy;
  };
  const info = document.info as Json;
  const english = walk(document, null) as Json;
  for (const text of [info.title, (info.contact as Json).name]) {
    if (ENGLISH[text as string] === undefined) missing.add(text as string);
  }
  english.info = {
    ...(english.info as Json),
    title: ENGLISH[info.title as string],
    contact: {
      ...((english.info as Json).contact as Json),
      name: ENGLISH[(info.contact as Json).name as string],
    },
  };
  if (missing.size > 0) {
    throw new Error(
      `openapi.en.json: no English in src/docs/reference-en.ts for:\n${[...missing].map((text) => `  ${JSON.stringify(text)}`).join('\n')}`,
    );
  }
  return english;
}

/** The Portuguese strings of the document that the English one translates (for the catalog's test). */
export function proseOf(document: Json): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown, key: string | null): void => {
    if (Array.isArray(node)) for (const item of node) walk(item, null);
    else if (typeof node === 'string') {
      if (key !== null && PROSE.has(key)) found.add(node);
    } else if (typeof node === 'object' && node !== null) {
      for (const [name, value] of Object.entries(node)) if (!NOT_PROSE.has(name)) walk(value, name);
    }
  };
  walk(document, null);
  const info = document.info as Json;
  found.add(info.title as string);
  found.add((info.contact as Json).name as string);
  return found;
}

/** openapi.json: the document the route schemas make (in Portuguese), with samples and webhooks. */
export function portugueseReference(base: Json): Json {
  return withExtras(base, 'pt');
}

/** openapi.en.json: the same in English. */
export function englishReference(base: Json): Json {
  return withExtras(translated(base), 'en');
}
