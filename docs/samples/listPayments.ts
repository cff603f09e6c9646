import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Só recibos de facturas da empresa; só leitura.
// [en] Only receipts of the company's invoices; read only.
const page = await api.payments.list({ invoice_id: 4120, sort: 'payment_date', order: 'desc' });
for (const payment of page.data) {
  console.log(
    `${payment.payment_code} ${payment.payment_date} ${payment.amount} ${payment.payment_method} -> ${payment.invoice?.invoice_code}`,
  );
}
