"""The NUIT helper: python-stdnum's published algorithm for stdnum.mz.nuit, reimplemented."""

import unittest

from invoicing_partner_api import compact_nuit, format_nuit, is_valid_nuit, nuit_check_digit


class NuitTest(unittest.TestCase):
    def test_valid_numbers_in_the_usual_spellings(self):
        for value in ["400339910", "400 339 910", "400-339-910", "400.005.834", " 400005834 "]:
            self.assertTrue(is_valid_nuit(value), value)

    def test_check_digit_weights_8_9_4_5_6_7_8_9_modulo_11(self):
        # 4*8 + 0*9 + 0*4 + 3*5 + 3*6 + 9*7 + 9*8 + 1*9 = 209 = 19 * 11: remainder 0.
        self.assertEqual(nuit_check_digit("40033991"), "0")
        self.assertEqual(nuit_check_digit("40000583"), "4")
        # A remainder of 10 gives the digit 1.
        tens = [f"{n:08d}" for n in range(100000, 100200) if self._remainder(f"{n:08d}") == 10]
        self.assertTrue(tens)
        for digits in tens:
            self.assertEqual(nuit_check_digit(digits), "1")
            self.assertTrue(is_valid_nuit(digits + "1"))

    @staticmethod
    def _remainder(digits):
        return sum(w * int(d) for w, d in zip((8, 9, 4, 5, 6, 7, 8, 9), digits)) % 11

    def test_wrong_length_characters_or_check_digit(self):
        for value in ["12345", "4003399100", "40033991A", "400339911", "", "４００３３９９１０"]:
            self.assertFalse(is_valid_nuit(value), value)
        with self.assertRaises(ValueError):
            nuit_check_digit("1234567")

    def test_compact_and_format(self):
        self.assertEqual(compact_nuit(" 400 339-910. "), "400339910")
        self.assertEqual(format_nuit("400339910"), "400 339 910")
        self.assertEqual(format_nuit("400-339-910"), "400 339 910")


if __name__ == "__main__":
    unittest.main()
