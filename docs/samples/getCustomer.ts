import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

const customer = await api.customers.get(1042);
console.log(`${customer.name} | NUIT ${customer.nuit} | ${customer.email} | ${customer.updated_at}`);
