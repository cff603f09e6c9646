curl -sS "$PARTNER_API_URL/products/2051" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
