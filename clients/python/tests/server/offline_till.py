"""A till for the kill test (offline_queue_test.py): enqueues sales (a new customer and an invoice naming
it by $local) in rounds with a flush after each, saying on stdout each thing that returned."""

import json
import os
import sys

from invoicing_partner_api import OfflineQueue

plan = json.loads(os.environ["TILL_PLAN"])


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


with OfflineQueue.open(
    plan["path"], api_key=plan["api_key"], base_url=plan["base_url"], retry_base_delay=0.005, max_retries=2
) as queue:
    say("open")
    for round_ in range(plan["rounds"]):
        for i in range(plan["sales_per_round"]):
            name = f"{plan['run']}-{round_}-{i}"
            customer = queue.enqueue("POST", "/customers", {"name": f"Cliente {name}"})
            say(f"customer {customer} {name}")
            sale = queue.enqueue(
                "POST",
                "/invoices",
                {
                    "customer_id": {"$local": customer},
                    "invoice_date": "2026-11-27",
                    "reference": f"V-{name}",
                    "items": [{"product_id": plan["product_id"], "quantity": 1 + i, "price": "99.95"}],
                },
            )
            say(f"sale {sale} V-{name}")
        say("flushing")
        say("flushed " + json.dumps(queue.flush()))
say("closed")
