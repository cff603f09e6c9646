import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] listAll() pede 100 de cada vez e pára quando current_page iguala last_page.
// [en] listAll() asks for 100 at a time and stops when current_page equals last_page.
for await (const customer of api.customers.listAll({ sort: 'created_at', order: 'asc' })) {
  console.log(`${customer.id} ${customer.name}`);
}
