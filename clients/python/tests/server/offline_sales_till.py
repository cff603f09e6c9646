"""A till that follows the pattern of the offline-queue page (docs/site/*/fila-offline.md,
offline-queue.md), for offline_queue_test.py: it writes each sale in its own record first, enqueues it
with the sale's number as ``ref``, then writes down that it did. On start it enqueues again, with the
same number and body, every sale of its record not written down as enqueued. TILL_PLAN (JSON): path,
base_url, api_key, product_id, customer_id, record, sales, prefix, hang_at ({sale, after: "enqueue" or
"flush"}: stops there until killed)."""

import json
import os
import sys
import time

from invoicing_partner_api import OfflineQueue

plan = json.loads(os.environ["TILL_PLAN"])


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def write(line: dict) -> None:
    """The till's own record: one JSON line per change, on disk before the next step."""
    with open(plan["record"], "a", encoding="utf-8") as record:
        record.write(json.dumps(line) + "\n")
        record.flush()
        os.fsync(record.fileno())


def number(sale: int) -> str:
    return f"{plan['prefix']}-{sale:06d}"


def hang_if(sale: int, after: str) -> None:
    hang = plan.get("hang_at")
    if hang and hang["sale"] == sale and hang["after"] == after:
        while True:
            time.sleep(60)


lines = []
if os.path.exists(plan["record"]):
    with open(plan["record"], encoding="utf-8") as record:
        lines = [json.loads(line) for line in record if line.strip()]

with OfflineQueue.open(
    plan["path"], api_key=plan["api_key"], base_url=plan["base_url"], retry_base_delay=0.005, max_retries=2
) as queue:
    say("open")
    # After a crash: every sale written but not written down as enqueued goes again, without fear.
    enqueued = {line["sale"] for line in lines if line["state"] == "enqueued"}
    last = 0
    for line in lines:
        last = max(last, line["sale"])
        if line["state"] != "written" or line["sale"] in enqueued:
            continue
        local = queue.enqueue("POST", "/invoices", line["body"], ref=number(line["sale"]))
        write({"sale": line["sale"], "state": "enqueued", "local": local})
        say(f"again {line['sale']} {local}")
    for sale in range(last + 1, plan["sales"] + 1):
        body = {
            "customer_id": plan["customer_id"],
            "invoice_date": "2026-11-27",
            "reference": number(sale),
            "items": [{"product_id": plan["product_id"], "quantity": sale, "price": "99.95"}],
        }
        write({"sale": sale, "state": "written", "body": body})
        local = queue.enqueue("POST", "/invoices", body, ref=number(sale))
        say(f"enqueued {sale} {local}")
        hang_if(sale, "enqueue")
        say(f"flushed {sale} " + json.dumps(queue.flush()))
        hang_if(sale, "flush")
        write({"sale": sale, "state": "enqueued", "local": local})
    say("flushed end " + json.dumps(queue.flush()))
say("closed")
