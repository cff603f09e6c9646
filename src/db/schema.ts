// The invoicing application's data. Every table that belongs to a company carries `company_id`;
// money is numeric(18,2), quantities and rates numeric with more places: never floats.
// Columns marked "internal" exist for the application and are never returned by the API.
// drizzle-kit generates the SQL migrations in drizzle/ from this file; what it cannot express is a
// hand-written migration there: the `search_fold` function used by list searches is
// drizzle/0001_search_fold.sql.
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const money = (name: string) => numeric(name, { precision: 18, scale: 2 });
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * The searched columns folded (`search_fold`) and joined by line breaks (chr(10)), kept by
 * PostgreSQL: a `search` is one LIKE on stored text (a trigram index, drizzle/0010) instead of
 * folding three or four columns of every candidate row. A term without a line break matches it
 * exactly when it matches one of the columns (src/lists/declaration.ts, matchingText).
 */
const searchText = (...columns: string[]) =>
  text('search_text').generatedAlwaysAs(
    sql.raw(`search_fold(${columns.map((column) => `coalesce("${column}", '')`).join(' || chr(10) || ')})`),
  );

export const companies = pgTable('companies', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  nuit: text('nuit'),
  partnerApiEnabled: boolean('partner_api_enabled').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    mode: text('mode', { enum: ['live', 'test'] }).notNull(),
    /** Short display prefix, e.g. `svc_sk_live_a1B2`: enough to recognise a key, useless to use it. */
    displayPrefix: text('display_prefix').notNull(),
    /** SHA-256 (hex) of the whole key; the key itself is never stored. */
    secretHash: text('secret_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** The key that replaced this one (`keys roll`); this one then expires at the end of the grace. */
    replacedByKeyId: integer('replaced_by_key_id').references((): AnyPgColumn => apiKeys.id),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('api_keys_secret_hash_key').on(t.secretHash),
    index('api_keys_company_idx').on(t.companyId),
    check('api_keys_mode_check', sql`${t.mode} in ('live', 'test')`),
  ],
);

/** Taxes of a company, or global ones (company_id null) usable by every company. */
export const taxes = pgTable(
  'taxes',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id').references(() => companies.id),
    name: text('name').notNull(),
    rate: numeric('rate', { precision: 9, scale: 4 }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('taxes_company_idx').on(t.companyId)],
);

/** Customers of a company, or global ones (company_id null) visible to every company, editable by none. */
export const customers = pgTable(
  'customers',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id').references(() => companies.id),
    name: text('name').notNull(),
    type: text('type', { enum: ['individual', 'company'] })
      .notNull()
      .default('individual'),
    email: text('email'),
    phone: text('phone'),
    contactNumber: text('contact_number'),
    nuit: text('nuit'),
    address: text('address'),
    /** internal: accounting account of the customer */
    accountId: integer('account_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** internal: what `search` looks in (see searchText) */
    searchText: searchText('name', 'email', 'nuit', 'phone'),
  },
  (t) => [
    uniqueIndex('customers_company_email_key')
      .on(t.companyId, sql`lower(${t.email})`)
      .where(sql`${t.companyId} is not null and ${t.email} is not null`),
    index('customers_company_created_idx').on(t.companyId, t.createdAt, t.id),
    index('customers_company_updated_idx').on(t.companyId, t.updatedAt, t.id),
    index('customers_company_name_idx').on(t.companyId, t.name, t.id),
    check('customers_type_check', sql`${t.type} in ('individual', 'company')`),
  ],
);

export const productCategories = pgTable(
  'product_categories',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('product_categories_company_name_key').on(t.companyId, t.name)],
);

