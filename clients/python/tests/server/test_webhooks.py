"""The webhook helper on real deliveries of the server (bin/invoicing webhooks create + receiver)."""

import json
import unittest

from invoicing_partner_api import WebhookVerificationError, verify_webhook

from . import harness


class WebhooksTest(unittest.TestCase):
    def test_accepts_a_real_delivery_refuses_a_tampered_one_and_follows_a_rotation(self):
        tenant = harness.tenant("Recebe Webhooks Py, Lda")
        endpoint = harness.control("POST", "/webhooks", {"company_id": tenant["company_id"]})
        api = harness.client(tenant["key"])
        customer = api.customers.create({"name": "Cliente Notificado Py", "nuit": "400339910"})

        delivery = harness.wait_for(
            lambda: next((d for d in harness.deliveries(tenant["company_id"]) if '"customer.created"' in d["body"]), None),
            what="the customer.created delivery",
        )
        event = verify_webhook(delivery["body"], delivery["headers"], endpoint["secret"])
        self.assertEqual(event["type"], "customer.created")
        self.assertEqual(event["id"], delivery["headers"]["webhook-id"])
        self.assertEqual(event["data"]["id"], customer["id"])
        self.assertEqual(event["data"]["nuit"], "400339910")

        tampered = delivery["body"].replace("Cliente Notificado Py", "Cliente Falso Py")
        self.assertNotEqual(tampered, delivery["body"])
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(tampered, delivery["headers"], endpoint["secret"])
        self.assertEqual(caught.exception.reason, "signature")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(delivery["body"], delivery["headers"], "whsec_" + "A" * 44)
        stale = int(delivery["headers"]["webhook-timestamp"]) + 301
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(delivery["body"], delivery["headers"], endpoint["secret"], now=stale)
        self.assertEqual(caught.exception.reason, "timestamp")

        # After a rotation both secrets sign: either one verifies.
        rotated = harness.cli("webhooks", "rotate-secret", str(endpoint["id"]))
        api.customers.update(customer["id"], {"phone": "+258 84 123 4567"})
        updated = harness.wait_for(
            lambda: next((d for d in harness.deliveries(tenant["company_id"]) if '"customer.updated"' in d["body"]), None),
            what="the customer.updated delivery",
        )
        self.assertEqual(len(updated["headers"]["webhook-signature"].split(" ")), 2)
        for secret in (endpoint["secret"], rotated["secret"], [endpoint["secret"], rotated["secret"]]):
            self.assertEqual(verify_webhook(updated["body"], updated["headers"], secret)["data"]["phone"], "+258 84 123 4567")
        self.assertEqual(json.loads(updated["body"])["type"], "customer.updated")


if __name__ == "__main__":
    unittest.main()
