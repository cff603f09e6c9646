import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Dinheiro entra como texto decimal e viaja como número JSON exacto, dígito a dígito.
// [en] Money goes in as decimal text and travels as an exact JSON number, digit for digit.
const product = await api.products.create({
  name: 'Instalação eléctrica',
  type: 'SERVICES',
  inventory: 'NON_INVENTORY',
  price: '1250.50',
  sku: 'SRV-ELEC',
});
console.log(`${product.id} ${product.product_code} ${product.name} ${product.price}`);
