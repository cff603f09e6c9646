import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Só recibos de facturas da empresa; só leitura.
# [en] Only receipts of the company's invoices; read only.
page = api.payments.list(invoice_id=4120, sort="payment_date", order="desc")
for payment in page["data"]:
    invoice = payment["invoice"] or {}
    print(
        f"{payment['payment_code']} {payment['payment_date']} {payment['amount']} {payment['payment_method']}"
        f" -> {invoice.get('invoice_code')}"
    )
