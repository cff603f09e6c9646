# [pt] Decida pelo error.code; message e hint são para pessoas. Indique o request_id ao suporte.
# [en] Branch on error.code; message and hint are for people. Quote the request_id to support.
curl -sS -w '\nHTTP %{http_code}\n' -X POST "$PARTNER_API_URL/invoices" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(openssl rand -hex 16)" \
  -d '{"customer_id":1042,"invoice_date":"2026-11-22","items":[{"product_id":2051,"quantity":1,"price":"12,50"}]}'
