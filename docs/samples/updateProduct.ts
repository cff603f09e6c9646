import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] O PUT leva o corpo inteiro: name, type, inventory e price são obrigatórios.
// [en] PUT takes the whole body: name, type, inventory and price are required.
const product = await api.products.update(2051, {
  name: 'Cimento Portland 50 kg',
  type: 'GOODS',
  inventory: 'INVENTORY',
  price: '675.00',
  sku: 'CIM-50',
});
console.log(`${product.product_code} ${product.name} ${product.price} ${product.updated_at}`);
