"""Decoding of compressed answers (the transport asks for gzip): gzip and deflate bodies decode to
the same text as a plain one; an encoding it did not ask for, or a broken body, is an error."""

import gzip
import http.client
import unittest
import zlib

from invoicing_partner_api._transport import _decoded


def headers(**values: str) -> http.client.HTTPMessage:
    message = http.client.HTTPMessage()
    for name, value in values.items():
        message[name.replace("_", "-")] = value
    return message


class DecodedTest(unittest.TestCase):
    TEXT = '{"data":[{"name":"Mercearia Índico"}]}' * 50

    def test_plain_gzip_and_deflate_decode_to_the_same_text(self):
        raw = self.TEXT.encode("utf-8")
        self.assertEqual(_decoded(headers(), raw), self.TEXT)
        self.assertEqual(_decoded(headers(content_encoding="identity"), raw), self.TEXT)
        self.assertEqual(_decoded(headers(content_encoding="gzip"), gzip.compress(raw)), self.TEXT)
        self.assertEqual(_decoded(headers(content_encoding="GZIP"), gzip.compress(raw)), self.TEXT)
        self.assertEqual(_decoded(headers(content_encoding="deflate"), zlib.compress(raw)), self.TEXT)

    def test_an_unknown_encoding_or_a_broken_body_is_an_error(self):
        with self.assertRaises(zlib.error):
            _decoded(headers(content_encoding="br"), b"\x0b\x02\x80")
        with self.assertRaises((OSError, EOFError, zlib.error)):
            _decoded(headers(content_encoding="gzip"), gzip.compress(b"abc")[:-4])


if __name__ == "__main__":
    unittest.main()
