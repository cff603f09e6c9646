// The invoice resource (contract 2.4, 2.5), the creation body (2.6) and the list query (section 4).
import { type Static, type TProperties, Type } from 'typebox';
import { INVOICE_STATUSES } from '../db/schema.js';
import { DATE_HINT, ID_HINT, ISO_INSTANT_HINT, listQuerySchema } from '../http/list-query.js';
import {
  DateOnly,
  MoneyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  Timestamp,
} from '../http/schema-helpers.js';
import { MAX_INT32 } from '../values.js';

export const INVOICE_SORTS = ['invoice_date', 'due_date', 'grand_total', 'created_at', 'updated_at'] as const;
export const CURRENCIES = ['MZN', 'USD', 'ZAR'] as const;
export const MAX_INVOICE_LINES = 200;

export const InvoiceItemSchema = Type.Object(
  {
    id: Type.Integer(),
    product_id: Nullable(Type.Integer()),
    name: Type.String(),
    description: Type.String(),
    quantity: Nullable(Type.Number()),
    price: Nullable(MoneyString()),
    discount: Nullable(MoneyString()),
    discount_percentage: Nullable(Type.Number()),
    tax_amount: Nullable(MoneyString()),
    tax_rate: Nullable(Type.Number()),
    tax_included: Nullable(Type.Boolean()),
    total: Nullable(MoneyString()),
  },
  { additionalProperties: false },
);

export const CustomerRefSchema = Type.Object(
  { id: Type.Integer(), name: Type.String() },
  { additionalProperties: false },
);

const invoiceFields = {
  id: Type.Integer(),
  invoice_code: Type.String(),
  payment_notice_code: Type.String(),
  document_type: Type.String(),
  is_payment_notice: Type.Boolean(),
  notice_kind: Type.String(),
  is_pos_sale: Type.Boolean(),
  reference: Type.String(),
  payment_reference: Type.String(),
  status: StringEnum(INVOICE_STATUSES),
  invoice_date: DateOnly(),
  due_date: DateOnly(),
  currency: Type.String(),
  exchange_rate: Nullable(Type.Number()),
  subtotal: Nullable(MoneyString()),
  discount: Nullable(MoneyString()),
  global_discount_amount: Nullable(MoneyString()),
  vat_base: Nullable(MoneyString()),
  tax: Nullable(MoneyString()),
  grand_total: Nullable(MoneyString()),
  paid_amount: Nullable(MoneyString()),
  remaining_amount: Nullable(MoneyString()),
  notes: Type.String(),
  customer: Nullable(CustomerRefSchema),
} satisfies TProperties;

const timestamps = { created_at: Timestamp(), updated_at: Timestamp() };

/** An invoice as lists show it: no items. */
export const InvoiceSummarySchema = Type.Object(
  { ...invoiceFields, ...timestamps },
  { $id: 'InvoiceSummary', additionalProperties: false },
);

/** An invoice as a single read and creation show it: with its items. */
export const InvoiceSchema = Type.Object(
  { ...invoiceFields, items: Type.Array(InvoiceItemSchema), ...timestamps },
  { $id: 'Invoice', additionalProperties: false },
);

export const InvoiceListQuery = listQuerySchema(INVOICE_SORTS, {
  status: Type.Optional(StringEnum(INVOICE_STATUSES)),
  customer_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT32, description: ID_HINT })),
  date_from: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
  date_to: Type.Optional(Type.String({ format: 'date', description: DATE_HINT })),
  updated_since: Type.Optional(Type.String({ format: 'iso-date-or-time', description: ISO_INSTANT_HINT })),
});

export const InvoiceListResponse = Type.Object({
  data: Type.Array(InvoiceSummarySchema),
  pagination: PaginationSchema,
});
export const InvoiceResponse = Type.Object({ data: InvoiceSchema });

const optionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

export const InvoiceLineBody = Type.Object(
  {
    // Optional for the schema only: a missing product_id gets its own message (service.ts), and
    // an id that names no product of the company (0, negative, huge) gets the same one.
    product_id: Type.Optional(Nullable(Type.Integer())),
    name: optionalText(255),
    description: optionalText(2000),
    quantity: Type.Number({ minimum: 0.0001, maximum: 1e12 }),
    price: Type.Number({ minimum: 0, maximum: 1e14 }),
    /** A percentage from 0 to 100, not an amount. */
    discount: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100 }))),
    tax_id: Type.Optional(Nullable(Type.Integer())),
  },
  { additionalProperties: false },
);

export const InvoiceCreateBody = Type.Object(
  {
    /** Any integer: one that names no customer visible to the company is a 404 (service.ts). */
    customer_id: Type.Integer(),
    invoice_date: DateOnly(),
    items: Type.Array(InvoiceLineBody, { minItems: 1, maxItems: MAX_INVOICE_LINES }),
    due_date: Type.Optional(Nullable(DateOnly())),
    reference: optionalText(255),
    notes: optionalText(2000),
    currency: Type.Optional(Nullable(StringEnum(CURRENCIES))),
    exchange_rate: Type.Optional(Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1e9 }))),
  },
  { additionalProperties: false },
);
export type InvoiceCreateBody = Static<typeof InvoiceCreateBody>;
export type InvoiceLineBody = Static<typeof InvoiceLineBody>;
