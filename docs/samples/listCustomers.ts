import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Uma página; listAll() percorre todas.
// [en] One page; listAll() walks them all.
const page = await api.customers.list({ search: 'xai-xai', sort: 'name', per_page: 25 });
for (const customer of page.data) console.log(`${customer.id} ${customer.name} ${customer.nuit ?? ''}`);
const { total, current_page, last_page } = page.pagination;
console.log(`${total} (${current_page}/${last_page})`);
