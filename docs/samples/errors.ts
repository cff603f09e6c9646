import { PartnerApi, PartnerApiError } from '@invoicing/partner-api';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '',
  baseUrl: process.env.PARTNER_API_URL ?? 'https://invoicing.example.co.mz/api/v1/partner',
});

try {
  // [pt] "12,50": o separador decimal é o ponto, por isso a API responde 422 validation_failed.
  // [en] "12,50": the decimal separator is the point, so the API answers 422 validation_failed.
  await api.invoices.create({
    customer_id: 1042,
    invoice_date: '2026-11-22',
    items: [{ product_id: 2051, quantity: 1, price: '12,50' }],
  });
} catch (error) {
  // [pt] Sem resposta nenhuma (rede, tempo esgotado): PartnerApiNetworkError.
  // [en] No answer at all (network, timeout): PartnerApiNetworkError.
  if (!(error instanceof PartnerApiError)) throw error;
  // [pt] Decida pelo code; message e hint são para pessoas. Indique o requestId ao suporte.
  // [en] Branch on code; message and hint are for people. Quote the requestId to support.
  console.log(`${error.status} ${error.code} (request ${error.requestId})`);
  if (error.code === 'validation_failed') {
    for (const [field, messages] of Object.entries(error.errors ?? {}))
      console.log(`  ${field}: ${messages.join('; ')}`);
  }
}
