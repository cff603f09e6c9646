curl -sS "$PARTNER_API_URL/payments/2207" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
