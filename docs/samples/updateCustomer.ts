import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Só os campos enviados mudam; null apaga um campo opcional.
// [en] Only the fields sent change; null clears an optional field.
const customer = await api.customers.update(1042, {
  phone: '+258 84 123 4567',
  address: 'Av. Samora Machel 210, Xai-Xai',
});
console.log(`${customer.name} | ${customer.phone} | ${customer.address}`);
