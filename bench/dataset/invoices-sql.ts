// Invoices with 2-4 lines each, in every status, with totals that add up: the lines are made
// first (staging table bench.lines), the invoice totals are their sums, and paid / remaining
// amounts follow the status. Dates follow the ids, as in a real database that grows over time.
import { int, type Layout, sameCompanyRow, spreadTimestamp } from './sql-helpers.js';

export interface InvoiceInputs {
  invoices: Layout;
  customers: Layout;
  products: Layout;
  itemBase: number;
  globalCustomers: number[];
  /** Rate of both companies' IVA tax, in percent. */
  taxRate: number;
}

export const CREATE_LINES = (input: InvoiceInputs) => `
create unlogged table bench.lines as
select q.n, q.pos, p.id as product_id, p.name, p.tax_id, p.cost_price as unit_cost, q.quantity, p.price, q.pct,
  round(q.quantity * p.price, 2) as subtotal,
  round(round(q.quantity * p.price, 2) * q.pct / 100, 2) as discount
from (
  select g.n, l.pos,
    ${sameCompanyRow(input.products, 'g.n', 'bench.rnd(g.n * 8 + l.pos, 61)')} as product_id,
    case when bench.rnd(g.n * 8 + l.pos, 62) < 0.9
      then 1 + floor(power(bench.rnd(g.n * 8 + l.pos, 63), 3) * 20)
      else 0.5 + floor(bench.rnd(g.n * 8 + l.pos, 63) * 40) / 2 end::numeric as quantity,
    case when bench.rnd(g.n * 8 + l.pos, 64) < 0.85 then 0 when bench.rnd(g.n * 8 + l.pos, 64) < 0.95 then 5 else 10 end::numeric as pct
  from generate_series(1, ${int(input.invoices.total)}) as g(n)
  cross join lateral generate_series(1, 2 + floor(bench.rnd(g.n, 60) * 3)::int) as l(pos)
) as q
join products p on p.id = q.product_id`;

export const CREATE_TOTALS = (input: InvoiceInputs) => `
create unlogged table bench.invoice_totals as
select n,
  sum(subtotal) as subtotal,
  sum(discount) as discount,
  sum(case when tax_id is null then 0 else subtotal - discount end) as vat_base,
  sum(case when tax_id is null then 0 else round((subtotal - discount) * ${int(input.taxRate)} / 100, 2) end) as tax,
  sum(subtotal - discount + case when tax_id is null then 0 else round((subtotal - discount) * ${int(input.taxRate)} / 100, 2) end) as grand_total,
  sum(round(quantity * unit_cost, 2)) as cost_total
from bench.lines group by n`;

/** Status of invoice n: draft 8%, unpaid 57%, partially_paid 6%, paid 22%, cancelled 7%. */
const STATUS = `case
  when bench.rnd(g.n, 70) < 0.08 then 'draft'
  when bench.rnd(g.n, 70) < 0.65 then 'unpaid'
  when bench.rnd(g.n, 70) < 0.71 then 'partially_paid'
  when bench.rnd(g.n, 70) < 0.93 then 'paid'
  else 'cancelled' end`;

/** Date of the first receipt of invoice number `n` (SQL expressions for both arguments). */
export function firstReceiptDate(n: string, invoiceDate: string): string {
  return `least(${invoiceDate} + floor(bench.rnd(${n}, 72) * 45)::int, current_date)`;
}

export function secondReceiptDate(n: string, invoiceDate: string): string {
  return `least(${firstReceiptDate(n, invoiceDate)} + floor(bench.rnd(${n}, 74) * 30)::int, current_date)`;
}

/** A tenth or so of the paid invoices were paid in two receipts (receipts come to ~0.3 per invoice). */
export function hasSecondReceipt(n: string, status: string): string {
  return `(${status} = 'paid' and bench.rnd(${n}, 73) < 1.0 / 11)`;
}

