import { PartnerApi, responseOf } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Uma chave por operação, guardada com ela: aqui, o id do registo no seu próprio sistema.
// [en] One key per operation, stored with it: here, the id of the record in your own system.
const key = 'crm-customer-7781';
const body = { name: 'Padaria Costa do Sol', type: 'company' as const };
const first = await api.customers.create(body, { idempotencyKey: key });
// [pt] A mesma operação outra vez (por exemplo depois de um reinício): a resposta guardada, nada novo.
// [en] The same operation again (say after a restart): the stored answer, nothing new.
const again = await api.customers.create(body, { idempotencyKey: key });
console.log(`${first.id} ${again.id} replayed=${responseOf(again)?.replayed}`);
