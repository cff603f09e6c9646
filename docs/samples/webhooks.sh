# [pt] Verificar uma entrega à mão, para ver como a assinatura funciona: o corpo tal como chegou em
# [pt] body.json e os três cabeçalhos em variáveis. Em produção use a ajuda de um dos clientes, que
# [pt] compara em tempo constante.
# [en] Checking one delivery by hand, to see how the signature works: the raw body in body.json and
# [en] the three headers in variables. In production use a client's helper, which compares in
# [en] constant time.
# WEBHOOK_ID=evt_... WEBHOOK_TIMESTAMP=1795000000 WEBHOOK_SIGNATURE="v1,..." INVOICING_WEBHOOK_SECRET=whsec_...
key=$(printf '%s' "${INVOICING_WEBHOOK_SECRET#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
age=$(( $(date +%s) - WEBHOOK_TIMESTAMP ))
if [ "$age" -gt 300 ] || [ "$age" -lt -300 ]; then echo "refused: timestamp"; exit 1; fi
expected="v1,$( { printf '%s.%s.' "$WEBHOOK_ID" "$WEBHOOK_TIMESTAMP"; cat body.json; } |
  openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64 )"
# [pt] Durante uma rotação do segredo chegam duas assinaturas, separadas por um espaço: basta uma.
# [en] During a secret rotation two signatures arrive, separated by a space: one is enough.
for signature in $WEBHOOK_SIGNATURE; do
  if [ "$signature" = "$expected" ]; then echo "verified: $WEBHOOK_ID"; exit 0; fi
done
echo "refused: signature"; exit 1
