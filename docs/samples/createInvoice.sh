# [pt] Sempre um rascunho: quem o emite é uma pessoa, na aplicação. O desconto é uma percentagem.
# [en] Always a draft: a person issues it, in the application. The discount is a percentage.
# [pt] A sua encomenda como chave: se o seu programa reiniciar e enviar de novo, não se duplica.
# [en] Your order as the key: if your program restarts and sends it again, nothing is duplicated.
curl -sS -X POST "$PARTNER_API_URL/invoices" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: order-2026-0042" \
  -d '{"customer_id":1042,"invoice_date":"2026-11-22","due_date":"2026-12-22","reference":"ENC-2026-0042","items":[{"product_id":2051,"quantity":10,"price":650.00,"discount":5}]}'
