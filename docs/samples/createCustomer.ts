import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] O cliente gera a Idempotency-Key e repete-a, com os mesmos bytes, em cada nova tentativa.
// [en] The client makes the Idempotency-Key and resends it, with the same bytes, on every retry.
const customer = await api.customers.create({
  name: 'Talho Polana, Lda',
  type: 'company',
  nuit: '400339910',
  email: 'compras@talhopolana.co.mz',
  phone: '+258 84 555 0101',
});
console.log(`${customer.id} ${customer.name} ${customer.created_at}`);