export const INSERT_INVOICES = (input: InvoiceInputs) => {
  const created = spreadTimestamp('g.n', input.invoices.total, 1095, 75);
  const globals = `array[${input.globalCustomers.map(int).join(',')}]::int[]`;
  const customer = sameCompanyRow(
    input.customers,
    'g.n',
    'case when bench.rnd(g.n, 21) < 0.3 then power(bench.rnd(g.n, 20), 3) else bench.rnd(g.n, 20) end',
  );
  return `
insert into invoices (id, company_id, customer_id, invoice_code, payment_notice_code, document_type,
  is_payment_notice, notice_kind, is_pos_sale, reference, payment_reference, status, invoice_date, due_date,
  currency, exchange_rate, subtotal, discount, global_discount_amount, vat_base, tax, grand_total,
  paid_amount, remaining_amount, notes, cost_total, issued_at, created_at, updated_at)
select ${int(input.invoices.base)} + h.n, h.company_id, h.customer_id,
  case when h.status = 'draft'
    then 'DRAFT-' || upper(lpad(to_hex((h.n * 2654435761) % 4294967296), 8, '0'))
    else 'FT ' || extract(year from h.invoice_date)::int || '/' || lpad((row_number() over (
      partition by h.company_id, h.status = 'draft', extract(year from h.invoice_date) order by h.invoice_date, h.n))::text, 6, '0')
  end,
  case when h.notice then 'AP ' || lpad(h.n::text, 8, '0') else '' end,
  case when h.notice then 'payment_notice' else 'invoice' end,
  h.notice,
  case when h.notice then 'proforma' else '' end,
  h.status = 'paid' and bench.rnd(h.n, 76) < 0.2,
  case when bench.rnd(h.n, 77) < 0.3 then 'PO-' || (1000 + h.n) else '' end,
  '',
  h.status, h.invoice_date,
  h.invoice_date + (array[0, 15, 30, 60])[1 + floor(bench.rnd(h.n, 78) * 4)::int],
  h.currency,
  case h.currency when 'USD' then 63.25 when 'ZAR' then 3.45 end,
  t.subtotal, t.discount, 0, t.vat_base, t.tax, t.grand_total,
  h.paid, t.grand_total - h.paid,
  case when bench.rnd(h.n, 79) < 0.1 then 'Entrega no armazém do cliente' else '' end,
  t.cost_total,
  case when h.status <> 'draft' then h.created_at + interval '5 minutes' end,
  h.created_at,
  case h.status
    when 'draft' then h.created_at
    when 'unpaid' then h.created_at + interval '5 minutes'
    when 'cancelled' then least(now(), h.created_at + bench.rnd(h.n, 80) * interval '10 days')
    else greatest(h.created_at + interval '5 minutes', least(now(),
      ((case when ${hasSecondReceipt('h.n', 'h.status')}
        then ${secondReceiptDate('h.n', 'h.invoice_date')}
        else ${firstReceiptDate('h.n', 'h.invoice_date')} end)
        + time '09:00') at time zone 'Africa/Maputo' + bench.rnd(h.n, 81) * interval '9 hours'))
  end
from (
  select s.*,
    s.status = 'unpaid' and bench.rnd(s.n, 82) < 0.05 as notice,
    case s.status
      when 'paid' then t.grand_total
      when 'partially_paid' then greatest(0.01, least(t.grand_total - 0.01, round(t.grand_total * (0.1 + 0.8 * bench.rnd(s.n, 71))::numeric, 2)))
      else 0 end as paid
  from (
    select g.n,
      case when g.n % 51 = 0 then ${int(input.invoices.noiseCompany)} else ${int(input.invoices.mainCompany)} end as company_id,
      case when bench.rnd(g.n, 83) < 0.03 then (${globals})[1 + floor(bench.rnd(g.n, 84) * ${input.globalCustomers.length})::int]
        else ${customer} end as customer_id,
      ${STATUS} as status,
      ${created} as created_at,
      ((${created}) at time zone 'Africa/Maputo')::date
        - case when bench.rnd(g.n, 85) < 0.1 then floor(bench.rnd(g.n, 86) * 5)::int else 0 end as invoice_date,
      case when bench.rnd(g.n, 87) < 0.97 then 'MZN' when bench.rnd(g.n, 87) < 0.99 then 'USD' else 'ZAR' end as currency
    from generate_series(1, ${int(input.invoices.total)}) as g(n)
  ) as s
  join bench.invoice_totals t on t.n = s.n
) as h
join bench.invoice_totals t on t.n = h.n`;
};

export const INSERT_ITEMS = (input: InvoiceInputs) => `
insert into invoice_items (id, company_id, invoice_id, position, product_id, name, description, quantity, price,
  discount, discount_percentage, tax_id, tax_amount, tax_rate, tax_included, total, unit_cost)
select ${int(input.itemBase)} + row_number() over (order by l.n, l.pos),
  case when l.n % 51 = 0 then ${int(input.invoices.noiseCompany)} else ${int(input.invoices.mainCompany)} end,
  ${int(input.invoices.base)} + l.n, l.pos - 1, l.product_id,
  case when bench.rnd(l.n * 8 + l.pos, 65) < 0.9 then l.name else '' end,
  '', l.quantity, l.price, l.discount, l.pct, l.tax_id, x.tax_amount,
  case when l.tax_id is not null then ${int(input.taxRate)} end,
  false, l.subtotal - l.discount + x.tax_amount, l.unit_cost
from bench.lines l
cross join lateral (select case when l.tax_id is null then 0
  else round((l.subtotal - l.discount) * ${int(input.taxRate)} / 100, 2) end as tax_amount) as x`;
