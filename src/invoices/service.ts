// Creation of draft invoices (contract 2.6, section 3; decisions.md "Invoices: totals of a draft").
// A draft consumes no fiscal number, moves no stock and makes no accounting entry: it is one
// invoice row and its lines, written in one transaction. Every problem of the body is reported
// at once, keyed by its dotted path with zero-based line indexes.
import { sql } from 'drizzle-orm';
import { type CompanyContext, inTransaction } from '../context.js';
import { visibleTo } from '../customers/repository.js';
import { runInTransaction } from '../db/client.js';
import { fixedStatement, runFixed } from '../db/prepared.js';
import { customers, products, taxes } from '../db/schema.js';
import { addFieldError, attachHint, type FieldErrors, notFound, validationFailed } from '../errors.js';
import { bodyChecker } from '../http/validation.js';
import { numberText } from '../json-numbers.js';
import { Decimal, decimalOfJson, decimalPlacesOf, MONEY_LIMIT } from '../money.js';
import { unknownTaxHint } from '../products/taxes.js';
import { isDatabaseId } from '../values.js';
import type { EventType } from '../webhooks/event-types.js';
import { recordEventFor, subscribedEndpointIds } from '../webhooks/events.js';
import { type DraftLineRow, insertDraft } from './draft-insert.js';
import { type InvoiceResource, invoiceResourceOf } from './repository.js';
import { InvoiceCreateBody } from './schemas.js';
import { invoiceTotalsOf, type LineAmounts, lineAmounts } from './totals.js';

export type { InvoiceCreateBody } from './schemas.js';

/** A line without product_id (left out or null): free-text lines do not exist. */
export const PRODUCT_REQUIRED =
  'Cada linha deve ter um product_id de um produto desta empresa; crie primeiro o serviço como produto NON_INVENTORY.';
/** A product_id that names no product of the company: nonexistent and foreign read the same. */
export const UNKNOWN_PRODUCT =
  'O produto indicado não existe: use o id de um produto desta empresa (GET /products).';
export const UNKNOWN_TAX =
  'O imposto indicado não existe: use o id de um dos impostos indicados no hint (desta empresa ou globais).';
export const DUE_BEFORE_INVOICE_DATE =
  'A data de vencimento não pode ser anterior à data da factura (invoice_date).';
export const PRICE_PLACES = 'O preço deve ter no máximo 2 casas decimais.';
export const QUANTITY_PLACES = 'A quantidade deve ter no máximo 4 casas decimais.';
export const DISCOUNT_PLACES = 'O desconto (percentagem) deve ter no máximo 4 casas decimais.';
export const EXCHANGE_RATE_PLACES = 'A taxa de câmbio deve ter no máximo 6 casas decimais.';
export const LINE_TOO_LARGE = 'O total da linha excede o valor máximo permitido.';
export const INVOICE_TOO_LARGE = 'O total da factura excede o valor máximo permitido.';

/** The same checks as the route's (operations create drafts too): a bad body is the route's 422. */
const checkBody = bodyChecker(InvoiceCreateBody);

/** A product a line names, with its own tax: the one whose rate the product shows as `tax_rate`. */
interface LineProduct {
  name: string;
  /** null: no tax, or one the company cannot use (the product then shows no `tax_rate`). */
  taxId: number | null;
  taxRate: string | null;
}

interface References {
  /** The company's products among the ids asked for, by id. */
  products: Map<number, LineProduct>;
  /** The taxes the company may use among the ids asked for, by id: their rates. */
  taxRates: Map<number, string>;
  /** The customer asked for, if the company can see it. */
  customer: { id: number; name: string } | null;
  /** The endpoints that hear the event asked for. */
  endpointIds: number[];
}

const PRODUCT = 1;
const TAX = 2;
const CUSTOMER = 3;
const ENDPOINT = 4;

const value = sql.placeholder;

/** An array of ids as one text parameter (`{1,2,3}`), the same on both drivers. */
function idArray(ids: readonly number[]): string {
  return `{${ids.join(',')}}`;
}

// The customers' one visibility rule, with the company as a placeholder of the statement.
const customerVisible = visibleTo(value('companyId'));

