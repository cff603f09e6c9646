import os

from invoicing_partner_api import PartnerApi

# [pt] A chave e o endereço vêm do ambiente: nunca escreva a chave no código.
# [en] The key and the address come from the environment: never write the key in your code.
api = PartnerApi(api_key=os.environ["PARTNER_API_KEY"], base_url=os.environ["PARTNER_API_URL"])

me = api.ping()
print(f"{me['tenant_name']} ({me['mode']}): {', '.join(me['scopes'])}")