export const PRODUCT_TYPES = ['GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

export const products = pgTable(
  'products',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    name: text('name').notNull(),
    productCode: text('product_code').notNull(),
    sku: text('sku'),
    description: text('description'),
    type: text('type', { enum: PRODUCT_TYPES }).notNull(),
    inventory: text('inventory', { enum: ['INVENTORY', 'NON_INVENTORY'] }).notNull(),
    unity: text('unity'),
    price: money('price'),
    posPrice: money('pos_price'),
    /** internal */
    costPrice: money('cost_price'),
    vatIncluded: boolean('vat_included').notNull().default(false),
    taxId: integer('tax_id').references(() => taxes.id),
    stock: numeric('stock', { precision: 18, scale: 4 }),
    reorderLevel: integer('reorder_level'),
    isForSale: boolean('is_for_sale').notNull().default(true),
    isForPurchase: boolean('is_for_purchase').notNull().default(true),
    /** internal: accounting accounts */
    incomeAccountId: integer('income_account_id'),
    expenseAccountId: integer('expense_account_id'),
    /** Point-of-sale synchronisation: set by every API write, cleared when the POS has taken the change. */
    posSyncPending: boolean('pos_sync_pending').notNull().default(false),
    posChangedAt: timestamp('pos_changed_at', { withTimezone: true, mode: 'date' }),
    /** internal: identifiers of the POS synchronisation */
    syncId: text('sync_id'),
    synced: boolean('synced').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** internal: what `search` looks in (see searchText) */
    searchText: searchText('name', 'product_code', 'sku'),
  },
  (t) => [
    uniqueIndex('products_company_code_key').on(t.companyId, t.productCode),
    index('products_company_created_idx').on(t.companyId, t.createdAt, t.id),
    index('products_company_updated_idx').on(t.companyId, t.updatedAt, t.id),
    index('products_company_name_idx').on(t.companyId, t.name, t.id),
    index('products_company_price_idx').on(t.companyId, t.price, t.id),
    index('products_company_stock_idx').on(t.companyId, t.stock, t.id),
    index('products_pos_pending_idx').on(t.companyId, t.posChangedAt).where(sql`${t.posSyncPending}`),
    check('products_type_check', sql`${t.type} in ('GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT')`),
    check('products_inventory_check', sql`${t.inventory} in ('INVENTORY', 'NON_INVENTORY')`),
  ],
);

export const productCategoryLinks = pgTable(
  'product_category_links',
  {
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    categoryId: integer('category_id')
      .notNull()
      .references(() => productCategories.id),
  },
  (t) => [primaryKey({ columns: [t.productId, t.categoryId] })],
);

