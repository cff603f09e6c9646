import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] list_all() pede 100 de cada vez e pára quando current_page iguala last_page.
# [en] list_all() asks for 100 at a time and stops when current_page equals last_page.
for customer in api.customers.list_all(sort="created_at", order="asc"):
    print(customer["id"], customer["name"])
