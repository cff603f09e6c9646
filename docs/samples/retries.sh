# [pt] curl repete em falhas de rede, 429 e 5xx, esperando o Retry-After; a chave e o corpo
# [pt] são os mesmos em cada tentativa, por isso uma resposta perdida não cria duas vezes.
# [en] curl retries on network failures, 429 and 5xx, waiting for Retry-After; the key and the
# [en] body are the same on every attempt, so a lost answer never creates twice.
curl -sS --retry 4 --retry-all-errors -X POST "$PARTNER_API_URL/customers" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(openssl rand -hex 16)" \
  -d '{"name":"Oficina Matola Rio","type":"company"}'
