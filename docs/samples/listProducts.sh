curl -sS "$PARTNER_API_URL/products?is_for_sale=true&sort=name&per_page=50" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