/** Last number handed out per company and product type; a row lock makes codes unique and never reused. */
export const productCodeSequences = pgTable(
  'product_code_sequences',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    type: text('type').notNull(),
    lastValue: integer('last_value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.type] })],
);

export const INVOICE_STATUSES = ['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const invoices = pgTable(
  'invoices',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    customerId: integer('customer_id').references(() => customers.id),
    invoiceCode: text('invoice_code').notNull(),
    paymentNoticeCode: text('payment_notice_code').notNull().default(''),
    documentType: text('document_type').notNull().default('invoice'),
    isPaymentNotice: boolean('is_payment_notice').notNull().default(false),
    noticeKind: text('notice_kind').notNull().default(''),
    isPosSale: boolean('is_pos_sale').notNull().default(false),
    reference: text('reference').notNull().default(''),
    paymentReference: text('payment_reference').notNull().default(''),
    status: text('status', { enum: INVOICE_STATUSES }).notNull(),
    invoiceDate: date('invoice_date', { mode: 'string' }).notNull(),
    dueDate: date('due_date', { mode: 'string' }).notNull(),
    currency: text('currency').notNull().default('MZN'),
    exchangeRate: numeric('exchange_rate', { precision: 18, scale: 6 }),
    subtotal: money('subtotal'),
    discount: money('discount'),
    globalDiscountAmount: money('global_discount_amount'),
    vatBase: money('vat_base'),
    tax: money('tax'),
    grandTotal: money('grand_total'),
    paidAmount: money('paid_amount'),
    remainingAmount: money('remaining_amount'),
    notes: text('notes').notNull().default(''),
    /** internal: cost of goods sold, known once issued */
    costTotal: money('cost_total'),
    /** The API key that created the draft, if any (internal). */
    createdByApiKeyId: integer('created_by_api_key_id').references(() => apiKeys.id),
    issuedAt: timestamp('issued_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('invoices_company_code_key').on(t.companyId, t.invoiceCode),
    // What a payment's composite key to its invoice refers to (see payments below).
    uniqueIndex('invoices_id_company_key').on(t.id, t.companyId),
    index('invoices_company_date_idx').on(t.companyId, t.invoiceDate, t.id),
    index('invoices_company_due_idx').on(t.companyId, t.dueDate, t.id),
    index('invoices_company_total_idx').on(t.companyId, t.grandTotal, t.id),
    index('invoices_company_created_idx').on(t.companyId, t.createdAt, t.id),
    index('invoices_company_updated_idx').on(t.companyId, t.updatedAt, t.id),
    index('invoices_company_status_date_idx').on(t.companyId, t.status, t.invoiceDate, t.id),
    index('invoices_company_customer_date_idx').on(t.companyId, t.customerId, t.invoiceDate, t.id),
    check(
      'invoices_status_check',
      sql`${t.status} in ('draft', 'unpaid', 'partially_paid', 'paid', 'cancelled')`,
    ),
  ],
);

export const invoiceItems = pgTable(
  'invoice_items',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    invoiceId: integer('invoice_id')
      .notNull()
      .references(() => invoices.id),
    /** Order of the line within its invoice, zero-based. */
    position: integer('position').notNull(),
    productId: integer('product_id').references(() => products.id),
    name: text('name').notNull().default(''),
    description: text('description').notNull().default(''),
    quantity: numeric('quantity', { precision: 18, scale: 4 }),
    price: money('price'),
    discount: money('discount'),
    discountPercentage: numeric('discount_percentage', { precision: 7, scale: 4 }),
    taxId: integer('tax_id').references(() => taxes.id),
    taxAmount: money('tax_amount'),
    taxRate: numeric('tax_rate', { precision: 9, scale: 4 }),
    taxIncluded: boolean('tax_included'),
    total: money('total'),
    /** internal */
    unitCost: money('unit_cost'),
  },
  (t) => [index('invoice_items_invoice_idx').on(t.invoiceId, t.position)],
);

/** Fiscal numbering per company, series and year: issuing a draft consumes the next number. */
export const fiscalSequences = pgTable(
  'fiscal_sequences',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    series: text('series').notNull(),
    year: integer('year').notNull(),
    lastValue: integer('last_value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.series, t.year] })],
);

export const stockMovements = pgTable(
  'stock_movements',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    invoiceId: integer('invoice_id').references(() => invoices.id),
    quantity: numeric('quantity', { precision: 18, scale: 4 }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('stock_movements_company_product_idx').on(t.companyId, t.productId)],
);

/** internal: accounting entries made when a document is issued or paid. Never exposed. */
export const accountingEntries = pgTable(
  'accounting_entries',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    invoiceId: integer('invoice_id').references(() => invoices.id),
    paymentId: integer('payment_id'),
    description: text('description').notNull(),
    debit: money('debit').notNull(),
    credit: money('credit').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('accounting_entries_company_idx').on(t.companyId)],
);

export const TREASURY_KINDS = ['receipt', 'salary', 'supplier_payment'] as const;

/**
 * Treasury movements of a company. The API shows only receipts linked to one of the company's
 * invoices; salaries, supplier payments and other movements never leave the application.
 */
