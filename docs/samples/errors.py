import os

from invoicing_partner_api import PartnerApi, PartnerApiError

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

try:
    # [pt] "12,50": o separador decimal é o ponto, por isso a API responde 422 validation_failed.
    # [en] "12,50": the decimal separator is the point, so the API answers 422 validation_failed.
    api.invoices.create(
        {
            "customer_id": 1042,
            "invoice_date": "2026-11-22",
            "items": [{"product_id": 2051, "quantity": 1, "price": "12,50"}],
        }
    )
except PartnerApiError as error:
    # [pt] Decida pelo code; message e hint são para pessoas. Indique o request_id ao suporte.
    # [en] Branch on code; message and hint are for people. Quote the request_id to support.
    print(f"{error.status} {error.code} (request {error.request_id})")
    if error.code == "validation_failed":
        for field, messages in (error.errors or {}).items():
            print(f"  {field}: {'; '.join(messages)}")
