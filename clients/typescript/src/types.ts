// The names the client uses, taken from the types generated from openapi.json
// (src/generated/openapi.ts, written by `npm run generate`). Everything else in the client imports
// from here, never from the generated file: when openapi.json renames a schema, the line that
// names it here is the only change.
import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type RequestBody<Op extends keyof operations> = JsonBody<NonNullable<operations[Op]['requestBody']>>;
type Success<Op extends keyof operations> = JsonBody<
  operations[Op]['responses'] extends infer R ? R[keyof R & (200 | 201)] : never
>;
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** A decimal amount as text, e.g. `"1250.50"`: money is never a binary float. */
export type Decimal = string;

// Resources, as the API answers them.
export type Ping = Schemas['Ping'];
export type Customer = Schemas['Customer'];
export type Product = Schemas['Product'];
export type Invoice = Schemas['Invoice'];
export type InvoiceItem = Invoice['items'][number];
/** An invoice as lists return it: without `items`. */
export type InvoiceSummary = Success<'listInvoices'>['data'][number];
export type Payment = Schemas['Payment'];
export type Pagination = Schemas['Pagination'];
/** Who caused a webhook event: an API write (its request id and Idempotency-Key), an operator, the service. */
export type WebhookCause = Schemas['EventCause'];

/** The error envelope's `error` object. */
export type ErrorBody = Schemas['Error']['error'];
/** The contract's 15 error codes. */
export type ErrorCode = ErrorBody['code'];

// Request bodies. Money goes in as the API takes it (a number) or as a decimal string, which
// travels as a JSON number written digit for digit (see json.ts): never through a binary float.
type NumberToDecimal<V> = V extends number ? number | Decimal : V;
type Money<T, K extends keyof T> = { [P in keyof T]: P extends K ? NumberToDecimal<T[P]> : T[P] };

export type CustomerCreate = RequestBody<'createCustomer'>;
export type CustomerUpdate = RequestBody<'updateCustomer'>;
export type ProductCreate = Money<RequestBody<'createProduct'>, 'price' | 'pos_price'>;
export type ProductUpdate = Money<RequestBody<'updateProduct'>, 'price' | 'pos_price'>;
type InvoiceCreateRaw = RequestBody<'createInvoice'>;
export type InvoiceLineCreate = Money<InvoiceCreateRaw['items'][number], 'price'>;
export type InvoiceCreate = Omit<InvoiceCreateRaw, 'items'> & { items: InvoiceLineCreate[] };

// List queries: every list takes `page` and `per_page` (default 1 and 25, at most 100).
type ListQuery<Op extends keyof operations> = Omit<Query<Op>, 'page' | 'per_page'> & {
  page?: number;
  per_page?: number;
};
export type CustomerListQuery = ListQuery<'listCustomers'>;
export type ProductListQuery = Omit<ListQuery<'listProducts'>, 'is_for_sale'> & {
  is_for_sale?: boolean | 'true' | 'false';
};
export type InvoiceListQuery = ListQuery<'listInvoices'>;
export type PaymentListQuery = ListQuery<'listPayments'>;

/** One page of a list. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}
