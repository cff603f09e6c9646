// Filter values for the list cases, taken from the data set itself so that every filter matches
// real rows: a surname and a product word typed without accents, an existing e-mail, NUIT, phone,
// product code and SKU, the busiest and a typical customer, an invoice with two receipts, a
// month in the middle of the data, "updated in the last 30 days", a year back (the date and
// `updated_since`), and the last day before the newest change (an incremental sync).
import { queryRows } from '../lib/postgres.js';

export interface ListParams {
  company: number;
  nameTerm: string;
  email: string;
  nuit: string;
  phone: string;
  productWord: string;
  productCode: string;
  sku: string;
  busiestCustomer: number;
  typicalCustomer: number;
  invoiceWithReceipts: number;
  monthFrom: string;
  monthTo: string;
  updatedSince: string;
  /** A year before the newest change, as a date. */
  yearAgo: string;
  /** A day before the newest change, as an instant (UTC): what an hourly or daily sync sends. */
  syncSince: string;
}

export async function listParams(url: string, company: number): Promise<ListParams> {
  const [row] = await queryRows<Record<string, string | number>>(
    url,
    `with c as (select * from customers where company_id = $1 order by id
                offset (select count(*) / 2 from customers where company_id = $1) limit 50)
     select
       (select email from c where email is not null limit 1) as email,
       (select nuit from c where nuit is not null limit 1) as nuit,
       (select phone from c where phone is not null limit 1) as phone,
       (select product_code from products where company_id = $1 order by id offset 1000 limit 1) as product_code,
       (select sku from products where company_id = $1 and sku is not null order by id offset 2000 limit 1) as sku,
       (select customer_id from invoices where company_id = $1 group by 1 order by count(*) desc limit 1) as busiest,
       (select id from c offset 10 limit 1) as typical,
       (select invoice_id from payments where company_id = $1 and kind = 'receipt' group by 1
         having count(*) > 1 order by 1 limit 1) as invoice_with_receipts,
       (select to_char(date_trunc('month', min(invoice_date) + (max(invoice_date) - min(invoice_date)) / 2), 'YYYY-MM-DD')
         from invoices where company_id = $1) as month_from,
       (select to_char(max(updated_at) at time zone 'Africa/Maputo' - interval '30 days', 'YYYY-MM-DD')
         from invoices where company_id = $1) as updated_since,
       (select to_char(max(updated_at) at time zone 'Africa/Maputo' - interval '1 year', 'YYYY-MM-DD')
         from invoices where company_id = $1) as year_ago,
       (select to_char(max(updated_at) at time zone 'UTC' - interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
         from invoices where company_id = $1) as sync_since`,
    [company],
  );
  if (!row) throw new Error('no data for the list parameters');
  const monthFrom = String(row.month_from);
  const monthEnd = new Date(`${monthFrom}T00:00:00Z`);
  monthEnd.setUTCMonth(monthEnd.getUTCMonth() + 1);
  monthEnd.setUTCDate(0);
  return {
    company,
    nameTerm: 'macuacua',
    email: String(row.email),
    nuit: String(row.nuit),
    phone: String(row.phone),
    productWord: 'acucar',
    productCode: String(row.product_code),
    sku: String(row.sku),
    busiestCustomer: Number(row.busiest),
    typicalCustomer: Number(row.typical),
    invoiceWithReceipts: Number(row.invoice_with_receipts),
    monthFrom,
    monthTo: monthEnd.toISOString().slice(0, 10),
    updatedSince: String(row.updated_since),
    yearAgo: String(row.year_ago),
    syncSince: String(row.sync_since),
  };
}
