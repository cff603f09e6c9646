import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

const invoice = await api.invoices.get(4120);
console.log(
  `${invoice.invoice_code} ${invoice.status}: ${invoice.grand_total} ${invoice.currency}, paid ${invoice.paid_amount}`,
);
for (const line of invoice.items)
  console.log(`  ${line.quantity} x ${line.name} @ ${line.price} = ${line.total}`);
