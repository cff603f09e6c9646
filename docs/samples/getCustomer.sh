curl -sS "$PARTNER_API_URL/customers/1042" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