/**
 * Every reference a creation body names, in one prepared statement; parts with nothing to find
 * find nothing. A product comes with its tax when the company may use that tax (company's own or
 * global), exactly as products/repository.ts shows `tax_rate`.
 */
const LOOKUP = fixedStatement(
  sql`select ${PRODUCT}::integer as kind, ${products.id} as id, ${products.name} as value,
        ${taxes.id} as tax_id, ${taxes.rate}::text as tax_rate
      from ${products} left join ${taxes} on ${taxes.id} = ${products.taxId}
        and (${taxes.companyId} = ${value('companyId')} or ${taxes.companyId} is null)
      where ${products.companyId} = ${value('companyId')} and ${products.id} = any(${value('productIds')}::text::integer[])
    union all select ${TAX}::integer, ${taxes.id}, ${taxes.rate}::text, null::integer, null::text from ${taxes}
      where ${taxes.id} = any(${value('taxIds')}::text::integer[])
        and (${taxes.companyId} = ${value('companyId')} or ${taxes.companyId} is null)
    union all select ${CUSTOMER}::integer, ${customers.id}, ${customers.name}, null::integer, null::text from ${customers}
      where ${customers.id} = ${value('customerId')}::integer and ${customerVisible}
    union all select ${ENDPOINT}::integer, e.id, null, null::integer, null::text
      from ${subscribedEndpointIds(value('companyId'), value('event'))} as e where ${value('wantEvents')}::boolean`,
);

/**
 * In one statement: the company's products (and names) and visible taxes (and rates) among the
 * ids given, and, when asked, the customer if the company can see it and the endpoints that hear
 * an event type.
 */
