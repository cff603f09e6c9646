# [pt] No pedido, o preço é um número JSON com até 2 casas decimais ("12" em texto é um 422).
# [en] In a request the price is a JSON number with at most 2 decimals ("12" as text is a 422).
curl -sS -X POST "$PARTNER_API_URL/products" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(openssl rand -hex 16)" \
  -d '{"name":"Instalação eléctrica","type":"SERVICES","inventory":"NON_INVENTORY","price":1250.50,"sku":"SRV-ELEC"}'
