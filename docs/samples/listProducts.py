import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Preços são texto decimal ("650.00"): use Decimal, nunca float.
# [en] Prices are decimal text ("650.00"): use Decimal, never float.
page = api.products.list(is_for_sale=True, sort="name", per_page=50)
for product in page["data"]:
    stock = "-" if product["stock"] is None else product["stock"]
    print(f"{product['product_code']} {product['name']} {product['price'] or '-'} (stock {stock})")