async function lookupReferences(
  { db, companyId }: CompanyContext,
  candidateProductIds: unknown[],
  candidateTaxIds: unknown[],
  also: { customerId?: unknown; event?: EventType } = {},
): Promise<References> {
  const productIds = [...new Set(candidateProductIds.filter(isDatabaseId))];
  const taxIds = [...new Set(candidateTaxIds.filter(isDatabaseId))];
  const rows = await runFixed<{
    kind: number;
    id: number;
    value: string | null;
    tax_id: number | null;
    tax_rate: string | null;
  }>(db, LOOKUP, {
    companyId,
    productIds: idArray(productIds),
    taxIds: idArray(taxIds),
    customerId: isDatabaseId(also.customerId) ? also.customerId : null,
    event: also.event ?? null,
    wantEvents: also.event !== undefined,
  });
  const references: References = {
    products: new Map(),
    taxRates: new Map(),
    customer: null,
    endpointIds: [],
  };
  for (const { kind, id, value, tax_id: taxId, tax_rate: taxRate } of rows) {
    if (kind === PRODUCT) references.products.set(id, { name: value ?? '', taxId, taxRate });
    else if (kind === TAX) references.taxRates.set(id, value ?? '');
    else if (kind === CUSTOMER) references.customer = { id, name: value ?? '' };
    else references.endpointIds.push(id);
  }
  return references;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `container[key]`, a number, was written with more than `max` decimal places: judged on
 * the body's own digits (src/json-numbers.ts), so `4.350000000000000001` has 18, never 2.
 */
function hasMorePlaces(container: Record<string, unknown>, key: string, max: number): boolean {
  const literal = numberText(container, key);
  return literal !== undefined && !(decimalPlacesOf(literal) <= max);
}

/** A number of a body that passed the schema, as the exact decimal its digits write. */
function exact(container: object, key: string): Decimal {
  return decimalOfJson(numberText(container, key) ?? '0');
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LINE_PLACES: [field: string, max: number, message: string][] = [
  ['price', 2, PRICE_PLACES],
  ['quantity', 4, QUANTITY_PLACES],
  ['discount', 4, DISCOUNT_PLACES],
];

interface Judgement extends References {
  errors: FieldErrors;
}

/**
 * The own rules of a creation body: every line needs a product of the company, a tax (if any)
 * the company may use, and few enough decimals; the due date may not come before the invoice
 * date. Takes any JSON: a field of the wrong type is the schema's to report.
 */
async function judgeBody(
  context: CompanyContext,
  body: unknown,
  also: { customerId?: unknown; event?: EventType } = {},
): Promise<Judgement> {
  const errors: FieldErrors = {};
  const fields = isRecord(body) ? body : {};
  const lines = (Array.isArray(fields.items) ? fields.items : []).map((line) =>
    isRecord(line) ? line : null,
  );
  const references = await lookupReferences(
    context,
    lines.map((line) => line?.product_id),
    lines.map((line) => line?.tax_id),
    also,
  );
  const { products: lineProducts, taxRates } = references;
  let refusedTax = false;
  const { invoice_date: invoiceDate, due_date: dueDate } = fields;
  if (typeof invoiceDate === 'string' && typeof dueDate === 'string') {
    if (DATE.test(invoiceDate) && DATE.test(dueDate) && dueDate < invoiceDate) {
      addFieldError(errors, 'due_date', DUE_BEFORE_INVOICE_DATE);
    }
  }
  if (hasMorePlaces(fields, 'exchange_rate', 6)) {
    addFieldError(errors, 'exchange_rate', EXCHANGE_RATE_PLACES);
  }
  lines.forEach((line, index) => {
    if (!line) return;
    const at = (field: string) => `items.${index}.${field}`;
    const productId = line.product_id;
    if (productId === undefined || productId === null) {
      addFieldError(errors, at('product_id'), PRODUCT_REQUIRED);
    } else if (!(isDatabaseId(productId) && lineProducts.has(productId))) {
      addFieldError(errors, at('product_id'), UNKNOWN_PRODUCT);
    }
    const taxId = line.tax_id;
    if (taxId !== undefined && taxId !== null && !(isDatabaseId(taxId) && taxRates.has(taxId))) {
      addFieldError(errors, at('tax_id'), UNKNOWN_TAX);
      refusedTax = true;
    }
    for (const [field, max, message] of LINE_PLACES) {
      if (hasMorePlaces(line, field, max)) addFieldError(errors, at(field), message);
    }
  });
  // Partners have no route to taxes: the 422 lists the ones the company may use.
  if (refusedTax) attachHint(errors, await unknownTaxHint(context));
  return { errors, ...references };
}

/**
 * The own rules judged on a body whose schema failed (src/http/input-checks.ts), so that one 422
 * names every problem.
 */
export async function invoiceBodyProblems(context: CompanyContext, body: unknown): Promise<FieldErrors> {
  return (await judgeBody(context, body)).errors;
}

interface CheckedLine {
  productId: number;
  name: string;
  description: string;
  quantity: Decimal;
  price: Decimal;
  discountPercentage: Decimal;
  taxId: number | null;
  amounts: LineAmounts;
}

const ZERO = new Decimal(0);

/**
 * The tax of a line (decisions.md, "Invoices: totals of a draft"): the line's `tax_id` when the
 * field is sent; when it is left out, the product's own tax (partners see only its `tax_rate`);
 * `"tax_id": null` sent explicitly means no tax.
 */
function lineTax(
  sent: number | null | undefined,
  product: LineProduct | undefined,
  rates: Map<number, Decimal>,
): { taxId: number | null; taxRate: Decimal | null } {
  if (sent === undefined) {
    const taxId = product?.taxId ?? null;
    const rate = product?.taxRate ?? null;
    return taxId === null || rate === null
      ? { taxId: null, taxRate: null }
      : { taxId, taxRate: new Decimal(rate) };
  }
  if (sent === null || !isDatabaseId(sent)) return { taxId: null, taxRate: null };
  return { taxId: sent, taxRate: rates.get(sent) ?? null };
}

/**
 * The lines of a body that passed the schema, with their amounts, and the references the body
 * names; throws every problem at once.
 */
async function checkedLines(
  context: CompanyContext,
  input: InvoiceCreateBody,
): Promise<{ lines: CheckedLine[]; references: References }> {
  const judgement = await judgeBody(context, input, {
    customerId: input.customer_id,
    event: 'invoice.created',
  });
  const { errors, products: lineProducts, taxRates } = judgement;
  const rates = new Map([...taxRates].map(([id, rate]) => [id, new Decimal(rate)]));
  const lines: CheckedLine[] = [];
  let grandTotal = ZERO;
  input.items.forEach((line, index) => {
    const at = (field: string) => `items.${index}.${field}`;
    if (LINE_PLACES.some(([field]) => errors[at(field)])) return;
    const product = isDatabaseId(line.product_id) ? lineProducts.get(line.product_id) : undefined;
    const { taxId, taxRate } = lineTax(line.tax_id, product, rates);
    const quantity = exact(line, 'quantity');
    const price = exact(line, 'price');
    const discountPercentage = line.discount ? exact(line, 'discount') : ZERO;
    const amounts = lineAmounts({ quantity, price, discountPercentage, taxRate });
    if (amounts.subtotal.gte(MONEY_LIMIT) || amounts.total.gte(MONEY_LIMIT)) {
      addFieldError(errors, `items.${index}`, LINE_TOO_LARGE);
      return;
    }
    grandTotal = grandTotal.plus(amounts.total);
    const productId = line.product_id;
    if (!isDatabaseId(productId) || product === undefined || errors[at('tax_id')]) return;
    lines.push({
      productId,
      name: line.name || product.name,
      description: line.description ?? '',
      quantity,
      price,
      discountPercentage,
      taxId,
      amounts,
    });
  });
  if (grandTotal.gte(MONEY_LIMIT)) addFieldError(errors, 'items', INVOICE_TOO_LARGE);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { lines, references: judgement };
}

/**
 * Creates a draft invoice of the company from a creation body (the shape of POST /invoices) and
 * returns its id. All or nothing: the invoice and its lines are written in one transaction (a
 * savepoint when `db` is already a transaction). Throws `validation_failed` (422) for a body
 * that breaks a rule and `resource_not_found` (404) for a customer the company cannot see.
 */
export async function createDraftInvoice(
  context: CompanyContext,
  input: InvoiceCreateBody,
): Promise<{ id: number }> {
  checkBody(input);
  const invoice = await runInTransaction(context.db, (tx) =>
    writeDraftInvoice(inTransaction(context, tx), input),
  );
  return { id: invoice.id };
}

/** A checked line as stored. */
function lineRow({ amounts, ...line }: CheckedLine): DraftLineRow {
  return {
    productId: line.productId,
    name: line.name,
    description: line.description,
    quantity: line.quantity.toFixed(),
    price: line.price.toFixed(2),
    discount: amounts.discount.toFixed(2),
    discountPercentage: line.discountPercentage.toFixed(),
    taxId: line.taxId,
    taxAmount: amounts.taxAmount.toFixed(2),
    taxRate: amounts.taxRate === null ? null : amounts.taxRate.toFixed(),
    taxIncluded: false,
    total: amounts.total.toFixed(2),
  };
}

/**
 * The write of POST /invoices: the draft and its lines from a body that passed the schema, and
 * its `invoice.created` event, in the caller's transaction, which must roll back whatever this
 * throws (no savepoint of its own). Returns the invoice exactly as GET /invoices/{id} shows it,
 * built from what the inserts returned (no read back). Throws `validation_failed` (422) for a
 * body that breaks a rule and `resource_not_found` (404) for a customer the company cannot see.
 */
export async function writeDraftInvoice(
  context: CompanyContext,
  input: InvoiceCreateBody,
): Promise<InvoiceResource> {
  const { db, companyId, timeZone, actor } = context;
  const { lines, references } = await checkedLines(context, input);
  const { customer } = references;
  if (!customer) throw notFound();

  const totals = invoiceTotalsOf(lines.map((line) => line.amounts));
  const { row, items } = await insertDraft(
    db,
    {
      companyId,
      customerId: customer.id,
      status: 'draft',
      invoiceDate: input.invoice_date,
      dueDate: input.due_date || input.invoice_date,
      currency: input.currency ?? 'MZN',
      exchangeRate:
        input.exchange_rate === null || input.exchange_rate === undefined
          ? null
          : exact(input, 'exchange_rate').toFixed(),
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
      createdByApiKeyId: actor.kind === 'api_key' ? actor.apiKeyId : null,
    },
    lines.map(lineRow),
  );
  const invoice = invoiceResourceOf(row, customer, items, timeZone);
  await recordEventFor(context, 'invoice.created', references.endpointIds, invoice);
  return invoice;
}
