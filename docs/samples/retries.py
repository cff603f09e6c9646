import os

from invoicing_partner_api import PartnerApi, response_of

# [pt] As repetições já vêm feitas: 429, 409 em curso, 5xx e falhas de rede, no máximo 5 tentativas,
# [pt] esperando o Retry-After ou um recuo exponencial com variação aleatória.
# [en] Retries come built in: 429, 409 in flight, 5xx and network failures, at most 5 attempts,
# [en] waiting for Retry-After or an exponential backoff with jitter.
api = PartnerApi(
    api_key=os.environ["PARTNER_API_KEY"],
    base_url=os.environ["PARTNER_API_URL"],
    max_retries=4,
    on_retry=lambda retry: print(
        f"retry after attempt {retry.attempt} of {retry.method} {retry.path} in {retry.delay:.1f} s: {retry.error}"
    ),
)

# [pt] Cada tentativa reenvia os mesmos bytes com a mesma Idempotency-Key: criado uma só vez.
# [en] Every attempt resends the same bytes with the same Idempotency-Key: created once.
customer = api.customers.create({"name": "Oficina Matola Rio", "type": "company"})
print(f"{customer['id']} {customer['name']} replayed={str(response_of(customer).replayed).lower()}")
