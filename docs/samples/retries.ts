import { PartnerApi, responseOf } from '@invoicing/partner-api';

// [pt] As repetições já vêm feitas: 429, 409 em curso, 5xx e falhas de rede, no máximo 5 tentativas,
// [pt] esperando o Retry-After ou um recuo exponencial com variação aleatória.
// [en] Retries come built in: 429, 409 in flight, 5xx and network failures, at most 5 attempts,
// [en] waiting for Retry-After or an exponential backoff with jitter.
const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
  maxRetries: 4,
  onRetry: ({ method, path, attempt, delayMs, error }) =>
    console.log(`retry after attempt ${attempt} of ${method} ${path} in ${delayMs} ms: ${error.message}`),
});

// [pt] Cada tentativa reenvia os mesmos bytes com a mesma Idempotency-Key: criado uma só vez.
// [en] Every attempt resends the same bytes with the same Idempotency-Key: created once.
const customer = await api.customers.create({ name: 'Oficina Matola Rio', type: 'company' });
console.log(`${customer.id} ${customer.name} replayed=${responseOf(customer)?.replayed}`);
