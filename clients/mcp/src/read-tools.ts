// The read tools: who am I, and find / get for customers, products, invoices and receipts. Each
// call is exactly one API request; lists answer one page. Results are the API's own objects,
// unchanged, under a name that says what they are.
import { z } from 'zod';
import {
  customerSchema,
  invoiceSchema,
  invoiceSummarySchema,
  pingSchema,
  productSchema,
  receiptSchema,
} from './schemas.js';
import {
  definedOnly,
  defineTool,
  isoDate,
  LIST_NOTE,
  listInput,
  nextPage,
  pageOutput,
  pageSummary,
  READ_ONLY,
  updatedSince,
} from './tool.js';

const id = (what: string) => z.number().int().min(1).max(2147483647).describe(`the ${what}'s id`);

export const whoAmI = defineTool({
  name: 'who_am_i',
  title: 'Who am I: company, key mode and scopes',
  description:
    "Tells which company (empresa) the configured Partner API key belongs to, whether it is a live key (real data, may write) or a test key (svc_sk_test_: real data, never writes), the key's scopes, how many customers (clientes) it can see, and whether this server's write tools are enabled and why. Call it first when unsure what the key may do.",
  scope: null,
  write: false,
  input: z.strictObject({}),
  output: z.strictObject({
    identity: pingSchema.describe("the API's answer to GET /ping"),
    writes_enabled: z.boolean().describe('whether any write tool is listed by this server'),
    write_tools: z.array(z.string()).describe('the write tools listed for this key'),
    writes_note: z.string().describe('why writes are on or off'),
  }),
  annotations: READ_ONLY,
  async run(_args, { api, signal, access }) {
    const identity = await api.ping({ signal });
    return {
      summary: `Key of company id ${identity.tenant_id}, ${identity.mode} mode, ${identity.scopes.length} scopes; writes ${access.writeTools.length > 0 ? 'enabled' : 'disabled'}.`,
      result: {
        identity,
        writes_enabled: access.writeTools.length > 0,
        write_tools: access.writeTools,
        writes_note: access.writesNote,
      },
    };
  },
});

export const findCustomers = defineTool({
  name: 'find_customers',
  title: 'Find customers (clientes)',
  description: `Find the company's customers (clientes), people or companies, by a case-insensitive search on name, e-mail, NUIT (tax number) or phone, by type, or by last change. Global customers shared by every company are included. ${LIST_NOTE}`,
  scope: 'customers:read',
  write: false,
  input: z.strictObject({
    search: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('part of the name, e-mail, NUIT or phone, e.g. "xai-xai" or "400123456"'),
    type: z.enum(['individual', 'company']).optional().describe('individual (pessoa) or company (empresa)'),
    updated_since: updatedSince.optional(),
    sort: z.enum(['name', 'created_at', 'updated_at']).optional().describe('default: newest first'),
    ...listInput,
  }),
  output: z.strictObject({ customers: z.array(customerSchema), ...pageOutput }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const page = await api.customers.list(definedOnly(args), { signal });
    return {
      summary: pageSummary('customers', page.pagination),
      result: { customers: page.data, pagination: page.pagination, next_page: nextPage(page.pagination) },
    };
  },
});

export const getCustomer = defineTool({
  name: 'get_customer',
  title: 'A customer (cliente) by id',
  description:
    'One customer (cliente) of the company by id: name, type, e-mail, phone, NUIT (tax number), address. A customer of another company answers exactly like a missing one (resource_not_found).',
  scope: 'customers:read',
  write: false,
  input: z.strictObject({ id: id('customer') }),
  output: z.strictObject({ customer: customerSchema }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const customer = await api.customers.get(args.id, { signal });
    return { summary: `Customer id ${customer.id}.`, result: { customer } };
  },
});

export const findProducts = defineTool({
  name: 'find_products',
  title: 'Find products and services (produtos)',
  description: `Find the company's products and services (produtos, serviços) by a case-insensitive search on name, product code or SKU, by type, by whether they are for sale, or by last change. Prices are decimal text in MZN. ${LIST_NOTE}`,
  scope: 'products:read',
  write: false,
  input: z.strictObject({
    search: z.string().min(1).max(255).optional().describe('part of the name, product code or SKU'),
    type: z
      .enum(['GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT'])
      .optional()
      .describe('GOODS (mercadoria), SERVICES (serviço), RAW (matéria-prima), ASSETS (activo), KIT'),
    is_for_sale: z
      .boolean()
      .optional()
      .describe('true: only products for sale; false: only those not for sale'),
    updated_since: updatedSince.optional(),
    sort: z.enum(['name', 'price', 'stock', 'created_at', 'updated_at']).optional(),
    ...listInput,
  }),
  output: z.strictObject({ products: z.array(productSchema), ...pageOutput }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const page = await api.products.list(definedOnly(args), { signal });
    return {
      summary: pageSummary('products', page.pagination),
      result: { products: page.data, pagination: page.pagination, next_page: nextPage(page.pagination) },
    };
  },
});