export const payments = pgTable(
  'payments',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    kind: text('kind', { enum: TREASURY_KINDS }).notNull(),
    invoiceId: integer('invoice_id').references(() => invoices.id),
    paymentCode: text('payment_code').notNull(),
    paymentDate: date('payment_date', { mode: 'string' }),
    amount: money('amount'),
    paymentMethod: text('payment_method').notNull().default(''),
    paymentMethodType: text('payment_method_type').notNull().default(''),
    reference: text('reference').notNull().default(''),
    notes: text('notes'),
    /** internal: the treasury account moved */
    accountId: integer('account_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => {
    const listed = sql`${t.kind} = 'receipt' and ${t.invoiceId} is not null`;
    return [
      uniqueIndex('payments_company_code_key').on(t.companyId, t.paymentCode),
      // A payment's invoice is always of the payment's own company: "a receipt of the company
      // linked to an invoice" is then answered by the payment row alone, without the invoice.
      foreignKey({
        name: 'payments_invoice_company_fk',
        columns: [t.invoiceId, t.companyId],
        foreignColumns: [invoices.id, invoices.companyId],
      }),
      // One index per sort of the API's list, holding only the rows it may show (the condition of
      // visibleReceipts in src/payments/repository.ts, with the same constant): a page's offset
      // skips on the index alone (an index-only scan), never on the table rows.
      index('payments_receipts_date_idx').on(t.companyId, t.paymentDate, t.id).where(listed),
      index('payments_receipts_amount_idx').on(t.companyId, t.amount, t.id).where(listed),
      index('payments_receipts_created_idx').on(t.companyId, t.createdAt, t.id).where(listed),
      index('payments_receipts_updated_idx').on(t.companyId, t.updatedAt, t.id).where(listed),
      index('payments_invoice_idx').on(t.invoiceId),
      check('payments_kind_check', sql`${t.kind} in ('receipt', 'salary', 'supplier_payment')`),
    ];
  },
);

/**
 * One row per (API key, Idempotency-Key). Inserted and committed before the work starts
 * (`in_flight`), completed in the same transaction as the business write.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    id: serial('id').primaryKey(),
    apiKeyId: integer('api_key_id')
      .notNull()
      .references(() => apiKeys.id),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    key: text('key').notNull(),
    /** SHA-256 of method, path and the raw body bytes. */
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['in_flight', 'completed'] }).notNull(),
    /** Random token of the request that holds the claim; a takeover replaces it. */
    holder: text('holder').notNull(),
    /**
     * The database session of the holder (PostgreSQL only; null on the embedded database): its
     * backend pid and the server's identity (system identifier @ start time). A claim whose session
     * is gone (the pid no longer runs, or another server answers now: a failover or a restart) is
     * taken over at once instead of after the lock timeout.
     */
    holderPid: integer('holder_pid'),
    holderServer: text('holder_server'),
    lockedAt: timestamp('locked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    uniqueIndex('idempotency_keys_api_key_key').on(t.apiKeyId, t.key),
    index('idempotency_keys_expires_idx').on(t.expiresAt),
  ],
);

// ---- Webhooks (src/webhooks): endpoints set up by the operator, a transactional outbox of events,
// one delivery per (event, endpoint) and a log of every attempt. Deliveries carry the company of
// both their event and their endpoint (composite foreign keys): an endpoint can never be handed
// another company's event.

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const webhookTimestamp = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    url: text('url').notNull(),
    /** Event types delivered; `{*}` means every type, also ones added later. */
    events: text('events').array().notNull(),
    /** `whsec_` + base64 of 32 random bytes; needed in clear to sign. */
    secret: text('secret').notNull(),
    /** The secret before the last rotation, still signing until `previous_secret_expires_at`. */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: webhookTimestamp('previous_secret_expires_at'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    disabledAt: webhookTimestamp('disabled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('webhook_endpoints_id_company_key').on(t.id, t.companyId),
    index('webhook_endpoints_company_idx').on(t.companyId),
  ],
);

