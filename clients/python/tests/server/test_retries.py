"""Retries through the recording proxy, a 429 waited out and pacing on the server with low limits."""

import threading
import time
import unittest

from invoicing_partner_api import PartnerApiError, PartnerApiNetworkError, response_of

from . import harness

BASE = 0.05


def within_backoff(test, retries, multiples):
    """Each wait between half of and the whole base x 1, 2, 4, 8 (jitter)."""
    test.assertEqual([r.attempt for r in retries], list(range(1, len(multiples) + 1)))
    for retry, multiple in zip(retries, multiples):
        test.assertGreaterEqual(retry.delay, BASE * multiple / 2)
        test.assertLessEqual(retry.delay, BASE * multiple)


class RetriesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tenant = harness.tenant("Rede Instável Py, Lda")

    def setUp(self):
        harness.reset("main")
        self.retries = []

    def client(self, **options):
        return harness.client(self.tenant["key"], harness.PROXY_URL, on_retry=self.retries.append, **options)

    def test_a_post_whose_answer_is_lost_is_resent_with_the_same_bytes_and_key_and_creates_one_record(self):
        harness.plan("main", [{"action": "lose-response", "method": "POST", "times": 1}])
        created = self.client().customers.create({"name": "Resposta Perdida Py", "email": "perdida.py@exemplo.co.mz"})
        posts = [r for r in harness.requests("main") if r["method"] == "POST"]
        self.assertEqual([(p["action"], p["upstream_status"]) for p in posts], [("lose-response", 201), ("forward", 201)])
        self.assertEqual(posts[0]["body"], posts[1]["body"])
        self.assertEqual(posts[0]["headers"]["idempotency-key"], posts[1]["headers"]["idempotency-key"])
        self.assertEqual((response_of(created).replayed, response_of(created).attempts), (True, 2))
        self.assertIsInstance(self.retries[0].error, PartnerApiNetworkError)
        self.assertEqual(self.retries[0].idempotency_key, posts[0]["headers"]["idempotency-key"])
        within_backoff(self, self.retries, [1])
        found = self.client().customers.list(search="Resposta Perdida Py")
        self.assertEqual([c["id"] for c in found["data"]], [created["id"]])

    def test_an_invoice_whose_answer_is_lost_twice_is_created_once(self):
        api = self.client()
        customer = api.customers.create({"name": "Cliente Uma Vez Py"})
        product = api.products.create({"name": "Serviço Uma Vez Py", "type": "SERVICES", "inventory": "NON_INVENTORY", "price": "10.00"})
        harness.reset("main")
        harness.plan("main", [{"action": "lose-response", "method": "POST", "times": 2}])
        invoice = api.invoices.create(
            {"customer_id": customer["id"], "invoice_date": "2026-03-01", "items": [{"product_id": product["id"], "quantity": 2, "price": "2500.55"}]}
        )
        self.assertEqual(invoice["grand_total"], "5001.10")
        posts = harness.requests("main")
        self.assertEqual(len(posts), 3)
        self.assertEqual(len({p["body"] for p in posts}), 1)
        self.assertEqual(len({p["headers"]["idempotency-key"] for p in posts}), 1)
        within_backoff(self, self.retries, [1, 2])
        self.assertEqual(api.invoices.list(customer_id=customer["id"])["pagination"]["total"], 1)

    def test_5xx_backs_off_with_jitter_and_with_max_retries_4_the_fifth_failure_is_raised(self):
        harness.plan("main", [{"action": "answer", "status": 502, "times": 5}])
        with self.assertRaises(PartnerApiError) as caught:
            self.client(max_retries=4).ping()
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.attempts), (502, None, 5))
        within_backoff(self, self.retries, [1, 2, 4, 8])

    def test_retry_after_on_a_503_is_waited_instead_of_the_backoff(self):
        harness.plan("main", [{"action": "answer", "status": 503, "headers": {"retry-after": "1"}, "times": 1}])
        ping = self.client().ping()
        self.assertEqual(ping["tenant_id"], self.tenant["company_id"])
        self.assertEqual([r.delay for r in self.retries], [1.0])

    def test_a_timeout_is_a_network_error(self):
        harness.plan("main", [{"action": "hang", "times": 2}])
        with self.assertRaises(PartnerApiNetworkError) as caught:
            self.client(timeout=0.3, max_retries=1).ping()
        self.assertTrue(caught.exception.timed_out)
        self.assertEqual(caught.exception.attempts, 2)

    def test_a_refused_connection_is_a_network_error_after_5_attempts_with_max_retries_4(self):
        with self.assertRaises(PartnerApiNetworkError) as caught:
            harness.client(self.tenant["key"], "http://127.0.0.1:9/api/v1/partner", on_retry=self.retries.append, max_retries=4).ping()
        self.assertEqual((caught.exception.timed_out, caught.exception.attempts), (False, 5))
        within_backoff(self, self.retries, [1, 2, 4, 8])


