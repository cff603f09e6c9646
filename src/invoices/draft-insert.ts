// The write of a draft invoice in ONE statement: the invoice row and all its lines, whatever their
// number, returning what the resource shows (no read back). The lines travel as one JSON parameter
// (numerics as exact decimal text), so the SQL text has the same shape for 1 line or 200; the
// invoice's columns are the only other parameters.
import { type Column, getTableColumns, getTableName, sql } from 'drizzle-orm';
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
const LINE_FIELDS: [key: keyof DraftLineRow | 'position', column: Column, type: string][] = [
  ['position', invoiceItems.position, 'integer'],
  ['productId', invoiceItems.productId, 'integer'],
  ['name', invoiceItems.name, 'text'],
  ['description', invoiceItems.description, 'text'],
  ['quantity', invoiceItems.quantity, 'numeric'],
  ['price', invoiceItems.price, 'numeric'],
  ['discount', invoiceItems.discount, 'numeric'],
  ['discountPercentage', invoiceItems.discountPercentage, 'numeric'],
  ['taxId', invoiceItems.taxId, 'integer'],
  ['taxAmount', invoiceItems.taxAmount, 'numeric'],
  ['taxRate', invoiceItems.taxRate, 'numeric'],
  ['taxIncluded', invoiceItems.taxIncluded, 'boolean'],
  ['total', invoiceItems.total, 'numeric'],
];

const quoted = (name: string) => `"${name}"`;

/** `column as "key"`; a numeric as its text, which both drivers return alike (never a float). */
function returned(fields: Record<string, Column>): string {
  return Object.entries(fields)
    .map(([key, column]) => {
      const value = column.columnType === 'PgNumeric' ? `${quoted(column.name)}::text` : quoted(column.name);
      return `${value} as ${quoted(key)}`;
    })
    .join(', ');
}

const INVOICE_COLUMNS = getTableColumns(invoices);

const LINE_COLUMNS: Column[] = [
  invoiceItems.companyId,
  invoiceItems.invoiceId,
  ...LINE_FIELDS.map(([, column]) => column),
];
const LINE_VALUES = [
  'invoice."companyId"',
  'invoice."id"',
  ...LINE_FIELDS.map(([key]) => `l.${quoted(key)}`),
];
const RECORDSET = LINE_FIELDS.map(([key, , type]) => `${quoted(key)} ${type}`).join(', ');

// with invoice as (insert ... returning ...), lines as (insert ... select from invoice and the
// recordset, returning ...) select invoice.*, the lines as JSON. A draft code already taken: no
// invoice row, so no line either, and no row at all.
const INVOICE_TAIL = sql.raw(
  ` on conflict (${quoted(invoices.companyId.name)}, ${quoted(invoices.invoiceCode.name)}) do nothing` +
    ` returning ${returned({ ...invoiceReturning, companyId: invoices.companyId })}`,
);
const LINES_HEAD = sql.raw(
  `), lines as (insert into ${quoted(getTableName(invoiceItems))} (${LINE_COLUMNS.map((column) => quoted(column.name)).join(', ')})` +
    ` select ${LINE_VALUES.join(', ')} from invoice cross join jsonb_to_recordset(`,
);
const LINES_TAIL = sql.raw(
  `::text::jsonb) as l(${RECORDSET}) order by l."position"` +
    ` returning ${returned({ ...itemReturning, position: invoiceItems.position })})` +
    ` select invoice.*, (select json_agg(lines order by lines."position")::text from lines) as "lines" from invoice`,
);

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
      return quoted(column.name);
    });
    const values = sql.join(
      keys.map((key) => sql.placeholder(key)),
      sql`, `,
    );
    statement = fixedStatement(
      sql`with invoice as (insert into ${invoices} (${sql.raw(columns.join(', '))}) values (${values})${INVOICE_TAIL}${LINES_HEAD}${sql.placeholder(LINES)}${LINES_TAIL}`,
    );
    statements.set(id, statement);
  }
  return statement;
}

/**
 * Inserts the invoice and its lines (in their order) under a fresh draft code, trying another
 * code if the one generated is already taken in the company (unique index
 * `invoices_company_code_key`). Returns the stored row and lines as the resource needs them.
 */
export async function insertDraft(
  db: Database,
  values: Omit<NewInvoice, 'invoiceCode'>,
  lines: readonly DraftLineRow[],
  generate: () => string,
  attempts: number,
): Promise<{ row: InvoiceRowInserted; items: ItemRow[] }> {
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
