curl -sS "$PARTNER_API_URL/invoices?customer_id=1042&status=partially_paid&sort=due_date&order=asc" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