export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** `evt_...`: the `id` of the payload and the `webhook-id` header. */
    publicId: text('public_id').notNull(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    type: text('type').notNull(),
    /** The exact JSON body sent (and signed) on every attempt; its `cause` says who caused it. */
    payload: text('payload').notNull(),
    /** The X-Request-Id of the API write that caused it (its `cause.request_id`), if one did. */
    requestId: text('request_id'),
    /**
     * The W3C `traceparent` of the write that caused it, with tracing on: its deliveries' attempts
     * are spans of that trace, and each sends it on (src/webhooks/worker.ts).
     */
    traceparent: text('traceparent'),
    /**
     * Set for an event meant for one endpoint only (a ping or a sample of `webhooks test`): a
     * window's resend never sends it to another endpoint.
     */
    onlyEndpointId: integer('only_endpoint_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_events_public_id_key').on(t.publicId),
    unique('webhook_events_id_company_key').on(t.id, t.companyId),
    foreignKey({
      name: 'webhook_events_only_endpoint_company_fk',
      columns: [t.onlyEndpointId, t.companyId],
      foreignColumns: [webhookEndpoints.id, webhookEndpoints.companyId],
    }),
    // A window of a company's events (`webhooks resend --endpoint ID --since ...`).
    index('webhook_events_company_created_idx').on(t.companyId, t.createdAt),
    // The events a request caused (few rows per request; most events have none).
    index('webhook_events_request_id_idx').on(t.requestId).where(sql`${t.requestId} is not null`),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
    endpointId: integer('endpoint_id').notNull(),
    companyId: integer('company_id').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    /** Attempts made so far; the next one is number attempts + 1. */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: webhookTimestamp('next_attempt_at').notNull().defaultNow(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /**
     * The lease of the worker making an attempt now (src/webhooks/deliveries.ts): who took it (one
     * id per claim) and until when no other worker may. An expired lease is taken again.
     */
    leaseOwner: text('lease_owner'),
    leasedUntil: webhookTimestamp('leased_until'),
    completedAt: webhookTimestamp('completed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({
      name: 'webhook_deliveries_event_company_fk',
      columns: [t.eventId, t.companyId],
      foreignColumns: [webhookEvents.id, webhookEvents.companyId],
    }),
    foreignKey({
      name: 'webhook_deliveries_endpoint_company_fk',
      columns: [t.endpointId, t.companyId],
      foreignColumns: [webhookEndpoints.id, webhookEndpoints.companyId],
    }),
    index('webhook_deliveries_pending_idx').on(t.endpointId, t.id).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
    // Few rows: the deliveries in flight (and leases left by a crashed process until they expire).
    index('webhook_deliveries_leased_idx').on(t.endpointId).where(sql`${t.leasedUntil} is not null`),
    index('webhook_deliveries_event_idx').on(t.eventId),
    check('webhook_deliveries_status_check', sql`${t.status} in ('pending', 'succeeded', 'failed')`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: bigint('delivery_id', { mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.id),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    /** 1 for the first attempt of the delivery. */
    attempt: integer('attempt').notNull(),
    succeeded: boolean('succeeded').notNull(),
    /** HTTP status of the answer; null when none came (refused, timeout, unsafe address). */
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    /** The start of the answer's body (at most 1 KB kept), for support. */
    responseExcerpt: text('response_excerpt'),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_attempts_endpoint_idx').on(t.endpointId, t.id),
    // An endpoint's latest success and latest failure, for its health (`webhooks list`).
    index('webhook_attempts_endpoint_outcome_idx').on(t.endpointId, t.succeeded, t.id),
    // The attempts of one delivery (`requests show`: what a request's events became).
    index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id),
  ],
);

/**
 * One counter per company (company_id 0: the global customers), raised by a statement trigger on
 * every write to customers, products, invoices and payments (drizzle/0004_speed.sql). A list's
 * exact total may be remembered while the counter it was read with has not moved.
 */
export const dataVersions = pgTable('data_versions', {
  companyId: integer('company_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

// ---- Counts of the listed rows (drizzle/0010_list_counts.sql), kept by the triggers that raise
// data_versions, in the writing transaction: the first total of a list is a sum over these rows
// (src/lists/total.ts), not a count over the table. One row per company and combination of
// the values a list filters on; `count` moves by `count + delta`, never by a value read before.
// `updated_on` is the UTC date of `updated_at`.

const countColumn = () => bigint('count', { mode: 'number' }).notNull();
const updatedOn = () => date('updated_on', { mode: 'string' }).notNull();

/** Invoices by status and invoice date: totals, `status`, `date_from`/`date_to`. */
export const invoiceCounts = pgTable(
  'invoice_counts',
  {
    companyId: integer('company_id').notNull(),
    status: text('status').notNull(),
    invoiceDate: date('invoice_date', { mode: 'string' }).notNull(),
    count: countColumn(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.status, t.invoiceDate] })],
);

/** Invoices by status and day of their last change: `updated_since`. */
export const invoiceUpdateCounts = pgTable(
  'invoice_update_counts',
  {
    companyId: integer('company_id').notNull(),
    status: text('status').notNull(),
    updatedOn: updatedOn(),
    count: countColumn(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.status, t.updatedOn] })],
);

