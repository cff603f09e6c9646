import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

customer = api.customers.get(1042)
print(f"{customer['name']} | NUIT {customer['nuit']} | {customer['email']} | {customer['updated_at']}")
