# [pt] Só os campos enviados mudam; null apaga um campo opcional.
# [en] Only the fields sent change; null clears an optional field.
curl -sS -X PUT "$PARTNER_API_URL/customers/1042" \
  -H "Authorization: Bearer $PARTNER_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(openssl rand -hex 16)" \
  -d '{"phone":"+258 84 123 4567","address":"Av. Samora Machel 210, Xai-Xai"}'
