import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Só os campos enviados mudam; None (null) apaga um campo opcional.
# [en] Only the fields sent change; None (null) clears an optional field.
customer = api.customers.update(1042, {"phone": "+258 84 123 4567", "address": "Av. Samora Machel 210, Xai-Xai"})
print(f"{customer['name']} | {customer['phone']} | {customer['address']}")