/** Customers by type and day of their last change; company 0: the global customers. */
export const customerCounts = pgTable(
  'customer_counts',
  {
    companyId: integer('company_id').notNull(),
    type: text('type').notNull(),
    updatedOn: updatedOn(),
    count: countColumn(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.type, t.updatedOn] })],
);

/** Products by type, `is_for_sale` and day of their last change. */
export const productCounts = pgTable(
  'product_counts',
  {
    companyId: integer('company_id').notNull(),
    type: text('type').notNull(),
    isForSale: boolean('is_for_sale').notNull(),
    updatedOn: updatedOn(),
    count: countColumn(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.type, t.isForSale, t.updatedOn] })],
);

/**
 * Receipts the API lists (kind `receipt` with an invoice) by payment date; a receipt without a
 * date is counted under `-infinity`, which no date filter matches.
 */
export const receiptCounts = pgTable(
  'receipt_counts',
  {
    companyId: integer('company_id').notNull(),
    paymentDate: date('payment_date', { mode: 'string' }).notNull(),
    count: countColumn(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.paymentDate] })],
);

export const AUDIT_OUTCOMES = ['ok', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * The operator's audit trail (src/operations/audit.ts): one row per command that changes
 * something, written in the same transaction as the change (a refusal: after its rollback). No
 * foreign keys: a refused command may name a company that does not exist, and the trail outlives
 * what it names. Never holds a secret.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: serial('id').primaryKey(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The command as typed, e.g. `keys revoke`. */
    command: text('command').notNull(),
    /** The OS user who ran it, or what --actor said. */
    actor: text('actor').notNull(),
    companyId: integer('company_id'),
    /** What it changed, e.g. `api_key` 12. */
    objectType: text('object_type'),
    objectId: integer('object_id'),
    outcome: text('outcome', { enum: AUDIT_OUTCOMES }).notNull(),
    /** The command's arguments (secrets left out) and, for a refusal, its message. */
    /** The command's arguments (secrets left out) and, when refused or failed, why. */
    detail: jsonb('detail').$type<{ args: Record<string, unknown>; message?: string }>().notNull(),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at, t.id),
    index('audit_log_company_at_idx').on(t.companyId, t.at, t.id),
    check('audit_log_outcome_check', sql`${t.outcome} in ('ok', 'refused', 'failed')`),
  ],
);

/**
 * This installation (one database: production, staging, a test run): one row, created with the
 * schema, holding a random id. Rate-limit counters in Redis are namespaced by it, so two
 * installations sharing one Redis never count each other's requests (src/db/installation.ts).
 */
export const installation = pgTable(
  'installation',
  {
    /** Always true: the primary key allows exactly one row. */
    singleton: boolean('singleton').primaryKey().default(true),
    id: uuid('id').notNull().defaultRandom(),
    createdAt: createdAt(),
  },
  (t) => [check('installation_singleton_check', sql`${t.singleton}`)],
);

/**
 * The request log (src/request-log/): one row per API request whose key was found (its company
 * and key known), written in batches off the request's path, kept 30 days. Never a body, a key or
 * a secret: what support needs to answer "what happened to request X?". No foreign keys (a
 * batch insert checks nothing per row; the log outlives nothing it names for long) and no
 * primary key: rows are found by request id, by company or key and time, and pruned by time.
 */
