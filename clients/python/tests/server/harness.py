"""The test harness of the repository (test/helpers/client-harness.ts), over HTTP.

``npm run test:clients`` starts it (a real server on PostgreSQL or PGlite, recording proxies, a
webhook receiver, a server with low limits whose clock can be moved on) and runs these tests with
its addresses in the environment. Without them the tests fail: they are never skipped.
"""

import json
import os
import time
import urllib.request
from typing import Any, Dict, List, Optional

from invoicing_partner_api import PartnerApi


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run these tests through `npm run test:clients`")
    return value


HARNESS_URL = _env("PARTNER_HARNESS_URL")
API_URL = _env("PARTNER_API_URL")
PROXY_URL = _env("PARTNER_PROXY_URL")
LIMITED_URL = _env("PARTNER_LIMITED_URL")
LIMITED_PROXY_URL = _env("PARTNER_LIMITED_PROXY_URL")

# The machine's proxies are never in the way of 127.0.0.1.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def control(method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(HARNESS_URL + path, data=data, method=method)
    request.add_header("content-type", "application/json")
    with _opener.open(request, timeout=120) as answer:
        return json.loads(answer.read())


def tenant(name: str, target: str = "main", mode: str = "live") -> Dict[str, Any]:
    """A company with the partner API on and a key: {company_id, key}."""
    return control("POST", "/tenants", {"name": name, "target": target, "mode": mode})


def cli(*args: str) -> Dict[str, Any]:
    """bin/invoicing ARGS --json on the server's database."""
    return control("POST", "/cli", {"args": list(args)})


def plan(proxy: str, rules: List[Dict[str, Any]]) -> None:
    control("POST", f"/proxy/{proxy}/plan", {"rules": rules})


def requests(proxy: str) -> List[Dict[str, Any]]:
    return control("GET", f"/proxy/{proxy}/requests")


def reset(proxy: str) -> None:
    control("POST", f"/proxy/{proxy}/reset")


def advance_clock(seconds: float) -> None:
    """Moves the limited server's clock on."""
    control("POST", "/clock", {"advance_ms": int(seconds * 1000)})


def near_window_end(opened: float, seconds_left: float = 3.0) -> None:
    """Moves the limited server's clock so that the minute window a request answered at ``opened``
    (time.monotonic()) opened ends ``seconds_left`` seconds from now: whatever time the test has
    taken so far, the window is neither over nor far from over."""
    advance_clock(60.0 - seconds_left - (time.monotonic() - opened))


def deliveries(company_id: int) -> List[Dict[str, Any]]:
    return control("GET", f"/webhooks/deliveries?company_id={company_id}")


def wait_for(predicate, timeout: float = 20.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def client(key: str, base_url: str = API_URL, **options: Any) -> PartnerApi:
    options.setdefault("retry_base_delay", 0.05)
    return PartnerApi(api_key=key, base_url=base_url, **options)
