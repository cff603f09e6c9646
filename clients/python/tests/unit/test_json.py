"""Bodies: compact JSON whose money is written digit for digit, never through a float."""

import json
import unittest
from datetime import date
from decimal import Decimal

from invoicing_partner_api._json import encode_json, invoice_money, no_money, product_money


class EncodeJsonTest(unittest.TestCase):
    def test_is_compact_json_keeping_key_order_and_unicode(self):
        body = {"name": 'Água "Fresca"\n', "type": "company", "email": None, "list": [1, "a", None, True]}
        text = encode_json(body, no_money)
        self.assertEqual(text, json.dumps(body, ensure_ascii=False, separators=(",", ":")))
        self.assertEqual(encode_json({"price": "12.50"}, no_money), '{"price":"12.50"}')

    def test_decimal_strings_at_money_fields_are_the_number_literal_itself(self):
        self.assertEqual(
            encode_json({"price": "90071992547409.93", "pos_price": "0.10", "name": "5.00"}, product_money),
            '{"price":90071992547409.93,"pos_price":0.10,"name":"5.00"}',
        )
        # A float would have changed these digits.
        self.assertNotEqual(json.dumps(float("90071992547409.93")), "90071992547409.93")
        self.assertEqual(
            encode_json({"items": [{"price": "1.10", "discount": 5}, {"price": "7"}], "notes": "3.00"}, invoice_money),
            '{"items":[{"price":1.10,"discount":5},{"price":7}],"notes":"3.00"}',
        )

    def test_decimals_anywhere_are_exact_numbers_without_exponent(self):
        self.assertEqual(
            encode_json({"price": Decimal("0.10"), "pos_price": Decimal("1E+2")}, product_money),
            '{"price":0.10,"pos_price":100}',
        )
        self.assertEqual(
            encode_json({"items": [{"quantity": Decimal("2.5000"), "price": Decimal("-0.5")}]}, invoice_money),
            '{"items":[{"quantity":2.5000,"price":-0.5}]}',
        )

    def test_a_float_at_a_money_field_is_refused(self):
        with self.assertRaisesRegex(TypeError, "items.0.price"):
            encode_json({"items": [{"price": 0.1}]}, invoice_money)
        with self.assertRaises(TypeError):
            encode_json({"price": 12.5}, product_money)
        # Elsewhere (quantities, rates) a float is its shortest repr.
        self.assertEqual(encode_json({"items": [{"quantity": 0.1}]}, invoice_money), '{"items":[{"quantity":0.1}]}')

    def test_strings_that_are_not_plain_decimals_stay_strings(self):
        for text in ["12,50", "1e3", "007.5", ".5", "5.", " 5", "", "NaN", "1_000"]:
            self.assertEqual(json.loads(encode_json({"price": text}, product_money)), {"price": text}, text)

    def test_dates_and_what_json_cannot_carry(self):
        self.assertEqual(encode_json({"invoice_date": date(2026, 11, 22)}, no_money), '{"invoice_date":"2026-11-22"}')
        with self.assertRaises(ValueError):
            encode_json({"quantity": float("nan")}, no_money)
        with self.assertRaises(ValueError):
            encode_json({"quantity": Decimal("Infinity")}, no_money)
        with self.assertRaises(TypeError):
            encode_json({"x": object()}, no_money)
        with self.assertRaises(TypeError):
            encode_json({1: "a"}, no_money)


if __name__ == "__main__":
    unittest.main()
