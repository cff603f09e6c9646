import { PartnerApi } from '@invoicing/partner-api';

// [pt] A chave e o endereço vêm do ambiente: nunca escreva a chave no código.
// [en] The key and the address come from the environment: never write the key in your code.
const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

const me = await api.ping();
console.log(`${me.tenant_name} (${me.mode}): ${me.scopes.join(', ')}`);
