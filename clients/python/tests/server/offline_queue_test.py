"""The offline queue against the real server (run by test/clients/kit/offline-queues.test.ts, not by
the discovery of test_*.py, so that it runs once), through the recording proxy: order and $local ids,
lost answers and restarts, refusals, the 24 h look-up (the queue's clock moved on), the store's lock
and key, and a till process killed with SIGKILL at random points."""

import datetime
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
import unittest

from invoicing_partner_api import OfflineQueue, RefConflictError, StoreKeyMismatchError, StoreLockedError

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
        # Issue 39 goal 6: at least one answer lost after the server committed it (upstream 201),
        # kills both in enqueue and in flush, and no server row the store does not know.
        harness.plan("main", [{"action": "lose-response", "method": "POST", "times": 15}])

        def lost_after_commit():
            return sum(
                1 for r in harness.requests("main")
                if r["action"] == "lose-response" and r["upstream_status"] == 201
            )

        returned, kills, in_flush, in_enqueue, lost = set(), 0, 0, 0, 0
        env = dict(os.environ)
        run = 0
        while kills < 20 or in_flush == 0 or in_enqueue == 0 or lost == 0:
            self.assertLess(run, 80, f"kills {kills}, in flush {in_flush}, in enqueue {in_enqueue}, lost {lost}")
            plan = {
                "path": self.path, "api_key": self.tenant["key"], "base_url": harness.PROXY_URL,
                "product_id": self.product, "run": f"py{run}", "rounds": 3, "sales_per_round": 4,
            }
            env["TILL_PLAN"] = json.dumps(plan)
            child = subprocess.Popen(
                [sys.executable, "-m", "tests.server.offline_till"], env=env, stdout=subprocess.PIPE, text=True
            )
            read = [child.stdout.readline().strip()]
            if read[0] == "open":
                if run % 3 == 0:
                    # Every third run dies while it enqueues: just after a sale it said had returned.
                    while read[-1] and not read[-1].startswith("sale "):
                        read.append(child.stdout.readline().strip())
                else:
                    time.sleep(random.random() * 0.015 if random.random() < 0.4 else random.random() * 0.4)
            alive = child.poll() is None
            child.send_signal(signal.SIGKILL)
            lines = [line for line in read if line] + child.stdout.read().splitlines()
            child.wait()
            child.stdout.close()
            for line in lines:
                parts = line.split(" ")
                if parts[0] in ("customer", "sale") and len(parts) > 1:
                    returned.add(parts[1])
            if alive:
                kills += 1
                last = lines[-1].split(" ")[0] if lines else "start"
                in_flush += last == "flushing"
                in_enqueue += last in ("open", "customer", "sale")
            lost = lost_after_commit()
            run += 1
        harness.reset("main")
        with self.queue() as queue:
            for _ in range(5):
                if queue.flush()["stopped"] == "empty":
                    break
            self.assertEqual((queue.status()["pending"], queue.status()["failed"]), (0, 0))
            # The store itself (as the PHP test reads it), beside the queue that holds it.
            store = sqlite3.connect(os.path.join(self.path, "queue.sqlite3"))
            rows = store.execute("select id, path, body, waits_for from entries order by seq").fetchall()
            store.close()
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
            # Nothing on the server that the store does not hold: no other sale of these runs, and as
            # many of their customers as customer entries.
            made = re.compile(r"(V-)?py[0-9]+-")
            unknown = [
                invoice["reference"] for invoice in self.api.invoices.list_all(updated_since=self.since)
                if made.match(invoice["reference"] or "") and invoice["reference"] not in references
            ]
            self.assertEqual(unknown, [])
            customers = [
                c for c in self.api.customers.list_all(updated_since=self.since)
                if re.match(r"Cliente py[0-9]+-", c["name"])
            ]
            self.assertEqual(len(customers), len(rows) - len(sales))
        print(f"\noffline queue (Python) kills: {len(rows)} entries, {kills} kills ({in_flush} in flush, "
              f"{in_enqueue} in enqueue), {lost} answers lost after the server's 201, "
              f"{len(returned)} enqueues returned, 0 duplicates, 0 losses", file=sys.stderr)

    def test_the_tills_own_reference_same_ref_same_body_is_the_entry_held_another_body_refused_by_ref_after_restart(self):
        """Issue 39 goal 1: ref= on enqueue, by_ref."""
        customer = self.api.customers.create({"name": "Cliente da Caixa Dois Py"})["id"]
        queue = self.queue()
        body = self.sale("PY-CAIXA2-000007", customer)
        first = queue.enqueue("POST", "/invoices", body, ref="PY-CAIXA2-000007")
        self.assertEqual(queue.enqueue("POST", "/invoices", dict(body), ref="PY-CAIXA2-000007"), first)
        with self.assertRaises(RefConflictError) as refused:
            queue.enqueue("POST", "/invoices", self.sale("PY-CAIXA2-000007", customer, "151.00"), ref="PY-CAIXA2-000007")
        self.assertIn('"PY-CAIXA2-000007"', str(refused.exception))
        self.assertEqual((refused.exception.ref, refused.exception.local_id), ("PY-CAIXA2-000007", first))
        with self.assertRaises(RefConflictError):
            queue.enqueue("POST", "/customers", {"name": "X"}, ref="PY-CAIXA2-000007")
        plain = {"name": "Sem Referência Py"}
        self.assertNotEqual(queue.enqueue("POST", "/customers", plain), queue.enqueue("POST", "/customers", plain))
        bare = {k: v for k, v in body.items() if k != "reference"}
        bare_id = queue.enqueue("POST", "/invoices", bare, ref="PY-CAIXA2-000008")
        self.assertEqual(queue.enqueue("POST", "/invoices", bare, ref="PY-CAIXA2-000008"), bare_id)
        self.assertEqual(queue.by_ref("PY-CAIXA2-000007"), {"local_id": first, "state": "pending"})
        self.assertIsNone(queue.by_ref("PY-CAIXA2-000099"))
        with self.assertRaises(TypeError):
            queue.enqueue("POST", "/customers", plain, ref="")
        self.assertEqual(queue.status()["pending"], 4)
        queue.close()
        again = self.queue()
        self.assertEqual(again.by_ref("PY-CAIXA2-000007"), {"local_id": first, "state": "pending"})
        self.assertEqual(again.enqueue("POST", "/invoices", body, ref="PY-CAIXA2-000007"), first)
        self.assertEqual(again.flush()["sent"], 4)
        rows = self.invoices_with({"PY-CAIXA2-000007"})["PY-CAIXA2-000007"]
        self.assertEqual(len(rows), 1)
        self.assertEqual(again.by_ref("PY-CAIXA2-000007"), {"local_id": first, "state": "done", "id": rows[0]["id"]})
        self.assertEqual(again.enqueue("POST", "/invoices", body, ref="PY-CAIXA2-000007"), first)
        self.assertEqual(again.flush()["sent"], 0)

    def test_a_till_killed_between_the_queues_write_and_its_own_enqueues_again_with_its_ref_and_never_sells_twice(self):
        """Issue 39 goal 1: killed after sale 7's enqueue, and after its flush, before the till wrote it down."""
        customer = self.api.customers.create({"name": "Consumidor Final Py"})["id"]
        for after in ("enqueue", "flush"):
            root = tempfile.mkdtemp(prefix="offline-sales-py-")
            try:
                prefix = f"PYCAIXA2{after[0].upper()}"
                plan = {
                    "path": os.path.join(root, "till"), "record": os.path.join(root, "vendas.jsonl"),
                    "base_url": harness.PROXY_URL, "api_key": self.tenant["key"], "product_id": self.product,
                    "customer_id": customer, "sales": 8, "prefix": prefix,
                }
                env = dict(os.environ, TILL_PLAN=json.dumps({**plan, "hang_at": {"sale": 7, "after": after}}))
                child = subprocess.Popen(
                    [sys.executable, "-m", "tests.server.offline_sales_till"], env=env, stdout=subprocess.PIPE, text=True
                )
                mark = f"enqueued 7 " if after == "enqueue" else "flushed 7 "
                lines = []
                while not (lines and lines[-1].startswith(mark)):
                    line = child.stdout.readline()
                    self.assertTrue(line, f"the till ended before {mark}: {lines}")
                    lines.append(line.strip())
                child.send_signal(signal.SIGKILL)
                child.wait()
                child.stdout.close()
                before = next(line for line in lines if line.startswith("enqueued 7 ")).split(" ")[2]
                again = subprocess.run(
                    [sys.executable, "-m", "tests.server.offline_sales_till"],
                    env=dict(os.environ, TILL_PLAN=json.dumps(plan)), stdout=subprocess.PIPE, text=True, timeout=120,
                )
                self.assertEqual(again.returncode, 0)
                requeued = [line.split(" ")[2] for line in again.stdout.splitlines() if line.startswith("again 7 ")]
                self.assertEqual(requeued, [before])
                numbers = [f"{prefix}-{sale:06d}" for sale in range(1, 9)]
                found = self.invoices_with(set(numbers))
                self.assertEqual({n: len(found.get(n, [])) for n in numbers}, {n: 1 for n in numbers})
                with OfflineQueue.open(plan["path"], api_key=self.tenant["key"], base_url=harness.PROXY_URL) as queue:
                    self.assertEqual(
                        queue.by_ref(numbers[6]), {"local_id": before, "state": "done", "id": found[numbers[6]][0]["id"]}
                    )
            finally:
                shutil.rmtree(root, ignore_errors=True)

    def test_offline_stores_are_private_a_0700_folder_with_0600_files_a_looser_one_tightened(self):
        """Issue 38: the store holds customers' names, NUITs and e-mails."""
        queue = self.queue()
        queue.enqueue("POST", "/customers", {"name": "Cliente Privado Py", "nuit": "400339910"})

        def mode(path):
            return stat.S_IMODE(os.stat(path).st_mode)

        self.assertEqual(mode(self.path), 0o700)
        for name in os.listdir(self.path):
            self.assertEqual((name, mode(os.path.join(self.path, name))), (name, 0o600))
        queue.close()
        os.chmod(self.path, 0o755)
        os.chmod(os.path.join(self.path, "queue.sqlite3"), 0o644)
        again = self.queue()
        self.assertEqual(mode(self.path), 0o700)
        self.assertEqual(mode(os.path.join(self.path, "queue.sqlite3")), 0o600)
        self.assertEqual(again.status()["pending"], 1)


def _customer_of(rows, sale_row):
    """The customer entry enqueued just before a sale (its $local was put in before the first send)."""
    index = [r[0] for r in rows].index(sale_row[0])
    return rows[index - 1][0]
