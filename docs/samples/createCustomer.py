import os

from invoicing_partner_api import PartnerApi

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] O cliente gera a Idempotency-Key e repete-a, com os mesmos bytes, em cada nova tentativa.
# [en] The client makes the Idempotency-Key and resends it, with the same bytes, on every retry.
customer = api.customers.create(
    {
        "name": "Talho Polana, Lda",
        "type": "company",
        "nuit": "400339910",
        "email": "compras@talhopolana.co.mz",
        "phone": "+258 84 555 0101",
    }
)
print(customer["id"], customer["name"], customer["created_at"])
