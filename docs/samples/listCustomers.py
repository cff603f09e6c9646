import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Uma página; list_all() percorre todas.
# [en] One page; list_all() walks them all.
page = api.customers.list(search="xai-xai", sort="name", per_page=25)
for customer in page["data"]:
    print(customer["id"], customer["name"], customer["nuit"] or "")
pagination = page["pagination"]
print(f"{pagination['total']} ({pagination['current_page']}/{pagination['last_page']})")
