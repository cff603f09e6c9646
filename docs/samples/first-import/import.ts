// [pt] Primeira importação: clientes e produtos de um ficheiro JSON, com várias chaves de API da
// [pt] mesma empresa (pedidas ao operador), um cliente oficial por chave, cada um ao seu ritmo.
// [en] First import: customers and products from a JSON file, with several API keys of the same
// [en] company (asked of the operator), one official client per key, each pacing itself.
import { readFile } from 'node:fs/promises';
import { type CustomerCreate, PartnerApi, PartnerApiError, type ProductCreate } from '@invoicing/partner-api';

/** [pt] `ref`: a referência do registo no seu sistema. / [en] `ref`: the record's reference in your system. */
type Row =
  | { kind: 'customer'; ref: string; body: CustomerCreate }
  | { kind: 'product'; ref: string; body: ProductCreate };

const keys = (process.env.PARTNER_API_KEYS ?? '').split(',').filter((key) => key !== '');
const baseUrl = process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner';
const file = JSON.parse(await readFile(process.env.IMPORT_FILE ?? 'import.json', 'utf8')) as {
  customers: (CustomerCreate & { ref: string })[];
  products: (ProductCreate & { ref: string })[];
};
const rows: Row[] = [
  ...file.customers.map(({ ref, ...body }): Row => ({ kind: 'customer', ref, body })),
  ...file.products.map(({ ref, ...body }): Row => ({ kind: 'product', ref, body })),
];

let pauses = 0;
const clients = keys.map((apiKey) => new PartnerApi({ apiKey, baseUrl, onPace: () => pauses++ }));
const created = { customer: 0, product: 0 };
const refused: string[] = [];
const started = Date.now();
let next = 0;

// [pt] Um trabalhador por chave; todos tiram o registo seguinte da mesma fila. A Idempotency-Key
// [pt] vem da referência: repetir a importação (dentro de 24 horas) nunca cria duas vezes.
// [en] One worker per key; all take the next record from the same queue. The Idempotency-Key
// [en] comes from the reference: running the import again (within 24 hours) never creates twice.
async function worker(api: PartnerApi): Promise<void> {
  for (let row = rows[next++]; row; row = rows[next++]) {
    const idempotencyKey = `import-${row.kind}-${row.ref}`;
    try {
      if (row.kind === 'customer') await api.customers.create(row.body, { idempotencyKey });
      else await api.products.create(row.body, { idempotencyKey });
      created[row.kind]++;
    } catch (error) {
      // [pt] Um registo inválido fica para corrigir; o resto continua. / [en] An invalid record is kept to fix; the rest goes on.
      if (!(error instanceof PartnerApiError) || error.code !== 'validation_failed') throw error;
      refused.push(`${row.ref}: ${JSON.stringify(error.errors)}`);
    }
  }
}
await Promise.all(clients.map(worker));

// [pt] O ritmo que os limites permitem, com as quotas que a API anunciou (RateLimit-Policy).
// [en] The pace the limits allow, from the quotas the API announced (RateLimit-Policy).
const quota = (name: string) => clients[0]?.rateLimits().find((limit) => limit.name === name)?.quota ?? 0;
const perMinute = Math.min(keys.length * quota('key-writes-minute'), quota('company-minute'));
const seconds = Math.round((Date.now() - started) / 1000);
console.log(
  `imported ${created.customer + created.product} of ${rows.length} (customers ${created.customer}, products ${created.product}), ${refused.length} refused, with ${keys.length} keys in ${seconds} s, ${pauses} pauses`,
);
console.log(
  `pace: ${perMinute} writes a minute (${keys.length} keys x ${quota('key-writes-minute')}, company ${quota('company-minute')}): 2000 records take about ${Math.ceil(2000 / perMinute)} min`,
);
for (const line of refused) console.log(`refused ${line}`);
