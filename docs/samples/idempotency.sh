# [pt] Uma chave por operação, guardada com ela (aqui, o id do registo no seu próprio sistema), e o
# [pt] corpo guardado tal como foi enviado: repetir é enviar os mesmos bytes com a mesma chave.
# [en] One key per operation, stored with it (here, the id of the record in your own system), and the
# [en] body stored as it was sent: a retry sends the same bytes with the same key.
key="crm-customer-7781"
body='{"name":"Padaria Costa do Sol","type":"company"}'
for attempt in 1 2; do
  curl -sS -D - -X POST "$PARTNER_API_URL/customers" \
    -H "Authorization: Bearer $PARTNER_API_KEY" \
    -H "Content-Type: application/json" \
    -H "Idempotency-Key: $key" \
    -d "$body"
  echo
done
# [pt] A segunda resposta é a primeira, guardada: o mesmo 201, o mesmo id, e Idempotency-Replay: true.
# [en] The second answer is the first one, stored: the same 201, the same id, and Idempotency-Replay: true.
