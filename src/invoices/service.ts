// Creation of draft invoices (contract 2.6, section 3; decisions.md "Invoices: totals of a draft").
// A draft consumes no fiscal number, moves no stock and makes no accounting entry: it is one
// invoice row and its lines, written in one transaction. Every problem of the body is reported
// at once, keyed by its dotted path with zero-based line indexes.
import { randomInt } from 'node:crypto';
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { inTransaction, type RequestContext } from '../context.js';
import { findCustomer } from '../customers/repository.js';
import type { Database } from '../db/client.js';
import { invoiceItems, invoices, products, taxes } from '../db/schema.js';
import { addFieldError, type FieldErrors, notFound, validationFailed } from '../errors.js';
import { bodyAjv, bodyValidationError } from '../http/validation.js';
import { Decimal, decimalPlacesOf, MONEY_LIMIT, money } from '../money.js';
import { isDatabaseId } from '../values.js';
import { recordEvent } from '../webhooks/events.js';
import { findInvoice } from './repository.js';
import { InvoiceCreateBody } from './schemas.js';
import { invoiceTotals, type LineTotals, lineTotals } from './totals.js';

export type { InvoiceCreateBody } from './schemas.js';

export const PRODUCT_REQUIRED =
  'Cada linha deve ter um product_id de um produto desta empresa; crie primeiro o serviço como produto NON_INVENTORY.';
export const UNKNOWN_TAX =
  'O imposto indicado não existe: use o id de um imposto desta empresa ou de um imposto global.';
export const DUE_BEFORE_INVOICE_DATE =
  'A data de vencimento não pode ser anterior à data da factura (invoice_date).';
export const PRICE_PLACES = 'O preço deve ter no máximo 2 casas decimais.';
export const QUANTITY_PLACES = 'A quantidade deve ter no máximo 4 casas decimais.';
export const DISCOUNT_PLACES = 'O desconto (percentagem) deve ter no máximo 4 casas decimais.';
export const EXCHANGE_RATE_PLACES = 'A taxa de câmbio deve ter no máximo 6 casas decimais.';
export const LINE_TOO_LARGE = 'O total da linha excede o valor máximo permitido.';
export const INVOICE_TOO_LARGE = 'O total da factura excede o valor máximo permitido.';

const DRAFT_CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DRAFT_CODE_ATTEMPTS = 10;

const validateBody = bodyAjv.compile(InvoiceCreateBody);

/** `DRAFT-` and 8 random characters of [A-Z0-9]. */
export function randomDraftCode(): string {
  let code = 'DRAFT-';
  for (let i = 0; i < 8; i++) code += DRAFT_CODE_ALPHABET[randomInt(DRAFT_CODE_ALPHABET.length)];
  return code;
}

type NewInvoice = typeof invoices.$inferInsert;

/**
 * Inserts the invoice under a fresh draft code, trying another one if the code is already taken
 * in the company (unique index `invoices_company_code_key`). Returns the new id.
 */
export async function insertWithDraftCode(
  db: Database,
  values: Omit<NewInvoice, 'invoiceCode'>,
  generate: () => string = randomDraftCode,
): Promise<number> {
  for (let attempt = 0; attempt < DRAFT_CODE_ATTEMPTS; attempt++) {
    const [row] = await db
      .insert(invoices)
      .values({ ...values, invoiceCode: generate() })
      .onConflictDoNothing({ target: [invoices.companyId, invoices.invoiceCode] })
      .returning({ id: invoices.id });
    if (row) return row.id;
  }
  throw new Error(`no free draft code after ${DRAFT_CODE_ATTEMPTS} attempts`);
}

