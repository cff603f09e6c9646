// The write tools: create or update a customer, create or update a product, create a draft
// invoice. Listed only when the key is live, has the tool's scope, and the server was started
// with --allow-writes. Every call carries an Idempotency-Key (the assistant's, or one made here
// and returned), so a call repeated with the same key and arguments creates nothing twice: the
// API answers it from its record of the first.
import { randomUUID } from 'node:crypto';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { customerSchema, invoiceSchema, productSchema } from './schemas.js';
import { definedOnly, defineTool, isoDate } from './tool.js';

/**
 * Tool arguments reach this server through the MCP SDK's JSON.parse: a JSON number is a binary
 * double by then, exact only to 15 significant digits (`99999999999999.99` arrives as
 * 99999999999999.98, `4.350000000000000001` as 4.35). So a number whose digits go beyond 15 is
 * refused here, before anything is sent, asking for decimal text, which keeps every digit.
 */
export const PRECISION_NOTE =
  'A number beyond 15 significant digits must be sent as decimal text ("99999999999999.99"): a JSON number reaches this server as a binary double, exact only to 15 digits.';

/** Significant digits of a number's shortest text (9007199254740992 -> 16, 1250.5 -> 5, 1e21 -> 1). */
export function significantDigits(value: number): number {
  const mantissa = String(Math.abs(value)).split(/e/i)[0] ?? '';
  return mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/** A JSON number this server can pass on exactly: at most 15 significant digits. */
const exactNumber = (number: z.ZodNumber = z.number()) =>
  number.refine((value) => significantDigits(value) <= 15, {
    message: `more than 15 significant digits. ${PRECISION_NOTE}`,
  });

/**
 * An amount as the API takes it, a JSON number (`1250.5`), or as decimal text (`"1250.50"`), which
 * the TypeScript client writes into the request as a number digit for digit (never through a
 * binary float). The API checks the rest (at most 2 decimals, not negative, the maximum) and
 * names the field.
 */
const amount = z
  .union([
    exactNumber(),
    z
      .string()
      .regex(
        /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/,
        'a decimal number or decimal text, e.g. 1250.5 or "1250.50" (no thousands separator, a dot for decimals)',
      ),
  ])
  .describe(`a JSON number (1250.5) or decimal text ("1250.50"), at most 2 decimals. ${PRECISION_NOTE}`);

const idempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{8,191}$/, '8 to 191 letters, digits, ".", "_", ":" or "-"')
  .optional()
  .describe(
    'makes a repeat safe: the same key with the same arguments within 24 hours returns the first result and creates nothing new (e.g. "order-341"). Left out, one is made and returned; reuse it to retry.',
  );

const writeOutput = {
  replayed: z
    .boolean()
    .describe('true when the API answered from its record of an earlier call with this key'),
  idempotency_key: z.string().describe('the Idempotency-Key sent; give it again to repeat the call safely'),
};

/** A change of existing records: a repeat without the same key could create twice. */
const SAVE: ToolAnnotations = {
  readOnlyHint: false,
  // With an id, the fields sent replace the stored ones.
  destructiveHint: true,
  // Without idempotency_key, the same arguments sent twice create two records.
  idempotentHint: false,
  openWorldHint: false,
};

