"""Decoding of compressed answers (the transport asks for gzip): gzip and deflate bodies decode to
the same text as a plain one; an encoding it did not ask for, or a broken body, is an error. And the
retry budget: by default a call retries retryable answers (503 with Retry-After, as the API answers
while its database fails over) for at least 45 s of waits whatever the jitter, never past 60 s."""

import gzip
import http.client
import unittest
import zlib

import random
import urllib.request

from invoicing_partner_api._transport import DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BUDGET, MAX_BACKOFF, Transport, _decoded
from invoicing_partner_api.errors import PartnerApiError


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


class AlwaysFailing(Transport):
    """Every attempt answers ``status`` (with Retry-After when given); waits are recorded, not slept."""

    def __init__(self, status, retry_after, rand, retry_budget=DEFAULT_RETRY_BUDGET):
        self.waits = []
        self.attempts = 0
        self.status = status
        self.retry_after = retry_after
        super().__init__(
            api_key="svc_sk_live_x",
            base_url="http://api.test/api/v1/partner",
            max_retries=DEFAULT_MAX_RETRIES,
            timeout=1.0,
            retry_base_delay=1.0,
            max_retry_wait=60.0,
            retry_budget=retry_budget,
            user_agent="test",
            on_retry=None,
            pacer=None,
            opener=urllib.request.build_opener(),
            rand=rand,
            sleep=self.waits.append,
        )

    def _send(self, method, url, headers_, body, path, attempt):
        self.attempts += 1
        answer = headers(retry_after=self.retry_after) if self.retry_after else headers()
        return self.status, answer, '{"statusCode":503,"error":"Service Unavailable","message":"Service Unavailable"}'


class RetryBudgetTest(unittest.TestCase):
    def test_a_503_with_retry_after_2_is_retried_for_at_least_45_s_and_at_most_the_60_s_budget(self):
        for rand in (lambda: 0.0, lambda: 0.999999, random.random):
            transport = AlwaysFailing(503, "2", rand)
            with self.assertRaises(PartnerApiError) as caught:
                transport.call("GET", "/ping")
            self.assertEqual(caught.exception.status, 503)
            self.assertGreaterEqual(sum(transport.waits), 45.0)
            self.assertLessEqual(sum(transport.waits), DEFAULT_RETRY_BUDGET)
            self.assertEqual(transport.attempts, len(transport.waits) + 1)
            for wait in transport.waits:
                self.assertGreaterEqual(wait, 2.0)
                self.assertLessEqual(wait, MAX_BACKOFF)

    def test_the_waits_grow_exponentially_up_to_the_cap(self):
        transport = AlwaysFailing(502, None, lambda: 0.999999)
        with self.assertRaises(PartnerApiError):
            transport.call("GET", "/ping")
        self.assertEqual([round(w, 3) for w in transport.waits[:6]], [1.0, 2.0, 4.0, 8.0, MAX_BACKOFF, MAX_BACKOFF])

    def test_the_budget_is_configurable(self):
        transport = AlwaysFailing(503, "2", lambda: 0.0, retry_budget=5.0)
        with self.assertRaises(PartnerApiError):
            transport.call("GET", "/ping")
        self.assertEqual(transport.waits, [2.0, 2.0])


if __name__ == "__main__":
    unittest.main()
