import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] since: a sua marca da última vez menos 5 minutos (na primeira vez, uma data antiga).
# [en] since: your mark from last time minus 5 minutes (the first time, an old date).
since, page = "2000-01-01", 1
while True:
    data = api.customers.list(updated_since=since, sort="updated_at", order="asc", per_page=100, page=page)["data"]
    # [pt] Guarde cada registo pelo id (upsert): vê-lo duas vezes não faz mal.
    # [en] Store each record by id (upsert): seeing one twice does no harm.
    for customer in data:
        print(customer["id"], customer["updated_at"])
    if len(data) < 100:
        break
    last = data[-1]["updated_at"]
    # [pt] Avance since e volte à página 1; só uma página toda no mesmo instante pede a página seguinte.
    # [en] Move since forward and go back to page 1; only a page all at one instant asks for the next page.
    since, page = (since, page + 1) if last == since else (last, 1)
