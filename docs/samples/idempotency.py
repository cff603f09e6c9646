import os

from invoicing_partner_api import PartnerApi, response_of

api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

# [pt] Uma chave por operação, guardada com ela: aqui, o id do registo no seu próprio sistema.
# [en] One key per operation, stored with it: here, the id of the record in your own system.
key = "crm-customer-7781"
body = {"name": "Padaria Costa do Sol", "type": "company"}
first = api.customers.create(body, idempotency_key=key)
# [pt] A mesma operação outra vez (por exemplo depois de um reinício): a resposta guardada, nada novo.
# [en] The same operation again (say after a restart): the stored answer, nothing new.
again = api.customers.create(body, idempotency_key=key)
print(f"{first['id']} {again['id']} replayed={str(response_of(again).replayed).lower()}")
