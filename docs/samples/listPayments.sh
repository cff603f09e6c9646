curl -sS "$PARTNER_API_URL/payments?invoice_id=4120&sort=payment_date&order=desc" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
