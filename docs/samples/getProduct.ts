import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

const product = await api.products.get(2051);
console.log(
  `${product.product_code} ${product.name}: ${product.price} MZN, IVA ${product.tax_rate ?? '-'}%, stock ${product.stock}`,
);
