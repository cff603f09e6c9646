import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Nas listas as facturas vêm sem linhas (items); a leitura individual traz-as.
// [en] Lists carry invoices without their lines (items); the single read has them.
const page = await api.invoices.list({
  customer_id: 1042,
  status: 'partially_paid',
  sort: 'due_date',
  order: 'asc',
});
for (const invoice of page.data) {
  console.log(
    `${invoice.invoice_code} ${invoice.status} ${invoice.grand_total} ${invoice.currency}, due ${invoice.due_date}, open ${invoice.remaining_amount}`,
  );
}
