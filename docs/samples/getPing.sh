# [pt] A chave e o endereço vêm do ambiente: nunca escreva a chave no código.
# [en] The key and the address come from the environment: never write the key in your code.
# PARTNER_API_URL=https://invoicing.example.co.mz/api/v1/partner PARTNER_API_KEY=svc_sk_live_...
curl -sS "$PARTNER_API_URL/ping" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
