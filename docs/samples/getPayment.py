import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

payment = api.payments.get(2207)
print(f"{payment['payment_code']}: {payment['amount']} on {payment['payment_date']} for {payment['invoice']['invoice_code']}")