/** The company's products (and names) and visible taxes (and rates) among the ids given. */
async function lookupReferences(
  { db, companyId }: RequestContext,
  candidateProductIds: unknown[],
  candidateTaxIds: unknown[],
): Promise<{ productNames: Map<number, string>; taxRates: Map<number, string> }> {
  const productIds = [...new Set(candidateProductIds.filter(isDatabaseId))];
  const taxIds = [...new Set(candidateTaxIds.filter(isDatabaseId))];
  const [productRows, taxRows] = await Promise.all([
    productIds.length === 0
      ? []
      : db
          .select({ id: products.id, name: products.name })
          .from(products)
          .where(and(eq(products.companyId, companyId), inArray(products.id, productIds))),
    taxIds.length === 0
      ? []
      : db
          .select({ id: taxes.id, rate: taxes.rate })
          .from(taxes)
          .where(and(inArray(taxes.id, taxIds), or(eq(taxes.companyId, companyId), isNull(taxes.companyId)))),
  ]);
  return {
    productNames: new Map(productRows.map((row) => [row.id, row.name])),
    taxRates: new Map(taxRows.map((row) => [row.id, row.rate])),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LINE_PLACES: [field: string, max: number, message: string][] = [
  ['price', 2, PRICE_PLACES],
  ['quantity', 4, QUANTITY_PLACES],
  ['discount', 4, DISCOUNT_PLACES],
];

interface Judgement {
  errors: FieldErrors;
  productNames: Map<number, string>;
  taxRates: Map<number, string>;
}

/**
 * The own rules of a creation body: every line needs a product of the company, a tax (if any)
 * the company may use, and few enough decimals; the due date may not come before the invoice
 * date. Takes any JSON: a field of the wrong type is the schema's to report.
 */
async function judgeBody(context: RequestContext, body: unknown): Promise<Judgement> {
  const errors: FieldErrors = {};
  const fields = isRecord(body) ? body : {};
  const lines = (Array.isArray(fields.items) ? fields.items : []).map((line) =>
    isRecord(line) ? line : null,
  );
  const { productNames, taxRates } = await lookupReferences(
    context,
    lines.map((line) => line?.product_id),
    lines.map((line) => line?.tax_id),
  );
  const { invoice_date: invoiceDate, due_date: dueDate, exchange_rate: exchangeRate } = fields;
  if (typeof invoiceDate === 'string' && typeof dueDate === 'string') {
    if (DATE.test(invoiceDate) && DATE.test(dueDate) && dueDate < invoiceDate) {
      addFieldError(errors, 'due_date', DUE_BEFORE_INVOICE_DATE);
    }
  }
  if (
    typeof exchangeRate === 'number' &&
    Number.isFinite(exchangeRate) &&
    decimalPlacesOf(exchangeRate) > 6
  ) {
    addFieldError(errors, 'exchange_rate', EXCHANGE_RATE_PLACES);
  }
  lines.forEach((line, index) => {
    if (!line) return;
    const at = (field: string) => `items.${index}.${field}`;
    if (!(isDatabaseId(line.product_id) && productNames.has(line.product_id))) {
      addFieldError(errors, at('product_id'), PRODUCT_REQUIRED);
    }
    const taxId = line.tax_id;
    if (taxId !== undefined && taxId !== null && !(isDatabaseId(taxId) && taxRates.has(taxId))) {
      addFieldError(errors, at('tax_id'), UNKNOWN_TAX);
    }
    for (const [field, max, message] of LINE_PLACES) {
      const value = line[field];
      if (typeof value === 'number' && Number.isFinite(value) && decimalPlacesOf(value) > max) {
        addFieldError(errors, at(field), message);
      }
    }
  });
  return { errors, productNames, taxRates };
}

/**
 * The own rules judged on a body whose schema failed (src/http/input-checks.ts), so that one 422
 * names every problem.
 */
export async function invoiceBodyProblems(context: RequestContext, body: unknown): Promise<FieldErrors> {
  return (await judgeBody(context, body)).errors;
}

interface CheckedLine {
  productId: number;
  name: string;
  description: string;
  quantity: string;
  price: string;
  discountPercentage: string;
  taxId: number | null;
  totals: LineTotals;
}

/** The lines of a body that passed the schema, with their totals; throws every problem at once. */
async function checkedLines(context: RequestContext, input: InvoiceCreateBody): Promise<CheckedLine[]> {
  const { errors, productNames, taxRates } = await judgeBody(context, input);
  const lines: CheckedLine[] = [];
  let grandTotal = new Decimal(0);
  input.items.forEach((line, index) => {
    const at = (field: string) => `items.${index}.${field}`;
    if (LINE_PLACES.some(([field]) => errors[at(field)])) return;
    const taxRate = isDatabaseId(line.tax_id) ? (taxRates.get(line.tax_id) ?? null) : null;
    const quantity = new Decimal(line.quantity);
    const discountPercentage = new Decimal(line.discount ?? 0);
    const totals = lineTotals({ quantity, price: line.price, discountPercentage, taxRate });
    if (new Decimal(totals.subtotal).gte(MONEY_LIMIT) || new Decimal(totals.total).gte(MONEY_LIMIT)) {
      addFieldError(errors, `items.${index}`, LINE_TOO_LARGE);
      return;
    }
    grandTotal = grandTotal.plus(totals.total);
    const productId = line.product_id;
    const productName = isDatabaseId(productId) ? productNames.get(productId) : undefined;
    if (!isDatabaseId(productId) || productName === undefined || errors[at('tax_id')]) return;
    lines.push({
      productId,
      name: line.name || productName,
      description: line.description ?? '',
      quantity: quantity.toFixed(),
      price: money(line.price),
      discountPercentage: discountPercentage.toFixed(),
      taxId: line.tax_id ?? null,
      totals,
    });
  });
  if (grandTotal.gte(MONEY_LIMIT)) addFieldError(errors, 'items', INVOICE_TOO_LARGE);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return lines;
}

/**
 * The lines in one statement whose text does not grow with them: one array per column, unnested
 * by the database (drizzle's multi-row VALUES took 12 ms of CPU to build for 200 lines).
 */
async function insertLines(db: Database, companyId: number, invoiceId: number, lines: CheckedLine[]) {
  const t = invoiceItems;
  const columns: [{ name: string }, string, (line: CheckedLine, position: number) => unknown][] = [
    [t.position, 'int', (_, position) => position],
    [t.productId, 'int', (line) => line.productId],
    [t.name, 'text', (line) => line.name],
    [t.description, 'text', (line) => line.description],
    [t.quantity, 'numeric', (line) => line.quantity],
    [t.price, 'numeric', (line) => line.price],
    [t.discount, 'numeric', (line) => line.totals.discount],
    [t.discountPercentage, 'numeric', (line) => line.discountPercentage],
    [t.taxId, 'int', (line) => line.taxId],
    [t.taxAmount, 'numeric', (line) => line.totals.taxAmount],
    [t.taxRate, 'numeric', (line) => line.totals.taxRate],
    [t.taxIncluded, 'boolean', (line) => line.totals.taxIncluded],
    [t.total, 'numeric', (line) => line.totals.total],
  ];
  const names = columns.map(([column]) => sql.identifier(column.name));
  const arrays = columns.map(([, type, pick]) => sql`${sql.param(lines.map(pick))}::${sql.raw(type)}[]`);
  await db.execute(sql`
    insert into ${t} (${sql.identifier(t.companyId.name)}, ${sql.identifier(t.invoiceId.name)}, ${sql.join(names, sql`, `)})
    select ${companyId}::int, ${invoiceId}::int, line.* from unnest(${sql.join(arrays, sql`, `)}) as line`);
}

/**
 * Creates a draft invoice of the company from a creation body (the shape of POST /invoices) and
 * returns its id. All or nothing: the invoice and its lines are written in one transaction (a
 * savepoint when `db` is already a transaction). Throws `validation_failed` (422) for a body
 * that breaks a rule and `resource_not_found` (404) for a customer the company cannot see.
 */
export async function createDraftInvoice(
  context: RequestContext,
  input: InvoiceCreateBody,
  options: { apiKeyId?: number } = {},
): Promise<{ id: number }> {
  if (!validateBody(input)) throw bodyValidationError(validateBody.errors ?? []);
  const { companyId } = context;
  return context.db.transaction(async (db) => {
    const tx = inTransaction(context, db);
    const lines = await checkedLines(tx, input);
    const customer = isDatabaseId(input.customer_id) ? await findCustomer(tx, input.customer_id) : null;
    if (!customer) throw notFound();

    const totals = invoiceTotals(lines.map((line) => line.totals));
    const id = await insertWithDraftCode(db, {
      companyId,
      customerId: customer.id,
      status: 'draft',
      invoiceDate: input.invoice_date,
      dueDate: input.due_date || input.invoice_date,
      currency: input.currency ?? 'MZN',
      exchangeRate:
        input.exchange_rate === null || input.exchange_rate === undefined
          ? null
          : new Decimal(input.exchange_rate).toFixed(),
      reference: input.reference ?? '',
      notes: input.notes ?? '',
      subtotal: totals.subtotal,
      discount: totals.discount,
      globalDiscountAmount: totals.globalDiscountAmount,
      vatBase: totals.vatBase,
      tax: totals.tax,
      grandTotal: totals.grandTotal,
      paidAmount: totals.paidAmount,
      remainingAmount: totals.remainingAmount,
      createdByApiKeyId: options.apiKeyId ?? null,
    });
    await insertLines(db, companyId, id, lines);
    await recordEvent(tx, 'invoice.created', () => findInvoice(tx, id));
    return { id };
  });
}
