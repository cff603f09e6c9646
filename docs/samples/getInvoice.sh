curl -sS "$PARTNER_API_URL/invoices/4120" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
