# [pt] Uma Idempotency-Key nova por operação; para repetir, a mesma chave e o mesmo corpo.
# [en] A new Idempotency-Key per operation; to retry, the same key and the same body.
curl -sS -X POST "$PARTNER_API_URL/customers" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(openssl rand -hex 16)" \
  -d '{"name":"Talho Polana, Lda","type":"company","nuit":"400339910","email":"compras@talhopolana.co.mz","phone":"+258 84 555 0101"}'
