import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] since: a sua marca da última vez menos 5 minutos (na primeira vez, uma data antiga).
// [en] since: your mark from last time minus 5 minutes (the first time, an old date).
let since = '2000-01-01';
let page = 1;
for (;;) {
  const { data } = await api.customers.list({
    updated_since: since,
    sort: 'updated_at',
    order: 'asc',
    per_page: 100,
    page,
  });
  // [pt] Guarde cada registo pelo id (upsert): vê-lo duas vezes não faz mal.
  // [en] Store each record by id (upsert): seeing one twice does no harm.
  for (const customer of data) console.log(`${customer.id} ${customer.updated_at}`);
  if (data.length < 100) break;
  const last = data[data.length - 1]!.updated_at;
  // [pt] Avance since e volte à página 1; só uma página toda no mesmo instante pede a página seguinte.
  // [en] Move since forward and go back to page 1; only a page all at one instant asks for the next page.
  if (last === since) page++;
  else [since, page] = [last, 1];
}
