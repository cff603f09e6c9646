curl -sS "$PARTNER_API_URL/customers?search=xai-xai&sort=name&per_page=25" \
  -H "Authorization: Bearer $PARTNER_API_KEY"