export const requestLog = pgTable(
  'request_log',
  {
    /** When the request arrived. */
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    companyId: integer('company_id').notNull(),
    apiKeyId: integer('api_key_id').notNull(),
    method: text('method').notNull(),
    /** The route's template, e.g. `/api/v1/partner/customers/:id`. */
    route: text('route').notNull(),
    status: smallint('status').notNull(),
    /** The error envelope's code, if the answer was one. */
    errorCode: text('error_code'),
    /** The X-Request-Id of the answer. */
    requestId: text('request_id').notNull(),
    idempotencyKey: text('idempotency_key'),
    /** Answered with a stored response (Idempotency-Replay: true). */
    replayed: boolean('replayed').notNull().default(false),
    /** From the request to its answer, in microseconds. */
    durationUs: integer('duration_us').notNull(),
    /** The client's address (as TRUST_PROXY reads it). */
    clientIp: text('client_ip').notNull(),
    /** The deprecated items the request used (src/http/deprecation.ts), e.g. `GET /customers?search`. */
    deprecatedUse: jsonb('deprecated_use').$type<string[]>(),
    /** The W3C trace id of the request (the caller's, when it sent `traceparent`), with tracing on. */
    traceId: text('trace_id'),
  },
  (t) => [
    index('request_log_request_id_idx').on(t.requestId),
    index('request_log_company_at_idx').on(t.companyId, t.at),
    // `keys usage` reads this index alone (an index-only scan: status is in it).
    index('request_log_api_key_at_idx').on(t.apiKeyId, t.at, t.status),
    // `requests list --status 4xx|5xx|429`: a company's refused and failed requests only.
    index('request_log_company_errors_idx').on(t.companyId, t.at).where(sql`${t.status} >= 400`),
    index('request_log_at_idx').on(t.at),
    // `deprecations usage`: the few requests that used a deprecated item, by time.
    index('request_log_deprecated_at_idx').on(t.at).where(sql`${t.deprecatedUse} is not null`),
    // `requests show TRACE_ID`: a partner's request found by its trace (only rows traced have one).
    index('request_log_trace_id_idx').on(t.traceId).where(sql`${t.traceId} is not null`),
    // The console's filtered pages at 10M rows (issue 40, goal 7): a company's requests of one
    // route, of one error code, or answered 5xx, newest first, without walking its other rows.
    index('request_log_company_route_at_idx').on(t.companyId, t.route, t.at),
    index('request_log_company_error_code_at_idx')
      .on(t.companyId, t.errorCode, t.at)
      .where(sql`${t.errorCode} is not null`),
    index('request_log_company_failed_idx').on(t.companyId, t.at).where(sql`${t.status} >= 500`),
  ],
);

/**
 * Usage rollups (src/request-log/usage.ts): per company, API key and hour, what the request log's
 * rows of that hour add up to, kept by the log's writer in the statement that inserts the rows
 * (so the two never disagree) by upserts that add (several instances write the same rows). The
 * console's usage charts and `usage` read these only, never the log. Pruned with the log.
 */
export const requestUsage = pgTable(
  'request_usage',
  {
    /** The hour (UTC) the requests arrived in. */
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    companyId: integer('company_id').notNull(),
    apiKeyId: integer('api_key_id').notNull(),
    requests: integer('requests').notNull().default(0),
    status2xx: integer('status_2xx').notNull().default(0),
    status3xx: integer('status_3xx').notNull().default(0),
    status4xx: integer('status_4xx').notNull().default(0),
    status5xx: integer('status_5xx').notNull().default(0),
    rateLimited: integer('rate_limited').notNull().default(0),
    /** POST and PUT requests. */
    writes: integer('writes').notNull().default(0),
    /** Requests that used a deprecated item. */
    deprecated: integer('deprecated').notNull().default(0),
    /** Requests per duration bucket (LATENCY_BOUNDS_US of src/request-log/usage.ts). */
    latency: integer('latency').array().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.apiKeyId, t.hour] }),
    index('request_usage_company_hour_idx').on(t.companyId, t.hour),
    index('request_usage_hour_idx').on(t.hour),
  ],
);

/** Per company, key and hour: requests per error code (`error`) and per deprecated item (`deprecated`). */
export const requestUsageCodes = pgTable(
  'request_usage_codes',
  {
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    companyId: integer('company_id').notNull(),
    apiKeyId: integer('api_key_id').notNull(),
    kind: text('kind').notNull(),
    code: text('code').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.apiKeyId, t.hour, t.kind, t.code] }),
    index('request_usage_codes_company_hour_idx').on(t.companyId, t.hour),
    index('request_usage_codes_hour_idx').on(t.hour),
  ],
);

