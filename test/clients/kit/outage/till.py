"""A till of the outage scenario (offline-outage.test.ts), Python: the same plan as till.ts."""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../clients/python"))

from invoicing_partner_api import OfflineQueue  # noqa: E402

plan = json.loads(os.environ["TILL_PLAN"])
started = time.time()


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


with OfflineQueue.open(
    plan["path"],
    api_key=plan["apiKey"],
    base_url=plan["baseUrl"],
    clock=lambda: plan["clock"] / 1000 + (time.time() - started),
    retry_base_delay=0.02,
    max_retries=plan["maxRetries"],
    timeout=10.0,
) as queue:
    say("open")
    if plan["mode"] == "enqueue":
        for i in range(plan["from"], plan["from"] + plan["count"]):
            customer = plan["walkInId"]
            if i % plan["customerEvery"] == 0:
                local = queue.enqueue(
                    "POST",
                    "/customers",
                    {"name": f"Cliente {plan['lang']}-{i}-r{plan['run']}", "email": f"c-{plan['lang']}-{i}-r{plan['run']}@exemplo.co.mz"},
                )
                say(f"customer {local}")
                customer = {"$local": local}
            sale = queue.enqueue(
                "POST",
                "/invoices",
                {
                    "customer_id": customer,
                    "invoice_date": "2026-11-20",
                    "reference": f"{plan['lang']}-{i}-r{plan['run']}",
                    "items": [{"product_id": plan["productId"], "quantity": 1 + i % 3, "price": "abc" if i % 250 == 249 else "99.95"}],
                },
            )
            say(f"sale {sale} {i}")
    while True:
        result = queue.flush()
        say("flushed " + json.dumps(result))
        if plan["mode"] == "enqueue" or result["stopped"] != "busy":
            break
    say("status " + json.dumps(queue.status()))
