"""The Python client against the real server (PostgreSQL or PGlite, as the run says): every method,
auto-paging, exact money, and the errors that surface at once."""

import unittest
import uuid
from decimal import Decimal

from invoicing_partner_api import PartnerApiError, Result, response_of

from . import harness

UUID_V4 = r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"


class ApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tenant = harness.tenant("Cliente Python, Lda")
        cls.api = harness.client(cls.tenant["key"], harness.PROXY_URL)

    def setUp(self):
        harness.reset("main")

    def failure(self, call, *args, **kwargs) -> PartnerApiError:
        with self.assertRaises(PartnerApiError) as caught:
            call(*args, **kwargs)
        return caught.exception

    def test_ping(self):
        ping = self.api.ping()
        self.assertEqual(ping["tenant_id"], self.tenant["company_id"])
        self.assertEqual(ping["tenant_name"], "Cliente Python, Lda")
        self.assertEqual(ping["mode"], "live")
        response = response_of(ping)
        self.assertEqual((response.status, response.request_id, response.replayed, response.attempts), (200, ping["request_id"], False, 1))
        self.assertIsNotNone(response.rate_limit.remaining)
        sent = harness.requests("main")[-1]
        self.assertEqual(sent["headers"]["authorization"], "Bearer " + self.tenant["key"])
        self.assertTrue(sent["headers"]["user-agent"].startswith("invoicing-partner-api-python/"))

    def test_customers_every_method(self):
        created = self.api.customers.create(
            {"name": "Ana Macuácua", "type": "individual", "email": "ana.py@exemplo.co.mz", "nuit": "400339910"}
        )
        self.assertIsInstance(created, Result)
        self.assertIsInstance(created, dict)
        self.assertEqual(created["nuit"], "400339910")
        posts = [r for r in harness.requests("main") if r["method"] == "POST"]
        self.assertEqual(len(posts), 1)
        self.assertRegex(posts[0]["headers"]["idempotency-key"], UUID_V4)
        self.assertEqual(posts[0]["headers"]["content-type"], "application/json")
        self.assertEqual(
            posts[0]["body"],
            '{"name":"Ana Macuácua","type":"individual","email":"ana.py@exemplo.co.mz","nuit":"400339910"}',
        )
        self.assertEqual(self.api.customers.get(created["id"]), created)
        self.assertEqual(self.api.customers.get(str(created["id"])), created)
        updated = self.api.customers.update(created["id"], {"phone": "+258 84 000 1111"})
        self.assertEqual((updated["id"], updated["name"], updated["phone"]), (created["id"], "Ana Macuácua", "+258 84 000 1111"))
        page = self.api.customers.list(search="ana.py@", per_page=10)
        self.assertEqual([c["id"] for c in page["data"]], [created["id"]])
        self.assertEqual(page["pagination"], {"total": 1, "count": 1, "per_page": 10, "current_page": 1, "last_page": 1})
        self.assertEqual(response_of(page).status, 200)
        self.assertIn("search=ana.py%40&per_page=10", harness.requests("main")[-1]["url"])
        self.assertEqual([c["id"] for c in self.api.customers.list_all(search="ana.py@")], [created["id"]])

    def test_a_write_with_its_own_key_is_replayed(self):
        key = f"order-{uuid.uuid4()}"
        first = self.api.customers.create({"name": "Pedido Repetido Py"}, idempotency_key=key)
        again = self.api.customers.create({"name": "Pedido Repetido Py"}, idempotency_key=key)
        self.assertEqual(again, first)
        self.assertEqual((response_of(first).replayed, response_of(again).replayed), (False, True))
        self.assertEqual(self.api.customers.list(search="Pedido Repetido Py")["pagination"]["total"], 1)

    def test_money_round_trips_exactly(self):
        product = self.api.products.create(
            {"name": "Parafuso Py", "type": "GOODS", "inventory": "INVENTORY", "price": Decimal("0.10"), "pos_price": "0.20"}
        )
        self.assertEqual((product["price"], product["pos_price"], product["stock"]), ("0.10", "0.20", 0))
        customer = self.api.customers.create({"name": "Loja do Dinheiro Exacto"})
        harness.reset("main")
        invoice = self.api.invoices.create(
            {
                "customer_id": customer["id"],
                "invoice_date": "2026-03-01",
                "items": [
                    {"product_id": product["id"], "quantity": 1, "price": "0.10"},
                    {"product_id": product["id"], "quantity": 1, "price": Decimal("0.20")},
                ],
            }
        )
        body = harness.requests("main")[0]["body"]
        self.assertIn('"quantity":1,"price":0.10}', body)
        self.assertIn('"quantity":1,"price":0.20}', body)
        self.assertEqual((invoice["subtotal"], invoice["grand_total"]), ("0.30", "0.30"))
        self.assertEqual(invoice["status"], "draft")
        self.assertRegex(invoice["invoice_code"], r"^DRAFT-")
        self.assertEqual([(i["price"], i["total"]) for i in invoice["items"]], [("0.10", "0.10"), ("0.20", "0.20")])
        self.assertEqual(self.api.invoices.get(invoice["id"])["grand_total"], "0.30")
        # A float never reaches the wire.
        harness.reset("main")
        with self.assertRaises(TypeError):
            self.api.products.update(product["id"], {"name": "x", "type": "GOODS", "inventory": "INVENTORY", "price": 0.1})
        self.assertEqual(harness.requests("main"), [])

    def test_products_update_and_lists(self):
        product = self.api.products.create(
            {"name": "Consultoria Py", "type": "SERVICES", "inventory": "NON_INVENTORY", "price": "1250.50", "sku": "PY-01"}
        )
        updated = self.api.products.update(
            product["id"],
            {"name": "Consultoria Py", "type": "SERVICES", "inventory": "NON_INVENTORY", "price": "99.99", "pos_price": None},
        )
        self.assertEqual((updated["price"], updated["pos_price"], updated["sku"]), ("99.99", None, "PY-01"))
        self.assertEqual(self.api.products.get(product["id"]), updated)
        page = self.api.products.list(search="Consultoria Py", is_for_sale=True)
        self.assertEqual([p["id"] for p in page["data"]], [product["id"]])
        self.assertIn("is_for_sale=true", harness.requests("main")[-1]["url"])

    def test_invoices_and_payments(self):
        customer = self.api.customers.create({"name": "Escola Primária Py"})
        product = self.api.products.create(
            {"name": "Manutenção Py", "type": "SERVICES", "inventory": "NON_INVENTORY", "price": "100.00"}
        )
        invoice = self.api.invoices.create(
            {
                "customer_id": customer["id"],
                "invoice_date": "2026-02-01",
                "reference": "PO-PY",
                "items": [{"product_id": product["id"], "quantity": 3, "price": "1500.25"}],
            }
        )
        self.assertEqual(invoice["grand_total"], "4500.75")
        summary = self.api.invoices.list(customer_id=customer["id"], status="draft")
        self.assertEqual([i["id"] for i in summary["data"]], [invoice["id"]])
        self.assertNotIn("items", summary["data"][0])
        # Receipts are recorded in the application (the operator's command line), then read.
        harness.cli("invoices", "issue", str(invoice["id"]))
        harness.cli("payments", "record", "--invoice", str(invoice["id"]), "--amount", "1000.00", "--date", "2026-02-03")
        harness.cli("payments", "record", "--invoice", str(invoice["id"]), "--amount", "500.75", "--date", "2026-02-04")
        payments = self.api.payments.list(invoice_id=invoice["id"], sort="payment_date")
        self.assertEqual([(p["payment_date"], p["amount"]) for p in payments["data"]], [("2026-02-03", "1000.00"), ("2026-02-04", "500.75")])
        self.assertEqual(self.api.payments.get(payments["data"][0]["id"]), payments["data"][0])
        self.assertEqual(sorted(p["amount"] for p in self.api.payments.list_all(invoice_id=invoice["id"])), ["1000.00", "500.75"])
        paid = [i for i in self.api.invoices.list_all(customer_id=customer["id"], status="partially_paid")]
        self.assertEqual([(i["id"], i["paid_amount"], i["remaining_amount"]) for i in paid], [(invoice["id"], "1500.75", "3000.00")])

    def test_list_all_over_more_than_three_pages_equals_total(self):
        own = harness.tenant("Muitos Clientes Py, SA")
        api = harness.client(own["key"], harness.PROXY_URL)
        # Global customers (of no company) are listed to every company too.
        shared = api.customers.list()["pagination"]["total"]
        for n in range(7):
            api.customers.create({"name": f"Cliente {n}"})
        harness.reset("main")
        total = api.customers.list()["pagination"]["total"]
        ids = [c["id"] for c in api.customers.list_all(per_page=2, sort="created_at")]
        self.assertEqual(total, shared + 7)
        self.assertEqual(len(ids), total)
        self.assertEqual(len(set(ids)), total)
        pages = [r["url"].split("?", 1)[1] for r in harness.requests("main")[1:]]
        last = (total + 1) // 2
        self.assertGreater(last, 3)
        self.assertEqual(pages, [f"per_page=2&sort=created_at&page={n}" for n in range(1, last + 1)])
        with self.assertRaises(TypeError):
            next(api.customers.list_all(page=2))

    def test_pages_come_gzip_compressed_and_are_decoded(self):
        own = harness.tenant("Clientes Comprimidos Py, SA")
        api = harness.client(own["key"], harness.PROXY_URL)
        names = [f"Cliente comprimido {n}" for n in range(8)]
        for name in names:
            api.customers.create({"name": name, "address": "Avenida 24 de Julho, " * 5})
        harness.reset("main")
        page = api.customers.list(per_page=100, sort="created_at", order="asc")
        sent = harness.requests("main")[0]
        self.assertEqual(sent["headers"]["accept-encoding"], "gzip")
        self.assertEqual(sent["upstream_encoding"], "gzip")
        self.assertEqual([c["name"] for c in page["data"] if c["name"].startswith("Cliente comprimido")], names)

    def test_a_200_line_draft_answers_whole_compressed(self):
        # A draft of 200 lines is about 40 KB: answered compressed and streamed, it must still
        # carry the whole invoice (it once came back empty, the invoice created but its id lost).
        customer = self.api.customers.create({"name": "Armazém das 200 Linhas Py"})
        product = self.api.products.create({"name": "Parafuso 200 Py", "type": "GOODS", "inventory": "INVENTORY", "price": "1.00"})
        harness.reset("main")
        items = [{"product_id": product["id"], "quantity": 1, "price": "1.00"} for _ in range(200)]
        invoice = self.api.invoices.create({"customer_id": customer["id"], "invoice_date": "2026-11-27", "items": items})
        self.assertIsInstance(invoice["id"], int)
        self.assertEqual((len(invoice["items"]), invoice["grand_total"]), (200, "200.00"))
        sent = harness.requests("main")[0]
        self.assertEqual(sent["upstream_encoding"], "gzip")
        self.assertEqual(self.api.invoices.get(invoice["id"]), invoice)

    def test_422_surfaces_at_once_with_its_field_errors(self):
        customer = self.api.customers.create({"name": "Cliente do 422 Py"})
        harness.reset("main")
        error = self.failure(
            self.api.invoices.create,
            {"customer_id": customer["id"], "invoice_date": "2026-02-01", "items": [{"quantity": 1, "price": "12,50"}]},
        )
        self.assertEqual((error.status, error.code, error.attempts), (422, "validation_failed", 1))
        self.assertIn("items.0.price", error.errors)
        self.assertIn("items.0.product_id", error.errors)
        self.assertRegex(error.request_id, r"^req_")
        self.assertTrue(error.doc_url.endswith("/errors#validation_failed"))
        self.assertIsInstance(error.hint, str)
        requests = harness.requests("main")
        self.assertEqual(len(requests), 1)
        self.assertIn('"price":"12,50"', requests[0]["body"])

    def test_key_reuse_surfaces_at_once(self):
        key = f"reuse-{uuid.uuid4()}"
        self.api.customers.create({"name": "Primeiro Corpo Py"}, idempotency_key=key)
        harness.reset("main")
        error = self.failure(self.api.customers.create, {"name": "Segundo Corpo Py"}, idempotency_key=key)
        self.assertEqual((error.status, error.code, error.attempts), (409, "idempotency_key_reuse", 1))
        self.assertEqual(len(harness.requests("main")), 1)
        self.assertEqual(self.api.customers.list(search="Segundo Corpo Py")["pagination"]["total"], 0)

    def test_other_4xx_are_never_retried(self):
        self.assertEqual(self.failure(self.api.customers.get, 99999999).code, "resource_not_found")
        query = self.failure(self.api.invoices.list, sort="amount")
        self.assertEqual((query.status, query.code, query.errors), (422, "invalid_query_parameter", None))
        self.assertEqual(self.failure(self.api.customers.create, {"name": "x"}, idempotency_key="short").code, "idempotency_key_invalid")
        test_key = harness.tenant("Modo Teste Py", mode="test")
        test_api = harness.client(test_key["key"], harness.PROXY_URL)
        self.assertEqual(test_api.ping()["mode"], "test")
        refused = self.failure(test_api.customers.create, {"name": "Nunca Escrito"})
        self.assertEqual((refused.status, refused.code, refused.attempts), (403, "test_mode_read_only", 1))
        wrong = self.failure(harness.client("svc_sk_live_not-a-real-key", harness.PROXY_URL).ping)
        self.assertEqual((wrong.status, wrong.code), (401, "invalid_api_key"))
        self.assertEqual(len(harness.requests("main")), 6)


if __name__ == "__main__":
    unittest.main()
