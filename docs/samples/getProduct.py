import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

product = api.products.get(2051)
tax = "-" if product["tax_rate"] is None else product["tax_rate"]
print(f"{product['product_code']} {product['name']}: {product['price']} MZN, IVA {tax}%, stock {product['stock']}")
