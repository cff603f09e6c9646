# [pt] O PUT leva o corpo inteiro: name, type, inventory e price são obrigatórios.
# [en] PUT takes the whole body: name, type, inventory and price are required.
curl -sS -X PUT "$PARTNER_API_URL/products/2051" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(openssl rand -hex 16)" \
  -d '{"name":"Cimento Portland 50 kg","type":"GOODS","inventory":"INVENTORY","price":675.00,"sku":"CIM-50"}'
