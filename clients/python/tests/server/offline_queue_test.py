"""The offline queue against the real server (run by test/clients/kit/offline-queues.test.ts, not by
the discovery of test_*.py, so that it runs once), through the recording proxy: order and $local ids,
lost answers and restarts, refusals, the 24 h look-up (the queue's clock moved on), the store's lock
and key, and a till process killed with SIGKILL at random points."""

import datetime
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from invoicing_partner_api import OfflineQueue, StoreKeyMismatchError, StoreLockedError

from . import harness

HOUR = 3600.0


class Clock:
    def __init__(self):
        self.offset = 0.0

    def __call__(self):
        return time.time() + self.offset


class OfflineQueueTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tenant = harness.tenant("Mercearia Sem Rede Py, Lda")
        cls.api = harness.client(cls.tenant["key"])
        cls.product = cls.api.products.create(
            {"name": "Pão Py", "type": "GOODS", "inventory": "NON_INVENTORY", "price": "150.00"}
        )["id"]
        cls.since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))

    def setUp(self):
        harness.reset("main")
        self.root = tempfile.mkdtemp(prefix="offline-queue-py-")
        self.path = os.path.join(self.root, "till")
        self.queues = []

    def tearDown(self):
        for queue in self.queues:
            queue.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def queue(self, path=None, **options):
        options.setdefault("retry_base_delay", 0.01)
        queue = OfflineQueue.open(
            path or self.path, api_key=options.pop("api_key", self.tenant["key"]),
            base_url=options.pop("base_url", harness.PROXY_URL), **options
        )
        self.queues.append(queue)
        return queue

    def sale(self, reference, customer, price="150.00"):
        return {
            "customer_id": customer,
            "invoice_date": "2026-11-27",
            "reference": reference,
            "items": [{"product_id": self.product, "quantity": 2, "price": price}],
        }

    def invoices_with(self, references):
        """The company's invoices by reference (every page since the class began)."""
        found = {}
        for invoice in self.api.invoices.list_all(updated_since=self.since):
            if invoice["reference"] in references:
                found.setdefault(invoice["reference"], []).append(invoice)
        return found

    def posts(self):
        return [r for r in harness.requests("main") if r["method"] == "POST"]

    def test_a_customer_and_a_sale_naming_it_by_local_are_sent_in_order_and_the_sale_points_at_it(self):
        queue = self.queue()
        customer = queue.enqueue("POST", "/customers", {"name": "Ana Macuácua Py"})
        sale = queue.enqueue("POST", "/invoices", self.sale("PY-TILL1-1", {"$local": customer}, "2500.55"))
        self.assertEqual(queue.status()["pending"], 2)
        self.assertEqual(queue.flush(), {"sent": 2, "found": 0, "failed": 0, "pending": 0, "stopped": "empty"})
        made, sold = queue.result(customer), queue.result(sale)
        self.assertEqual((made["state"], sold["state"]), ("done", "done"))
        posts = self.posts()
        self.assertEqual([p["url"].rsplit("/", 1)[1] for p in posts], ["customers", "invoices"])
        self.assertEqual(
            posts[1]["body"],
            '{"customer_id":%d,"invoice_date":"2026-11-27","reference":"PY-TILL1-1","items":[{"product_id":%d,"quantity":2,"price":2500.55}]}'
            % (made["id"], self.product),
        )
        self.assertEqual(self.api.invoices.get(sold["id"])["customer"]["id"], made["id"])
        self.assertEqual(queue.status()["oldest_pending_at"], None)

    def test_answers_lost_and_the_till_restarted_each_entry_is_created_once_with_one_key_and_the_same_bytes(self):
        harness.plan("main", [{"action": "lose-response", "method": "POST", "times": 2}])
        queue = self.queue(max_retries=0)
        customer = queue.enqueue("POST", "/customers", {"name": "Cliente Respostas Perdidas Py"})
        queue.enqueue("POST", "/invoices", self.sale("PY-PERDA-1", {"$local": customer}))
        self.assertEqual(queue.flush()["stopped"], "offline")
        queue.close()
        for _ in range(5):
            again = self.queue(max_retries=0)
            result = again.flush()
            again.close()
            if result["stopped"] == "empty":
                break
        self.assertEqual(result["stopped"], "empty")
        by_key = {}
        for post in self.posts():
            by_key.setdefault(post["headers"]["idempotency-key"], []).append(post["body"])
        self.assertEqual(len(by_key), 2)
        for bodies in by_key.values():
            self.assertEqual(len(set(bodies)), 1)
        self.assertEqual(len(self.invoices_with({"PY-PERDA-1"})["PY-PERDA-1"]), 1)
        found = self.api.customers.list(search="Cliente Respostas Perdidas Py")["data"]
        self.assertEqual(len(found), 1)

    def test_with_the_line_down_flush_stops_as_offline_and_keeps_the_entry(self):
        queue = self.queue(base_url="http://127.0.0.1:1/api/v1/partner", max_retries=1)
        local = queue.enqueue("POST", "/customers", {"name": "Sem Rede Py"})
        self.assertEqual(queue.flush()["stopped"], "offline")
        self.assertEqual(queue.result(local), {"state": "pending"})

    def test_refusals_go_to_the_failed_list_with_the_server_error_and_body_dependants_too_then_resend_and_discard(self):
        queue = self.queue()
        bad = queue.enqueue("POST", "/customers", {"name": "Email Mau Py", "email": "não-é-email"})
        dependant = queue.enqueue("POST", "/invoices", self.sale("PY-DEPENDE-1", {"$local": bad}))
        fine = queue.enqueue("POST", "/customers", {"name": "Cliente Bom Py"})
        self.assertEqual(queue.flush(), {"sent": 1, "found": 0, "failed": 2, "pending": 0, "stopped": "empty"})
        self.assertEqual(queue.result(fine)["state"], "done")
        failed = queue.failed()
        self.assertEqual([f["local_id"] for f in failed], [bad, dependant])
        self.assertEqual(failed[0]["body"], '{"name":"Email Mau Py","email":"não-é-email"}')
        self.assertEqual((failed[0]["error"]["status"], failed[0]["error"]["code"]), (422, "validation_failed"))
        self.assertIn("email", failed[0]["error"]["errors"])
        self.assertTrue(failed[0]["error"]["request_id"])
        self.assertEqual(failed[1]["error"]["code"], "dependency_failed")
        queue.resend(bad, {"name": "Email Mau Py", "email": "corrigido.py@exemplo.co.mz"})
        self.assertEqual(queue.status()["pending"], 2)
        self.assertEqual(queue.flush()["sent"], 2)
        invoice = self.invoices_with({"PY-DEPENDE-1"})["PY-DEPENDE-1"]
        self.assertEqual(invoice[0]["customer"]["id"], queue.result(bad)["id"])
        wrong = queue.enqueue("POST", "/invoices", self.sale("PY-ERRADO", queue.result(bad)["id"], "abc"))
        queue.flush()
        self.assertEqual(queue.result(wrong)["error"]["status"], 422)
        queue.discard(wrong)
        self.assertEqual(queue.result(wrong)["state"], "discarded")
        self.assertEqual(queue.failed(), [])

    def test_after_24_hours_a_sale_created_but_never_confirmed_is_found_by_reference_not_created_again(self):
        clock = Clock()
        harness.plan("main", [{"action": "lose-response", "method": "POST", "times": 1}])
        customer = self.api.customers.create({"name": "Dia Seguinte Py"})["id"]
        queue = self.queue(clock=clock, max_retries=0)
        local = queue.enqueue("POST", "/invoices", self.sale("PY-ONTEM-1", customer))
        self.assertEqual(queue.flush()["stopped"], "offline")
        clock.offset = 25 * HOUR
        self.assertEqual(queue.flush(), {"sent": 0, "found": 1, "failed": 0, "pending": 0, "stopped": "empty"})
        rows = self.invoices_with({"PY-ONTEM-1"})["PY-ONTEM-1"]
        self.assertEqual(len(rows), 1)
        self.assertEqual(queue.result(local), {"state": "done", "id": rows[0]["id"]})
        self.assertEqual(len(self.posts()), 1)

    def test_after_24_hours_a_sale_never_received_is_sent_with_a_new_key_and_created_once(self):
        clock = Clock()
        harness.plan("main", [{"action": "answer", "status": 502, "method": "POST", "times": 1}])
        customer = self.api.customers.create({"name": "Nunca Chegou Py"})["id"]
        queue = self.queue(clock=clock, max_retries=0)
        local = queue.enqueue("POST", "/invoices", self.sale("PY-NUNCA-1", customer))
        self.assertEqual(queue.flush()["stopped"], "busy")
        clock.offset = 25 * HOUR
        self.assertEqual(queue.flush()["sent"], 1)
        keys = [p["headers"]["idempotency-key"] for p in self.posts()]
        self.assertEqual(len(keys), 2)
        self.assertNotEqual(keys[0], keys[1])
        rows = self.invoices_with({"PY-NUNCA-1"})["PY-NUNCA-1"]
        self.assertEqual(queue.result(local), {"state": "done", "id": rows[0]["id"]})
        self.assertEqual(len(rows), 1)

    def test_one_store_per_till_and_key(self):
        queue = self.queue()
        queue.enqueue("POST", "/customers", {"name": "Dono da Fila Py"})
        with self.assertRaises(StoreLockedError):
            self.queue()
        queue.close()
        other = harness.tenant("Outra Caixa Py, Lda")
        with self.assertRaises(StoreKeyMismatchError):
            self.queue(api_key=other["key"])
        with open(os.path.join(self.path, "queue.sqlite3"), "rb") as store:
            self.assertNotIn(self.tenant["key"].encode(), store.read())
        with self.queue() as again:
            self.assertEqual(again.status()["pending"], 1)

    def test_status_estimates_when_the_queue_is_empty_from_the_rate_limit_headers(self):
        limited = harness.tenant("Caixa Lenta Py, Lda", target="limited")
        now = time.time()
        queue = self.queue(api_key=limited["key"], base_url=harness.LIMITED_URL, clock=lambda: now)
        queue.enqueue("POST", "/customers", {"name": "Primeiro Py"})
        self.assertEqual(queue.flush()["sent"], 1)
        for i in range(5):
            queue.enqueue("POST", "/customers", {"name": f"Espera Py {i}"})
        status = queue.status()
        # 2 writes a minute, 1 left: 5 pending take the reset (at most 60 s away) and one more window.
        wait = datetime.datetime.fromisoformat(status["estimated_empty_at"].replace("Z", "+00:00")).timestamp() - now
        self.assertGreater(wait, 59)
        self.assertLessEqual(wait, 121)

    def test_killed_with_sigkill_20_times_during_enqueue_and_flush_every_sale_exactly_once_in_order(self):
        harness.plan("main", [{"action": "lose-response", "method": "POST", "times": 15}])
        returned, kills, in_flush = set(), 0, 0
        env = dict(os.environ)
        run = 0
        while kills < 20:
            self.assertLess(run, 60)
            plan = {
                "path": self.path, "api_key": self.tenant["key"], "base_url": harness.PROXY_URL,
                "product_id": self.product, "run": f"py{run}", "rounds": 3, "sales_per_round": 4,
            }
            env["TILL_PLAN"] = json.dumps(plan)
            child = subprocess.Popen(
                [sys.executable, "-m", "tests.server.offline_till"], env=env, stdout=subprocess.PIPE, text=True
            )
            first = child.stdout.readline()
            if first.strip() == "open":
                time.sleep(random.random() * 0.015 if random.random() < 0.4 else random.random() * 0.4)
            alive = child.poll() is None
            child.send_signal(signal.SIGKILL)
            lines = [first.strip()] + child.stdout.read().splitlines()
            child.wait()
            child.stdout.close()
            for line in lines:
                parts = line.split(" ")
                if parts[0] in ("customer", "sale") and len(parts) > 1:
                    returned.add(parts[1])
            if alive:
                kills += 1
                in_flush += lines[-1].startswith("flushing")
            run += 1
        harness.reset("main")
        with self.queue() as queue:
            for _ in range(5):
                if queue.flush()["stopped"] == "empty":
                    break
            self.assertEqual((queue.status()["pending"], queue.status()["failed"]), (0, 0))
            rows = queue._db.execute("select id, path, body, waits_for from entries order by seq").fetchall()
            self.assertEqual(returned - {row[0] for row in rows}, set())
            sales = [row for row in rows if row[1] == "/invoices"]
            references = {json.loads(bytes(row[2]))["reference"]: row for row in sales}
            found = self.invoices_with(set(references))
            self.assertEqual({ref: len(found.get(ref, [])) for ref in references}, {ref: 1 for ref in references})
            previous = 0
            for row in sales:
                invoice = found[json.loads(bytes(row[2]))["reference"]][0]
                self.assertEqual(queue.result(row[0]), {"state": "done", "id": invoice["id"]})
                self.assertGreater(invoice["id"], previous)
                previous = invoice["id"]
                self.assertEqual(invoice["customer"]["id"], queue.result(_customer_of(rows, row))["id"])
        print(f"\noffline queue (Python) kills: {len(rows)} entries, {kills} kills ({in_flush} in flush), "
              f"{len(returned)} enqueues returned, 0 duplicates, 0 losses", file=sys.stderr)


def _customer_of(rows, sale_row):
    """The customer entry enqueued just before a sale (its $local was put in before the first send)."""
    index = [r[0] for r in rows].index(sale_row[0])
    return rows[index - 1][0]
