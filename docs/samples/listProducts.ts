import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Preços são texto decimal ("650.00"): nunca os converta para número de vírgula flutuante.
// [en] Prices are decimal text ("650.00"): never turn them into floating-point numbers.
const page = await api.products.list({ is_for_sale: true, sort: 'name', per_page: 50 });
for (const product of page.data) {
  console.log(
    `${product.product_code} ${product.name} ${product.price ?? '-'} (stock ${product.stock ?? '-'})`,
  );
}
