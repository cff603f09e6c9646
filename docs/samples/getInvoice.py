import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

invoice = api.invoices.get(4120)
print(f"{invoice['invoice_code']} {invoice['status']}: {invoice['grand_total']} {invoice['currency']}, paid {invoice['paid_amount']}")
for line in invoice["items"]:
    print(f"  {line['quantity']} x {line['name']} @ {line['price']} = {line['total']}")
