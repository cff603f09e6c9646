import { PartnerApi } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

// [pt] Sempre um rascunho: quem o emite é uma pessoa, na aplicação. O desconto é uma percentagem.
// [en] Always a draft: a person issues it, in the application. The discount is a percentage.
// [pt] A sua encomenda como chave: se o seu programa reiniciar e enviar de novo, não se duplica.
// [en] Your order as the key: if your program restarts and sends it again, nothing is duplicated.
const invoice = await api.invoices.create(
  {
    customer_id: 1042,
    invoice_date: '2026-11-22',
    due_date: '2026-12-22',
    reference: 'ENC-2026-0042',
    items: [{ product_id: 2051, quantity: 10, price: '650.00', discount: 5 }],
  },
  { idempotencyKey: 'order-2026-0042' },
);
console.log(
  `${invoice.invoice_code} ${invoice.status}: ${invoice.subtotal} - ${invoice.discount} + ${invoice.tax} = ${invoice.grand_total}`,
);
