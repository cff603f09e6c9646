import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Nas listas as facturas vêm sem linhas (items); a leitura individual traz-as.
# [en] Lists carry invoices without their lines (items); the single read has them.
page = api.invoices.list(customer_id=1042, status="partially_paid", sort="due_date", order="asc")
for invoice in page["data"]:
    print(
        f"{invoice['invoice_code']} {invoice['status']} {invoice['grand_total']} {invoice['currency']},"
        f" due {invoice['due_date']}, open {invoice['remaining_amount']}"
    )
