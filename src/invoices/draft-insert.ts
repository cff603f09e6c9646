// The write of a draft invoice in ONE statement: the invoice row and all its lines, whatever their
// number, returning what the resource shows (no read back). The lines travel as one JSON parameter
// (numerics as exact decimal text), so the SQL text has the same shape for 1 line or 200; the
// invoice's columns are the only other parameters.
import { randomInt } from 'node:crypto';
import { type Column, getTableColumns, type SQL, type SQLChunk, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { type FixedStatement, fixedStatement, runFixed } from '../db/prepared.js';
import { invoiceItems, invoices } from '../db/schema.js';
import { type InvoiceRowInserted, type ItemRow, invoiceReturning, itemReturning } from './repository.js';

export type NewInvoice = typeof invoices.$inferInsert;

/** A line as stored: numerics as exact decimal text. */
export interface DraftLineRow {
  productId: number;
  name: string;
  description: string;
  quantity: string;
  price: string;
  discount: string;
  discountPercentage: string;
  taxId: number | null;
  taxAmount: string;
  taxRate: string | null;
  taxIncluded: boolean;
  total: string;
}

/** The recordset's columns (the JSON keys of a line), their column and SQL type. */
const LINE_FIELDS: [key: keyof DraftLineRow | 'position', column: Column, type: SQL][] = [
  ['position', invoiceItems.position, sql`integer`],
  ['productId', invoiceItems.productId, sql`integer`],
  ['name', invoiceItems.name, sql`text`],
  ['description', invoiceItems.description, sql`text`],
  ['quantity', invoiceItems.quantity, sql`numeric`],
  ['price', invoiceItems.price, sql`numeric`],
  ['discount', invoiceItems.discount, sql`numeric`],
  ['discountPercentage', invoiceItems.discountPercentage, sql`numeric`],
  ['taxId', invoiceItems.taxId, sql`integer`],
  ['taxAmount', invoiceItems.taxAmount, sql`numeric`],
  ['taxRate', invoiceItems.taxRate, sql`numeric`],
  ['taxIncluded', invoiceItems.taxIncluded, sql`boolean`],
  ['total', invoiceItems.total, sql`numeric`],
];

const name = (text: string) => sql.identifier(text);
const list = (parts: SQLChunk[]) => sql.join(parts, sql`, `);

/** `column as "key"`; a numeric as its text, which both drivers return alike (never a float). */
function returned(fields: Record<string, Column>): SQL {
  return list(
    Object.entries(fields).map(([key, column]) =>
      column.columnType === 'PgNumeric'
        ? sql`${name(column.name)}::text as ${name(key)}`
        : sql`${name(column.name)} as ${name(key)}`,
    ),
  );
}

const INVOICE_COLUMNS = getTableColumns(invoices);

const LINE_COLUMNS = list(
  [invoiceItems.companyId, invoiceItems.invoiceId, ...LINE_FIELDS.map(([, column]) => column)].map((column) =>
    name(column.name),
  ),
);
const LINE_VALUES = list([
  sql`invoice.${name('companyId')}`,
  sql`invoice.${name('id')}`,
  ...LINE_FIELDS.map(([key]) => sql`l.${name(key)}`),
]);
const RECORDSET = list(LINE_FIELDS.map(([key, , type]) => sql`${name(key)} ${type}`));
const INVOICE_RETURNING = returned({ ...invoiceReturning, companyId: invoices.companyId });
const LINES_RETURNING = returned({ ...itemReturning, position: invoiceItems.position });

type RawInvoice = Omit<InvoiceRowInserted, 'createdAt' | 'updatedAt'> & {
  companyId: number;
  createdAt: unknown;
  updatedAt: unknown;
  lines: string | null;
};

const LINES = '__lines';
const statements = new Map<string, FixedStatement>();

/** The statement for invoices given these columns (built once per set of columns). */
function statementFor(keys: readonly string[]): FixedStatement {
  const id = keys.join(',');
  let statement = statements.get(id);
  if (!statement) {
    const columns = keys.map((key) => {
      const column = INVOICE_COLUMNS[key as keyof typeof INVOICE_COLUMNS];
      if (!column) throw new Error(`invoices has no column ${key}`);
      return name(column.name);
    });
    const values = list(keys.map((key) => sql.placeholder(key)));
    // with invoice as (insert ... returning ...), lines as (insert ... select from invoice and the
    // recordset, returning ...) select invoice.*, the lines as JSON. A draft code already taken:
    // no invoice row, so no line either, and no row at all.
    statement = fixedStatement(
      sql.join([
        sql`with invoice as (insert into ${invoices} (${list(columns)}) values (${values})`,
        sql` on conflict (${name(invoices.companyId.name)}, ${name(invoices.invoiceCode.name)}) do nothing`,
        sql` returning ${INVOICE_RETURNING}), lines as (insert into ${invoiceItems} (${LINE_COLUMNS})`,
        sql` select ${LINE_VALUES} from invoice cross join jsonb_to_recordset(${sql.placeholder(LINES)}::text::jsonb)`,
        sql` as l(${RECORDSET}) order by l."position" returning ${LINES_RETURNING})`,
        sql` select invoice.*, (select json_agg(lines order by lines."position")::text from lines) as "lines" from invoice`,
      ]),
    );
    statements.set(id, statement);
  }
  return statement;
}

const DRAFT_CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DRAFT_CODE_ATTEMPTS = 10;

/** `DRAFT-` and 8 random characters of [A-Z0-9]. */
function randomDraftCode(): string {
  let code = 'DRAFT-';
  for (let i = 0; i < 8; i++) code += DRAFT_CODE_ALPHABET[randomInt(DRAFT_CODE_ALPHABET.length)];
  return code;
}

/**
 * Inserts the invoice and its lines (in their order) under a fresh draft code, trying another
 * code if the one generated is already taken in the company (unique index
 * `invoices_company_code_key`). Returns the stored row and lines as the resource needs them.
 * `generate`: the codes to try (a test's, to meet a taken one).
 */
export async function insertDraft(
  db: Database,
  values: Omit<NewInvoice, 'invoiceCode'>,
  lines: readonly DraftLineRow[],
  generate: () => string = randomDraftCode,
): Promise<{ row: InvoiceRowInserted; items: ItemRow[] }> {
  const attempts = DRAFT_CODE_ATTEMPTS;
  const linesJson = JSON.stringify(lines.map((line, position) => ({ position, ...line })));
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  const statement = statementFor([...Object.keys(given), 'invoiceCode']);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const [raw] = await runFixed<RawInvoice>(db, statement, {
      ...given,
      invoiceCode: generate(),
      [LINES]: linesJson,
    });
    if (!raw) continue;
    const { lines: stored, createdAt, updatedAt, companyId: _companyId, ...row } = raw;
    return {
      row: { ...row, createdAt: timestampOf(createdAt), updatedAt: timestampOf(updatedAt) },
      items:
        stored === null
          ? []
          : (JSON.parse(stored) as (ItemRow & { position: number })[]).map(withoutPosition),
    };
  }
  throw new Error(`no free draft code after ${attempts} attempts`);
}

/**
 * A timestamptz as drizzle maps it when its own queries read one (both drivers hand drizzle the
 * text, which Date parses): the same instant, to the millisecond, as a later GET shows.
 */
function timestampOf(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as string);
}

function withoutPosition({ position: _position, ...item }: ItemRow & { position: number }): ItemRow {
  return item;
}
