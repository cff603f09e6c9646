# [pt] Página a página (100, o máximo) até current_page igualar last_page. Precisa de jq.
# [en] Page by page (100, the most) until current_page equals last_page. Needs jq.
page=1
while :; do
  body=$(curl -sS "$PARTNER_API_URL/customers?sort=created_at&order=asc&per_page=100&page=$page" \
    -H "Authorization: Bearer $PARTNER_API_KEY")
  printf '%s\n' "$body" | jq -r '.data[] | "\(.id) \(.name)"'
  [ "$(printf '%s\n' "$body" | jq '.pagination.current_page >= .pagination.last_page')" = true ] && break
  page=$((page + 1))
done
