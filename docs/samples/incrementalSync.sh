# [pt] since: a sua marca da última vez menos 5 minutos (na primeira vez, uma data antiga). Precisa de jq.
# [en] since: your mark from last time minus 5 minutes (the first time, an old date). Needs jq.
since="2000-01-01"
page=1
while :; do
  body=$(curl -sS -G "$PARTNER_API_URL/customers" \
    --data-urlencode "updated_since=$since" \
    -d sort=updated_at -d order=asc -d per_page=100 -d page=$page \
    -H "Authorization: Bearer $PARTNER_API_KEY")
  # [pt] Guarde cada registo pelo id (upsert): vê-lo duas vezes não faz mal.
  # [en] Store each record by id (upsert): seeing one twice does no harm.
  printf '%s\n' "$body" | jq -r '.data[] | "\(.id) \(.updated_at)"'
  [ "$(printf '%s\n' "$body" | jq '.data | length')" -lt 100 ] && break
  last=$(printf '%s\n' "$body" | jq -r '.data[-1].updated_at')
  # [pt] Avance since e volte à página 1; só uma página toda no mesmo instante pede a página seguinte.
  # [en] Move since forward and go back to page 1; only a page all at one instant asks for the next page.
  if [ "$last" = "$since" ]; then page=$((page + 1)); else since=$last; page=1; fi
done
