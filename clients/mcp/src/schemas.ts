// The API's resources as zod schemas, for the tools' output schemas (the SDK publishes them as JSON
// Schema and checks every structured result against them). They follow the repository's
// openapi.json field for field; a test compares their property names with it. Objects are loose
// so that a field the API adds later passes through unchanged instead of failing a call.
import { z } from 'zod';

/** Money as the API returns it: decimal text with two decimals, never a binary float. */
export const money = z
  .string()
  .regex(/^-?[0-9]+\.[0-9]{2}$/)
  .nullable()
  .describe('decimal text with two decimals, e.g. "1250.00"; null when unset');

const timestamp = z.string().describe('ISO 8601 timestamp with offset');
const date = z.string().describe('YYYY-MM-DD');

export const pingSchema = z.looseObject({
  tenant_id: z.number().int().describe('the company the key belongs to'),
  tenant_name: z.string(),
  mode: z.enum(['live', 'test']).describe('live: real data, may write; test: real data, read only'),
  scopes: z.array(z.string()),
  customers_visible: z.number().int(),
  request_id: z.string(),
});

export const customerSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  type: z.enum(['individual', 'company']),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  contact_number: z.string().nullable(),
  nuit: z.string().nullable().describe('NUIT, the Mozambican tax number'),
  address: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const productSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  product_code: z.string(),
  sku: z.string(),
  description: z.string().nullable(),
  type: z.enum(['GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT']),
  unity: z.string(),
  price: money,
  pos_price: money,
  vat_included: z.boolean(),
  tax_rate: z.number().nullable(),
  stock: z.number().nullable(),
  reorder_level: z.number().int().nullable(),
  tracks_inventory: z.boolean(),
  is_for_sale: z.boolean(),
  categories: z.array(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
});

export const invoiceItemSchema = z.looseObject({
  id: z.number().int(),
  product_id: z.number().int().nullable(),
  name: z.string(),
  description: z.string(),
  quantity: z.number().nullable(),
  price: money,
  discount: money,
  discount_percentage: z.number().nullable(),
  tax_amount: money,
  tax_rate: z.number().nullable(),
  tax_included: z.boolean().nullable(),
  total: money,
});

const invoiceFields = {
  id: z.number().int(),
  invoice_code: z.string().describe('DRAFT-xxxxxxxx while a draft (rascunho), the fiscal code once issued'),
  payment_notice_code: z.string(),
  document_type: z.string(),
  is_payment_notice: z.boolean(),
  notice_kind: z.string(),
  is_pos_sale: z.boolean(),
  reference: z.string(),
  payment_reference: z.string(),
  status: z.enum(['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled']),
  invoice_date: date,
  due_date: date,
  currency: z.string(),
  exchange_rate: z.number().nullable(),
  subtotal: money,
  discount: money,
  global_discount_amount: money,
  vat_base: money,
  tax: money,
  grand_total: money,
  paid_amount: money,
  remaining_amount: money,
  notes: z.string(),
  customer: z.looseObject({ id: z.number().int(), name: z.string() }).nullable(),
  created_at: timestamp,
  updated_at: timestamp,
};

/** An invoice as lists return it: without lines. */
export const invoiceSummarySchema = z.looseObject(invoiceFields);

/** An invoice with its lines (single reads and creation). */
export const invoiceSchema = z.looseObject({ ...invoiceFields, items: z.array(invoiceItemSchema) });

export const receiptSchema = z.looseObject({
  id: z.number().int(),
  payment_code: z.string(),
  payment_date: date.nullable(),
  amount: money,
  payment_method: z.string(),
  payment_method_type: z.string(),
  reference: z.string(),
  notes: z.string().nullable(),
  invoice: z
    .looseObject({ id: z.number().int(), invoice_code: z.string(), payment_notice_code: z.string() })
    .nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const paginationSchema = z.looseObject({
  total: z.number().int(),
  count: z.number().int(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  last_page: z.number().int(),
});
