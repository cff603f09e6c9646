"""Issue 38, goal 2: the extreme literals through the Python client, digit for digit, against the
real server: amounts past a binary double's 15 digits are stored as written, never rounded, and
more decimals than allowed is the API's 422 naming the field."""

import unittest
from decimal import Decimal

from invoicing_partner_api import PartnerApiError

from . import harness


class ExactMoneyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tenant = harness.tenant("Dinheiro Extremo Python, Lda")
        cls.api = harness.client(cls.tenant["key"], harness.PROXY_URL)

    def setUp(self):
        harness.reset("main")

    def test_extreme_literals_are_stored_as_written(self):
        product = self.api.products.create(
            {
                "name": "Extremo Py",
                "type": "SERVICES",
                "inventory": "NON_INVENTORY",
                "price": Decimal("9999999999999999.99"),
                "pos_price": "9007199254740993",
            }
        )
        self.assertEqual((product["price"], product["pos_price"]), ("9999999999999999.99", "9007199254740993.00"))
        body = harness.requests("main")[0]["body"]
        self.assertIn('"price":9999999999999999.99', body)
        self.assertIn('"pos_price":9007199254740993', body)
        updated = self.api.products.update(
            product["id"],
            {"name": "Extremo Py", "type": "SERVICES", "inventory": "NON_INVENTORY", "price": "99999999999999.99"},
        )
        self.assertEqual(updated["price"], "99999999999999.99")
        customer = self.api.customers.create({"name": "Cliente Extremo Py"})
        invoice = self.api.invoices.create(
            {
                "customer_id": customer["id"],
                "invoice_date": "2026-03-01",
                "items": [{"product_id": product["id"], "quantity": 100, "price": Decimal("99999999999999.99")}],
            }
        )
        self.assertEqual([(i["price"], i["total"]) for i in invoice["items"]], [("99999999999999.99", "9999999999999999.00")])
        self.assertEqual(invoice["grand_total"], "9999999999999999.00")

    def test_more_decimals_than_allowed_is_the_apis_422_naming_the_field(self):
        with self.assertRaises(PartnerApiError) as caught:
            self.api.products.create(
                {"name": "Extremo Py", "type": "SERVICES", "inventory": "NON_INVENTORY", "price": Decimal("4.350000000000000001")}
            )
        error = caught.exception
        self.assertEqual((error.status, error.code), (422, "validation_failed"))
        self.assertEqual(list(error.errors), ["price"])
        self.assertIn('"price":4.350000000000000001', harness.requests("main")[0]["body"])


if __name__ == "__main__":
    unittest.main()
