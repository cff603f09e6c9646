"""Webhook verification: the Standard Webhooks test vector, rotation, tolerance, tampering."""

import base64
import hashlib
import hmac
import json
import unittest

from invoicing_partner_api import WebhookVerificationError, verify_webhook

# The test vector published with the Standard Webhooks specification.
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = 1614265330
PAYLOAD = '{"test": 2432232314}'
SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
OTHER = "whsec_" + base64.b64encode(b"another secret of 24 bytes!").decode()


def sign(secret, msg_id, timestamp, payload):
    key = base64.b64decode(secret[len("whsec_") :])
    digest = hmac.new(key, f"{msg_id}.{timestamp}.{payload}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(signature, timestamp=TIMESTAMP, msg_id=MSG_ID):
    return {"webhook-id": msg_id, "webhook-timestamp": str(timestamp), "webhook-signature": signature}


class VerifyWebhookTest(unittest.TestCase):
    def test_the_specifications_vector(self):
        event = verify_webhook(PAYLOAD, headers(SIGNATURE), SECRET, now=TIMESTAMP)
        self.assertEqual(event, {"test": 2432232314})
        self.assertEqual(verify_webhook(PAYLOAD.encode(), headers(SIGNATURE), SECRET, now=TIMESTAMP + 300), event)

    def test_header_names_in_any_case_or_as_a_wsgi_environ(self):
        environ = {
            "HTTP_WEBHOOK_ID": MSG_ID,
            "HTTP_WEBHOOK_TIMESTAMP": str(TIMESTAMP),
            "HTTP_WEBHOOK_SIGNATURE": SIGNATURE,
        }
        self.assertEqual(verify_webhook(PAYLOAD, environ, SECRET, now=TIMESTAMP), {"test": 2432232314})
        mixed = {"Webhook-Id": MSG_ID, "Webhook-Timestamp": str(TIMESTAMP), "Webhook-Signature": SIGNATURE}
        self.assertEqual(verify_webhook(PAYLOAD, mixed, SECRET, now=TIMESTAMP), {"test": 2432232314})

    def test_rotation_two_signatures_or_two_secrets(self):
        both = f"{sign(OTHER, MSG_ID, TIMESTAMP, PAYLOAD)} {SIGNATURE}"
        self.assertTrue(verify_webhook(PAYLOAD, headers(both), SECRET, now=TIMESTAMP))
        self.assertTrue(verify_webhook(PAYLOAD, headers(both), OTHER, now=TIMESTAMP))
        self.assertTrue(verify_webhook(PAYLOAD, headers(SIGNATURE), [OTHER, SECRET], now=TIMESTAMP))

    def test_refused(self):
        cases = {
            "tampered body": (PAYLOAD.replace("2432232314", "2432232315"), headers(SIGNATURE), SECRET, "signature"),
            "other secret": (PAYLOAD, headers(SIGNATURE), OTHER, "signature"),
            "other id": (PAYLOAD, headers(SIGNATURE, msg_id="msg_other"), SECRET, "signature"),
            "not v1": (PAYLOAD, headers("v2," + SIGNATURE[3:]), SECRET, "signature"),
            "bad base64": (PAYLOAD, headers("v1,@@@"), SECRET, "signature"),
            "no signature": (PAYLOAD, {"webhook-id": MSG_ID, "webhook-timestamp": str(TIMESTAMP)}, SECRET, "missing_header"),
        }
        for name, (payload, given, secret, reason) in cases.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError) as caught:
                verify_webhook(payload, given, secret, now=TIMESTAMP)
            self.assertEqual(caught.exception.reason, reason, name)

    def test_timestamp_tolerance(self):
        for now in (TIMESTAMP + 301, TIMESTAMP - 301):
            with self.assertRaises(WebhookVerificationError) as caught:
                verify_webhook(PAYLOAD, headers(SIGNATURE), SECRET, now=now)
            self.assertEqual(caught.exception.reason, "timestamp")
        self.assertTrue(verify_webhook(PAYLOAD, headers(SIGNATURE), SECRET, now=TIMESTAMP + 600, tolerance=600))

    def test_a_signed_body_that_is_not_json(self):
        signature = sign(SECRET, MSG_ID, TIMESTAMP, "not json")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook("not json", headers(signature), SECRET, now=TIMESTAMP)
        self.assertEqual(caught.exception.reason, "payload")

    def test_numbers_are_decimals(self):
        payload = json.dumps({"data": {"tax_rate": 16.5, "grand_total": "0.30"}})
        event = verify_webhook(payload, headers(sign(SECRET, MSG_ID, TIMESTAMP, payload)), SECRET, now=TIMESTAMP)
        self.assertEqual(str(event["data"]["tax_rate"]), "16.5")
        self.assertEqual(event["data"]["grand_total"], "0.30")


if __name__ == "__main__":
    unittest.main()
