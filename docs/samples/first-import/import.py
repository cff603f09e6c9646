# [pt] Primeira importação: clientes e produtos de um ficheiro JSON, com várias chaves de API da
# [pt] mesma empresa (pedidas ao operador), um cliente oficial por chave, cada um ao seu ritmo.
# [en] First import: customers and products from a JSON file, with several API keys of the same
# [en] company (asked of the operator), one official client per key, each pacing itself.
import json
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from invoicing_partner_api import PartnerApi, PartnerApiError

keys = [key for key in os.environ.get("PARTNER_API_KEYS", "").split(",") if key]
base_url = os.environ.get("PARTNER_API_URL", "https://invoicing.example.co.mz/api/v1/partner")
with open(os.environ.get("IMPORT_FILE", "import.json"), encoding="utf-8") as handle:
    data = json.load(handle)  # [pt] preços como texto decimal ("150.50") / [en] prices as decimal text ("150.50")
rows = [("customer", row) for row in data["customers"]] + [("product", row) for row in data["products"]]

lock = threading.Lock()
pauses = 0
created = {"customer": 0, "product": 0}
refused = []
queue = iter(rows)


def paced(_info):
    global pauses
    with lock:
        pauses += 1


clients = [PartnerApi(api_key=key, base_url=base_url, on_pace=paced) for key in keys]


# [pt] Um trabalhador (thread) por chave; todos tiram o registo seguinte da mesma fila. A
# [pt] Idempotency-Key vem da referência: repetir a importação (dentro de 24 horas) nunca cria duas vezes.
# [en] One worker (thread) per key; all take the next record from the same queue. The
# [en] Idempotency-Key comes from the reference: running the import again (within 24 hours) never creates twice.
def worker(api):
    while True:
        with lock:
            kind, row = next(queue, (None, None))
        if kind is None:
            return
        body = {name: value for name, value in row.items() if name != "ref"}
        idempotency_key = f"import-{kind}-{row['ref']}"
        try:
            collection = api.customers if kind == "customer" else api.products
            collection.create(body, idempotency_key=idempotency_key)
            with lock:
                created[kind] += 1
        except PartnerApiError as error:
            # [pt] Um registo inválido fica para corrigir; o resto continua. / [en] An invalid record is kept to fix; the rest goes on.
            if error.code != "validation_failed":
                raise
            with lock:
                refused.append(f"{row['ref']}: {json.dumps(error.errors, separators=(',', ':'), ensure_ascii=False)}")


started = time.monotonic()
with ThreadPoolExecutor(max_workers=len(clients)) as pool:
    list(pool.map(worker, clients))  # [pt] uma falha de um trabalhador pára tudo / [en] a worker's failure stops everything


# [pt] O ritmo que os limites permitem, com as quotas que a API anunciou (RateLimit-Policy).
# [en] The pace the limits allow, from the quotas the API announced (RateLimit-Policy).
def quota(name):
    return next((limit.quota for limit in clients[0].rate_limits() if limit.name == name), 0) or 0


per_minute = min(len(keys) * quota("key-writes-minute"), quota("company-minute"))
seconds = round(time.monotonic() - started)
print(
    f"imported {created['customer'] + created['product']} of {len(rows)} (customers {created['customer']}, "
    f"products {created['product']}), {len(refused)} refused, with {len(keys)} keys in {seconds} s, {pauses} pauses"
)
print(
    f"pace: {per_minute} writes a minute ({len(keys)} keys x {quota('key-writes-minute')}, "
    f"company {quota('company-minute')}): 2000 records take about {math.ceil(2000 / per_minute)} min"
)
for line in refused:
    print(f"refused {line}")
