"""Answers with Deprecation/Sunset headers are told once per call site (the compatibility policy):
to ``on_deprecation``, or as a ``DeprecationWarning`` at the program's own line. Through the client
with an opener that answers like the API would for a deprecated query parameter (no server)."""

import http.client
import io
import json
import sys
import unittest
import warnings
from datetime import datetime, timezone

from invoicing_partner_api import DeprecationInfo, PartnerApi, PartnerApiDeprecationWarning, read_deprecation

DEPRECATED = {
    "Deprecation": "@1780272000",
    "Sunset": "Fri, 31 Dec 2027 00:00:00 GMT",
    "Link": '<https://docs.example/pt/compatibilidade#x>; rel="deprecation"; hreflang="pt", '
    '<https://docs.example/en/compatibility#y>; rel="deprecation"',
}


class _Answer(io.BytesIO):
    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        super().__init__(body)
        self.status = status
        self.headers = headers


class _Opener:
    """Answers every request with a page of customers; with the deprecation headers when ``search`` is used."""

    def __init__(self) -> None:
        self.urls = []

    def open(self, request, timeout=None):
        self.urls.append(request.full_url)
        headers = http.client.HTTPMessage()
        headers["Content-Type"] = "application/json"
        headers["X-Request-Id"] = "req_" + "0" * 24
        if "search=" in request.full_url:
            for name, value in DEPRECATED.items():
                headers[name] = value
        page = {"data": [], "pagination": {"total": 0, "count": 0, "per_page": 25, "current_page": 1, "last_page": 1}}
        return _Answer(200, headers, json.dumps(page).encode())


def _client(**options) -> PartnerApi:
    return PartnerApi("svc_sk_live_x", "http://127.0.0.1:9/api/v1/partner", opener=_Opener(), pacing=False, **options)


class DeprecationTest(unittest.TestCase):
    def test_reads_the_dates_and_the_link(self):
        info = read_deprecation("GET", "/customers?search=x", {k.lower(): v for k, v in DEPRECATED.items()})
        self.assertIsNotNone(info)
        assert info is not None
        self.assertEqual(info.path, "/customers")
        self.assertEqual(info.deprecated_at, datetime(2026, 6, 1, tzinfo=timezone.utc))
        self.assertEqual(info.sunset_at, datetime(2027, 12, 31, tzinfo=timezone.utc))
        self.assertEqual(info.link, "https://docs.example/pt/compatibilidade#x")
        self.assertIsNone(read_deprecation("GET", "/customers", {"x-request-id": "req_1"}))

    def test_on_deprecation_once_per_call_site(self):
        told = []
        api = _client(on_deprecation=told.append)
        line = sys._getframe().f_lineno + 2
        for _ in range(3):
            api.customers.list(search="x")  # one call site
        api.customers.list(search="y")  # another
        api.customers.list(type="company")  # nothing deprecated
        self.assertEqual(len(told), 2)
        self.assertIsInstance(told[0], DeprecationInfo)
        self.assertEqual((told[0].method, told[0].path), ("GET", "/customers"))
        self.assertTrue(str(told[0].call_site).endswith(f"test_deprecation.py:{line}"), told[0].call_site)
        self.assertNotEqual(told[0].call_site, told[1].call_site)

    def test_a_deprecation_warning_at_the_callers_line_once_per_call_site(self):
        api = _client()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = sys._getframe().f_lineno + 2
            for _ in range(2):
                api.customers.list(search="z")
        shown = [w for w in caught if issubclass(w.category, DeprecationWarning)]
        self.assertEqual(len(shown), 1)
        self.assertIs(shown[0].category, PartnerApiDeprecationWarning)
        self.assertTrue(shown[0].filename.endswith("test_deprecation.py"))
        self.assertEqual(shown[0].lineno, line)
        self.assertIn("GET /customers uses something deprecated since 2026-06-01", str(shown[0].message))
        self.assertIn("2027-12-31", str(shown[0].message))


if __name__ == "__main__":
    unittest.main()
