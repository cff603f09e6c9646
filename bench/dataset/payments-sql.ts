// Receipts (kind 'receipt') of the paid and partially paid invoices, whose amounts add up to the
// invoice's paid_amount, plus salaries and supplier payments that the API must never show.
import { firstReceiptDate, hasSecondReceipt, secondReceiptDate } from './invoices-sql.js';
import { int, type Layout } from './sql-helpers.js';

/** Payment method of a payment and its payment_method_type (as `payments record` maps them). */
const METHOD = `case
  when bench.rnd(r.sort_key, 90) < 0.35 then array['cash', 'cash']
  when bench.rnd(r.sort_key, 90) < 0.55 then array['mpesa', 'mobile_money']
  when bench.rnd(r.sort_key, 90) < 0.75 then array['bank_transfer', 'bank_transfer']
  when bench.rnd(r.sort_key, 90) < 0.85 then array['card', 'card']
  when bench.rnd(r.sort_key, 90) < 0.93 then array['emola', 'mobile_money']
  when bench.rnd(r.sort_key, 90) < 0.97 then array['cheque', 'cheque']
  else array['mkesh', 'mobile_money'] end`;

export function insertPayments(invoices: Layout, movementsTotal: number, paymentBase: number): string {
  const n = `(i.id - ${int(invoices.base)})`;
  return `
insert into payments (id, company_id, kind, invoice_id, payment_code, payment_date, amount, payment_method,
  payment_method_type, reference, notes, created_at, updated_at)
select ${int(paymentBase)} + row_number() over (order by r.payment_date, r.sort_key),
  r.company_id, r.kind, r.invoice_id,
  r.series || ' ' || extract(year from r.payment_date)::int || '/' || lpad((row_number() over (
    partition by r.company_id, r.series, extract(year from r.payment_date) order by r.payment_date, r.sort_key))::text, 6, '0'),
  r.payment_date, r.amount,
  case when r.kind = 'receipt' then m.method[1] else 'bank_transfer' end,
  case when r.kind = 'receipt' then m.method[2] else 'bank_transfer' end,
  case when r.kind <> 'receipt' or m.method[1] = 'bank_transfer' then 'TRF' || lpad(abs(r.sort_key)::text, 10, '0')
    when m.method[2] = 'mobile_money' then 'MP' || upper(to_hex(abs(r.sort_key) * 2654435761 % 4294967296)) else '' end,
  case r.kind when 'salary' then 'Salários' when 'supplier_payment' then 'Pagamento a fornecedor'
    else case when r.partial then 'Pagamento parcial' end end,
  x.created_at, x.created_at
from (
  select i.company_id, 'receipt' as kind, i.id as invoice_id, 'RC' as series, i.status = 'partially_paid' as partial,
    ${firstReceiptDate(n, 'i.invoice_date')} as payment_date,
    case when ${hasSecondReceipt(n, 'i.status')} then round(i.grand_total / 2, 2) else i.paid_amount end as amount,
    i.id::bigint * 4 as sort_key
  from invoices i where i.status in ('paid', 'partially_paid')
  union all
  select i.company_id, 'receipt', i.id, 'RC', false,
    ${secondReceiptDate(n, 'i.invoice_date')},
    i.grand_total - round(i.grand_total / 2, 2),
    i.id::bigint * 4 + 1
  from invoices i where ${hasSecondReceipt(n, 'i.status')}
  union all
  select case when g.m % 51 = 0 then ${int(invoices.noiseCompany)} else ${int(invoices.mainCompany)} end,
    case when g.m % 2 = 0 then 'salary' else 'supplier_payment' end, null, 'MV', false,
    current_date - 1095 + floor(g.m::double precision / ${int(movementsTotal)} * 1094)::int,
    case when g.m % 2 = 0 then round((15000 + bench.rnd(g.m, 91) * 65000)::numeric, 2)
      else round((1000 + power(bench.rnd(g.m, 91), 2) * 499000)::numeric, 2) end,
    -g.m
  from generate_series(1, ${int(movementsTotal)}) as g(m)
) as r
cross join lateral (select ${METHOD} as method) as m
cross join lateral (select least(now(), (r.payment_date + time '09:00') at time zone 'Africa/Maputo'
  + bench.rnd(r.sort_key, 92) * interval '9 hours') as created_at) as x`;
}

/** Fiscal and product-code sequences continue after the generated codes, so the CLI can issue more. */
export const SEQUENCES = [
  `insert into fiscal_sequences (company_id, series, year, last_value)
   select company_id, split_part(code, ' ', 1), split_part(split_part(code, ' ', 2), '/', 1)::int,
     max(split_part(code, '/', 2)::int)
   from (select company_id, invoice_code as code from invoices where invoice_code like 'FT %'
         union all select company_id, payment_code from payments) as c
   group by 1, 2, 3
   on conflict (company_id, series, year) do update set last_value = greatest(fiscal_sequences.last_value, excluded.last_value)`,
  `insert into product_code_sequences (company_id, type, last_value)
   select company_id, type, max(split_part(product_code, '-', 2)::int) from products group by 1, 2
   on conflict (company_id, type) do update set last_value = greatest(product_code_sequences.last_value, excluded.last_value)`,
];

/** Serial sequences continue after the explicit ids the generator used. */
export function resetSerial(table: string): string {
  return `select setval(pg_get_serial_sequence('${table}', 'id'), greatest(1, (select coalesce(max(id), 0) from ${table})))`;
}