export const getProduct = defineTool({
  name: 'get_product',
  title: 'A product (produto) by id',
  description:
    'One product or service (produto) of the company by id: code, SKU, type, unit, price and POS price (decimal text), tax rate, stock, categories.',
  scope: 'products:read',
  write: false,
  input: z.strictObject({ id: id('product') }),
  output: z.strictObject({ product: productSchema }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const product = await api.products.get(args.id, { signal });
    return { summary: `Product id ${product.id}.`, result: { product } };
  },
});

export const findInvoices = defineTool({
  name: 'find_invoices',
  title: 'Find invoices (facturas)',
  description: `Find the company's invoices (facturas) by status, customer (cliente), invoice date range or last change. Status: draft (rascunho, not yet issued), unpaid (por pagar), partially_paid (parcialmente paga), paid (paga), cancelled (anulada). "Still unpaid" means unpaid or partially_paid: ask for each. Amounts are decimal text in the invoice's currency; remaining_amount is what is still owed. Lists carry no lines: use get_invoice for an invoice's lines. ${LIST_NOTE}`,
  scope: 'invoices:read',
  write: false,
  input: z.strictObject({
    status: z.enum(['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled']).optional(),
    customer_id: z
      .number()
      .int()
      .min(1)
      .max(2147483647)
      .optional()
      .describe("the customer's id (find it with find_customers)"),
    date_from: isoDate.optional().describe('invoice date on or after, YYYY-MM-DD'),
    date_to: isoDate.optional().describe('invoice date on or before, YYYY-MM-DD'),
    updated_since: updatedSince.optional(),
    sort: z
      .enum(['invoice_date', 'due_date', 'grand_total', 'created_at', 'updated_at'])
      .optional()
      .describe('default: newest invoice date first'),
    ...listInput,
  }),
  output: z.strictObject({ invoices: z.array(invoiceSummarySchema), ...pageOutput }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const page = await api.invoices.list(definedOnly(args), { signal });
    return {
      summary: pageSummary('invoices', page.pagination),
      result: { invoices: page.data, pagination: page.pagination, next_page: nextPage(page.pagination) },
    };
  },
});

export const getInvoice = defineTool({
  name: 'get_invoice',
  title: 'An invoice (factura) with its lines',
  description:
    'One invoice (factura) by id, with its lines (items: product, quantity, price, discount, tax, total) and totals, status, customer, dates, reference and notes. Drafts (rascunhos) have a code DRAFT-xxxxxxxx until a person issues them.',
  scope: 'invoices:read',
  write: false,
  input: z.strictObject({ id: id('invoice') }),
  output: z.strictObject({ invoice: invoiceSchema }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const invoice = await api.invoices.get(args.id, { signal });
    return { summary: `Invoice id ${invoice.id} with ${invoice.items.length} lines.`, result: { invoice } };
  },
});

export const findReceipts = defineTool({
  name: 'find_receipts',
  title: 'Find receipts (recibos) of an invoice or a period',
  description: `Find receipts (recibos, pagamentos recebidos) of the company: those of one invoice (invoice_id), or those of a period of payment dates (date_from, date_to). Each receipt shows its amount (decimal text), date, method and the invoice it pays. Receipts are read-only: nothing here records a payment. ${LIST_NOTE}`,
  scope: 'payments:read',
  write: false,
  input: z.strictObject({
    invoice_id: z.number().int().min(1).max(2147483647).optional().describe("only this invoice's receipts"),
    date_from: isoDate.optional().describe('payment date on or after, YYYY-MM-DD'),
    date_to: isoDate.optional().describe('payment date on or before, YYYY-MM-DD'),
    sort: z
      .enum(['payment_date', 'amount', 'created_at', 'updated_at'])
      .optional()
      .describe('default: newest payment date first'),
    ...listInput,
  }),
  output: z.strictObject({ receipts: z.array(receiptSchema), ...pageOutput }),
  annotations: READ_ONLY,
  async run(args, { api, signal }) {
    const page = await api.payments.list(definedOnly(args), { signal });
    return {
      summary: pageSummary('receipts', page.pagination),
      result: { receipts: page.data, pagination: page.pagination, next_page: nextPage(page.pagination) },
    };
  },
});

export const READ_TOOLS = [
  whoAmI,
  findCustomers,
  getCustomer,
  findProducts,
  getProduct,
  findInvoices,
  getInvoice,
  findReceipts,
];
