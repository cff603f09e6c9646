import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

const payment = await api.payments.get(2207);
console.log(
  `${payment.payment_code}: ${payment.amount} on ${payment.payment_date} for ${payment.invoice?.invoice_code}`,
);