const CREATE_DRAFT: ToolAnnotations = {
  readOnlyHint: false,
  // Only ever adds a draft; nothing existing is changed, issued or deleted.
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

function keyOf(given: string | undefined): string {
  return given ?? `mcp-${randomUUID()}`;
}

const optionalText = (max: number, what: string) =>
  z.string().max(max).nullable().optional().describe(`${what}; null clears it`);

export const saveCustomer = defineTool({
  name: 'save_customer',
  title: 'Create or update a customer (cliente)',
  description:
    "Creates a customer (cliente) of the company, or, with id, updates one: only the fields sent change, null clears a field. name is required to create. type is individual (default) or company. nuit is the Mozambican tax number (NUIT). The e-mail must be unique among the company's customers. Global customers cannot be updated (resource_not_found). Use find_customers first to avoid creating a duplicate.",
  scope: 'customers:write',
  write: true,
  input: z.strictObject({
    id: z
      .number()
      .int()
      .min(1)
      .max(2147483647)
      .optional()
      .describe('update this customer; leave out to create'),
    name: z.string().min(1).max(255).optional().describe('required to create'),
    type: z.enum(['individual', 'company']).optional(),
    email: optionalText(255, 'e-mail'),
    phone: optionalText(50, 'phone'),
    contact_number: optionalText(50, 'another contact number'),
    nuit: optionalText(20, 'NUIT (tax number)'),
    address: optionalText(500, 'address'),
    idempotency_key: idempotencyKey,
  }),
  output: z.strictObject({
    customer: customerSchema,
    action: z.enum(['created', 'updated']),
    ...writeOutput,
  }),
  annotations: SAVE,
  async run(args, { api, signal, wasReplayed }) {
    const { id, idempotency_key, ...fields } = args;
    const key = keyOf(idempotency_key);
    const body = definedOnly(fields);
    const customer =
      id === undefined
        ? await api.customers.create(body as typeof body & { name: string }, { idempotencyKey: key, signal })
        : await api.customers.update(id, body, { idempotencyKey: key, signal });
    const action: 'created' | 'updated' = id === undefined ? 'created' : 'updated';
    const replayed = wasReplayed(key);
    return {
      summary: `Customer id ${customer.id} ${action}${replayed ? ' (replayed: nothing new was written)' : ''}.`,
      result: { customer, action, replayed, idempotency_key: key },
    };
  },
});

export const saveProduct = defineTool({
  name: 'save_product',
  title: 'Create or update a product (produto)',
  description: `Creates a product or service (produto, serviço) of the company, or, with id, replaces one: name, type, inventory and price are required in both cases; an optional field left out keeps its value, null clears it. Prices are in MZN, a JSON number (1250.5) or decimal text ("1250.50"); answers carry decimal text with two decimals. inventory is INVENTORY (moves stock) or NON_INVENTORY (services). ${PRECISION_NOTE} The product code is generated by the service. A product created or changed here enters the point-of-sale synchronisation at once, with no approval step. Use find_products first to avoid a duplicate.`,
  scope: 'products:write',
  write: true,
  input: z.strictObject({
    id: z
      .number()
      .int()
      .min(1)
      .max(2147483647)
      .optional()
      .describe('replace this product; leave out to create'),
    name: z.string().min(1).max(255),
    type: z
      .enum(['GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT'])
      .describe('GOODS (mercadoria), SERVICES (serviço), RAW (matéria-prima), ASSETS (activo), KIT'),
    inventory: z
      .enum(['INVENTORY', 'NON_INVENTORY'])
      .describe('INVENTORY moves stock; NON_INVENTORY does not'),
    price: amount.describe(
      `sale price in MZN, a number (1250.5) or decimal text ("1250.50"), at most 2 decimals, below 10^16. ${PRECISION_NOTE}`,
    ),
    pos_price: amount
      .nullable()
      .optional()
      .describe(`point-of-sale price, like price; null clears it. ${PRECISION_NOTE}`),
    description: optionalText(2000, 'description'),
    sku: optionalText(100, "the partner's own code"),
    unity: optionalText(50, 'unit of measure, e.g. "kg" or "un"'),
    vat_included: z.boolean().nullable().optional().describe('whether the price includes VAT (IVA)'),
    reorder_level: z.number().int().min(0).nullable().optional(),
    is_for_sale: z.boolean().nullable().optional(),
    is_for_purchase: z.boolean().nullable().optional(),
    tax_id: z.number().int().min(1).nullable().optional().describe('a tax of the company or a global tax'),
    idempotency_key: idempotencyKey,
  }),
  output: z.strictObject({
    product: productSchema,
    action: z.enum(['created', 'updated']),
    ...writeOutput,
  }),
  annotations: SAVE,
  async run(args, { api, signal, wasReplayed }) {
    const { id, idempotency_key, ...fields } = args;
    const key = keyOf(idempotency_key);
    const body = definedOnly(fields) as typeof fields;
    const product =
      id === undefined
        ? await api.products.create(body, { idempotencyKey: key, signal })
        : await api.products.update(id, body, { idempotencyKey: key, signal });
    const action: 'created' | 'updated' = id === undefined ? 'created' : 'updated';
    const replayed = wasReplayed(key);
    return {
      summary: `Product id ${product.id} ${action}${replayed ? ' (replayed: nothing new was written)' : ''}.`,
      result: { product, action, replayed, idempotency_key: key },
    };
  },
});

export const DRAFT_NOTE =
  'This is a draft (rascunho): it has no fiscal number, moved no stock and made no accounting entry. A person must review and issue it inside the invoicing application; neither the API nor this tool can issue, approve, send or cancel an invoice.';

export const createDraftInvoice = defineTool({
  name: 'create_draft_invoice',
  title: 'Create a draft invoice (rascunho de factura)',
  description: `Creates a DRAFT invoice (rascunho de factura) for a customer (cliente) of the company, with 1 to 200 lines. It is never a fiscal invoice: ${DRAFT_NOTE} Every line needs product_id (find it with find_products; a service must exist as a product first), quantity, and price (a JSON number, 1250.5, or decimal text, "1250.50"; the price is never taken from the product). discount is a percentage (0 to 100). ${PRECISION_NOTE} A line's tax is the product's own tax unless tax_id is given (null: no tax). currency is MZN (default), USD or ZAR; due_date defaults to invoice_date. Give idempotency_key (e.g. the order number, "order-341") so that asking twice creates one draft.`,
  scope: 'invoices:write',
  write: true,
  input: z.strictObject({
    customer_id: z
      .number()
      .int()
      .min(1)
      .max(2147483647)
      .describe("the customer's id (find it with find_customers)"),
    invoice_date: isoDate.describe('invoice date, YYYY-MM-DD'),
    due_date: isoDate
      .optional()
      .describe('due date, YYYY-MM-DD, not before invoice_date (default: invoice_date)'),
    reference: z.string().max(255).optional().describe("e.g. the customer's order number"),
    notes: z.string().max(2000).optional(),
    currency: z.enum(['MZN', 'USD', 'ZAR']).optional(),
    exchange_rate: exactNumber(z.number().positive())
      .optional()
      .describe(`for USD or ZAR, at most 6 decimals. ${PRECISION_NOTE}`),
    items: z
      .array(
        z.strictObject({
          product_id: z.number().int().min(1).max(2147483647),
          quantity: exactNumber(z.number().positive()).describe(
            `e.g. 2 or 1.5, at most 4 decimals. ${PRECISION_NOTE}`,
          ),
          price: amount.describe(
            `unit price, a number (1250.5) or decimal text ("1250.50"), at most 2 decimals. ${PRECISION_NOTE}`,
          ),
          discount: exactNumber(z.number().min(0).max(100))
            .optional()
            .describe('percentage, 0 to 100, at most 4 decimals'),
          tax_id: z
            .number()
            .int()
            .min(1)
            .nullable()
            .optional()
            .describe("left out: the product's tax; null: no tax"),
          name: z.string().max(255).optional().describe("line text (default: the product's name)"),
          description: z.string().max(2000).optional(),
        }),
      )
      .min(1)
      .max(200),
    idempotency_key: idempotencyKey,
  }),
  output: z.strictObject({
    invoice: invoiceSchema,
    ...writeOutput,
    next_step: z.string().describe('what must happen before this becomes a fiscal invoice'),
  }),
  annotations: CREATE_DRAFT,
  async run(args, { api, signal, wasReplayed }) {
    const { idempotency_key, ...body } = args;
    const key = keyOf(idempotency_key);
    const invoice = await api.invoices.create(body, { idempotencyKey: key, signal });
    const replayed = wasReplayed(key);
    return {
      summary: `Draft invoice id ${invoice.id} ${replayed ? 'already existed for this idempotency_key (nothing new was created)' : 'created'}; a person must issue it.`,
      result: { invoice, replayed, idempotency_key: key, next_step: DRAFT_NOTE },
    };
  },
});

export const WRITE_TOOLS = [saveCustomer, saveProduct, createDraftInvoice];
