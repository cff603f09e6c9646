import os
from decimal import Decimal

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] O PUT leva o corpo inteiro: name, type, inventory e price são obrigatórios.
# [en] PUT takes the whole body: name, type, inventory and price are required.
product = api.products.update(
    2051,
    {"name": "Cimento Portland 50 kg", "type": "GOODS", "inventory": "INVENTORY", "price": Decimal("675.00"), "sku": "CIM-50"},
)
print(product["product_code"], product["name"], product["price"], product["updated_at"])