/**
 * The version of API keys and companies as instances remember them: raised in the transaction of
 * every change that could turn a key away or let a new one in (the trigger of drizzle's migration
 * `instances_and_key_changes`), one row, so that versions commit in their order. Its value is the
 * payload of NOTIFY api_keys_changed (src/instances/).
 */
export const keyChanges = pgTable(
  'key_changes',
  {
    /** Always true: the primary key allows exactly one row. */
    singleton: boolean('singleton').primaryKey().default(true),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [check('key_changes_singleton_check', sql`${t.singleton}`)],
);

/**
 * The API instances running on this database (PostgreSQL), each with its heartbeat and the last
 * key change it has applied: an operator's key change waits until every live one has (src/instances/).
 */
export const instances = pgTable('instances', {
  /** Random, new at every start. */
  id: uuid('id').primaryKey(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** The key_changes version whose change this instance has applied (its memory of keys forgotten). */
  ackedVersion: bigint('acked_version', { mode: 'number' }).notNull().default(0),
  ackedAt: timestamp('acked_at', { withTimezone: true, mode: 'date' }),
});

/** What a staff member of the support console may do (src/console/roles.ts). */
export const STAFF_ROLES = ['admin', 'support', 'viewer', 'partner'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * People of the support console (src/console/): staff, or a partner's people who see one company.
 * Never an API key. A person chooses a password (argon2id) and enrols a TOTP second factor through
 * a setup link (its SHA-256 kept here, valid 24 hours); the TOTP secret is kept encrypted
 * (AES-256-GCM with CONSOLE_SECRET_KEY, src/console/secret-box.ts).
 */
export const staffAccounts = pgTable(
  'staff_accounts',
  {
    id: serial('id').primaryKey(),
    /** Lower case: one account per address. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: text('role', { enum: STAFF_ROLES }).notNull(),
    /** The one company a partner account sees; null for staff. */
    companyId: integer('company_id').references(() => companies.id),
    passwordHash: text('password_hash'),
    totpSecretSealed: text('totp_secret_sealed'),
    /** The TOTP secret shown on the setup page until the person confirms it with a code. */
    totpPendingSealed: text('totp_pending_sealed'),
    /** The last TOTP time step accepted: a code is accepted once. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    setupTokenHash: text('setup_token_hash'),
    setupExpiresAt: timestamp('setup_expires_at', { withTimezone: true, mode: 'date' }),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('staff_accounts_email_key').on(t.email),
    uniqueIndex('staff_accounts_setup_token_key').on(t.setupTokenHash),
    check('staff_accounts_role_check', sql`${t.role} in ('admin', 'support', 'viewer', 'partner')`),
    check(
      'staff_accounts_partner_company_check',
      sql`(${t.role} = 'partner') = (${t.companyId} is not null)`,
    ),
  ],
);

/**
 * Console sessions, kept server side: the cookie holds a random token whose SHA-256 is the id.
 * Ending a session (logout, disable, reset) deletes its row: it ends at once on every instance.
 */
export const staffSessions = pgTable(
  'staff_sessions',
  {
    id: text('id').primaryKey(),
    staffId: integer('staff_id')
      .notNull()
      .references(() => staffAccounts.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('staff_sessions_staff_idx').on(t.staffId)],
);

/**
 * Failed console logins, by account (`email:` and the address typed) and by client address
 * (`ip:`), and the locks they caused (src/console/throttle.ts).
 */
export const consoleLoginFailures = pgTable(
  'console_login_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    subject: text('subject').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('console_login_failures_subject_at_idx').on(t.subject, t.at)],
);

export const consoleLoginLocks = pgTable('console_login_locks', {
  subject: text('subject').primaryKey(),
  until: timestamp('until', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * The key of the TOTP secrets where CONSOLE_SECRET_KEY is not set (development, the demo; never
 * with NODE_ENV=production): generated once, kept in the database beside what it seals.
 */
export const consoleDevelopmentKey = pgTable(
  'console_development_key',
  {
    singleton: boolean('singleton').primaryKey().default(true),
    key: text('key').notNull(),
  },
  (t) => [check('console_development_key_singleton_check', sql`${t.singleton}`)],
);
