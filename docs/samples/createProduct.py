import os
from decimal import Decimal

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Dinheiro entra como Decimal (ou texto decimal) e viaja como número JSON exacto; um float é recusado.
# [en] Money goes in as Decimal (or decimal text) and travels as an exact JSON number; a float is refused.
product = api.products.create(
    {
        "name": "Instalação eléctrica",
        "type": "SERVICES",
        "inventory": "NON_INVENTORY",
        "price": Decimal("1250.50"),
        "sku": "SRV-ELEC",
    }
)
print(product["id"], product["product_code"], product["name"], product["price"])