class RateLimitTest(unittest.TestCase):
    """The limited server: 3 requests and 2 writes a minute per key. Its clock is moved to the end
    of a minute window so that waits are a second or two, not up to sixty."""

    def setUp(self):
        harness.reset("limited")

    def statuses(self):
        return [r["upstream_status"] for r in harness.requests("limited")]

    def test_a_429_is_waited_out(self):
        tenant = harness.tenant("Limite Baixo Py, Lda", target="limited")
        first = harness.client(tenant["key"], harness.LIMITED_PROXY_URL)
        remaining = [response_of(first.ping()).rate_limit.remaining]
        opened = time.monotonic()
        remaining += [response_of(first.ping()).rate_limit.remaining for _ in range(2)]
        self.assertEqual(remaining, [2, 1, 0])
        harness.near_window_end(opened, 2.0)
        # Another process with the same key knows nothing of the spent budget: it meets the 429.
        retries = []
        other = harness.client(tenant["key"], harness.LIMITED_PROXY_URL, on_retry=retries.append)
        ping = other.ping()
        self.assertEqual(ping["tenant_id"], tenant["company_id"])
        self.assertEqual(len(retries), 1)
        error = retries[0].error
        self.assertEqual((error.status, error.code), (429, "rate_limit_exceeded"))
        # The window ends about 2 s after the jump, less the time the 429 took.
        self.assertIn(error.rate_limit.retry_after, (1, 2))
        self.assertEqual(retries[0].delay, float(error.rate_limit.retry_after))
        self.assertEqual(self.statuses(), [200, 200, 200, 429, 200])
        self.assertEqual(response_of(ping).attempts, 2)

    def test_pacing_writes_never_meet_a_429(self):
        tenant = harness.tenant("Ritmo Certo Py, Lda", target="limited")
        paces = []
        api = harness.client(tenant["key"], harness.LIMITED_PROXY_URL, on_pace=paces.append)
        api.customers.create({"name": "Primeiro"})
        harness.near_window_end(time.monotonic())
        api.customers.create({"name": "Segundo"})  # the last write of the window
        started = time.monotonic()
        api.customers.create({"name": "Terceiro"})
        self.assertEqual([p.limit for p in paces], ["key-writes-minute"])
        self.assertGreater(paces[0].delay, 0)
        self.assertLessEqual(paces[0].delay, 3.0)
        self.assertGreaterEqual(time.monotonic() - started, paces[0].delay - 0.1)
        self.assertEqual(self.statuses(), [201, 201, 201])
        limits = {state.name: state for state in api.rate_limits()}
        self.assertEqual((limits["key-writes-minute"].quota, limits["key-writes-minute"].window_seconds), (2, 60))

    def test_pacing_threads_share_the_budget(self):
        tenant = harness.tenant("Ritmo Partilhado Py, Lda", target="limited")
        api = harness.client(tenant["key"], harness.LIMITED_PROXY_URL)
        api.customers.create({"name": "Abre a janela"})
        harness.near_window_end(time.monotonic())
        created, errors = [], []

        def write(n):
            try:
                created.append(api.customers.create({"name": f"Fio {n}"}))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual(errors, [])
        self.assertEqual(len(created), 3)
        self.assertEqual(self.statuses(), [201] * 4)


if __name__ == "__main__":
    unittest.main()
