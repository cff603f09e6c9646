"""PartnerApi: one object per partner key, with a resource per collection."""

from __future__ import annotations

import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Union

from ._deprecation import DeprecationInfo, Deprecations
from ._json import IsMoney, encode_json, invoice_money, no_money, product_money
from ._pacing import Pacer, PaceInfo, RateLimitState
from ._transport import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_RETRY_BUDGET,
    RetryInfo,
    TraceContextHook,
    Transport,
    no_redirect_opener,
)
from .errors import Response

__version__ = "1.0.0"

Id = Union[int, str]


class Result(dict):
    """A decoded answer (a resource, a page, a ping): a plain ``dict`` that also remembers the
    response details of the call that returned it (``response_of``)."""

    __slots__ = ("_response",)

    def __init__(self, data: Mapping[str, Any], response: Response) -> None:
        super().__init__(data)
        self._response = response


def response_of(result: Any) -> Optional[Response]:
    """The response details (status, request id, replay, rate-limit headers, attempts) of the call
    that returned ``result``; None for anything else (e.g. the items ``list_all`` yields). Each call
    has its own: concurrent calls never see each other's."""
    return getattr(result, "_response", None) if isinstance(result, Result) else None


def _result(body: Any, response: Response) -> Any:
    return Result(body, response) if isinstance(body, dict) else body


class _Collection:
    """Reads of a collection: one page, every item, one item."""

    def __init__(self, transport: Transport, collection: str) -> None:
        self._transport = transport
        self._collection = collection

    def list(self, **query: Any) -> Result:
        """One page: ``{"data": [...], "pagination": {...}}``. Filters, ``sort``, ``order``, ``page``
        and ``per_page`` as keyword arguments (True/False, dates and Decimals are written as the API
        expects)."""
        body, response = self._transport.call("GET", "/" + self._collection, query=query)
        return Result(body, response)

    def list_all(self, **query: Any) -> Iterator[Dict[str, Any]]:
        """Every item, page by page until ``current_page`` equals ``last_page``: ``per_page`` items a
        page (default 100, the most the API gives)."""
        if "page" in query:
            raise TypeError("list_all walks every page from the first: leave page out")
        query.setdefault("per_page", 100)
        page = 1
        while True:
            result = self.list(**query, page=page)
            yield from result["data"]
            pagination = result["pagination"]
            if pagination["current_page"] >= pagination["last_page"] or not result["data"]:
                return
            page += 1

    def get(self, id: Id) -> Result:
        body, response = self._transport.call("GET", self._path(id))
        return _result(body["data"], response)

    def _path(self, id: Id) -> str:
        return f"/{self._collection}/{urllib.parse.quote(str(id), safe='')}"

    def _write(
        self, method: str, path: str, body: Mapping[str, Any], is_money: IsMoney, idempotency_key: Optional[str]
    ) -> Result:
        # Encoded once: every attempt resends these bytes with this key.
        encoded = encode_json(body, is_money).encode("utf-8")
        key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        answer, response = self._transport.call(method, path, body=encoded, idempotency_key=key)
        return _result(answer["data"], response)


class Customers(_Collection):
    def __init__(self, transport: Transport) -> None:
        super().__init__(transport, "customers")

    def create(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Result:
        return self._write("POST", "/customers", body, no_money, idempotency_key)

    def update(self, id: Id, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Result:
        """Changes only the fields sent."""
        return self._write("PUT", self._path(id), body, no_money, idempotency_key)


class Products(_Collection):
    def __init__(self, transport: Transport) -> None:
        super().__init__(transport, "products")

    def create(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Result:
        """``price`` and ``pos_price``: Decimal or decimal strings ("1250.50"), never floats."""
        return self._write("POST", "/products", body, product_money, idempotency_key)

    def update(self, id: Id, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Result:
        """Needs name, type, inventory and price; optional fields left out keep their value, None clears them."""
        return self._write("PUT", self._path(id), body, product_money, idempotency_key)


class Invoices(_Collection):
    def __init__(self, transport: Transport) -> None:
        super().__init__(transport, "invoices")

    def create(self, body: Mapping[str, Any], idempotency_key: Optional[str] = None) -> Result:
        """Always a draft; each line's ``price`` is a Decimal or a decimal string."""
        return self._write("POST", "/invoices", body, invoice_money, idempotency_key)


class Payments(_Collection):
    """Receipts: read only."""

    def __init__(self, transport: Transport) -> None:
        super().__init__(transport, "payments")


class PartnerApi:
    """The Partner API v1 of the invoicing service, for one key.

    ``api_key``: ``svc_sk_live_...`` (reads and writes) or ``svc_sk_test_...`` (reads only).
    ``base_url``: the API's address, ending in ``/api/v1/partner``.
    ``trace_context``: asked once per call, the trace context of your current span (a mapping with
    ``traceparent`` and maybe ``tracestate``, e.g. the carrier OpenTelemetry's ``inject`` fills),
    sent as the W3C headers so that the API's spans join your trace; a malformed value is not sent
    (and never raises).
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        *,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = 30.0,
        retry_base_delay: float = 1.0,
        max_retry_wait: float = 60.0,
        retry_budget: float = DEFAULT_RETRY_BUDGET,
        pacing: bool = True,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
        on_pace: Optional[Callable[[PaceInfo], None]] = None,
        opener: Optional[urllib.request.OpenerDirector] = None,
        on_deprecation: Optional[Callable[[DeprecationInfo], None]] = None,
        trace_context: Optional[TraceContextHook] = None,
    ) -> None:
        if not isinstance(api_key, str) or not api_key:
            raise TypeError("api_key is required")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise TypeError("base_url must be an http(s) address ending in /api/v1/partner")
        for name, value in (
            ("max_retries", max_retries),
            ("timeout", timeout),
            ("retry_base_delay", retry_base_delay),
            ("max_retry_wait", max_retry_wait),
            ("retry_budget", retry_budget),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise TypeError(f"{name} must be a number >= 0")
        self._pacer = Pacer(max_retry_wait, on_pace) if pacing else None
        transport = Transport(
            api_key=api_key,
            base_url=base_url,
            max_retries=int(max_retries),
            timeout=float(timeout),
            retry_base_delay=float(retry_base_delay),
            max_retry_wait=float(max_retry_wait),
            retry_budget=float(retry_budget),
            user_agent=f"invoicing-partner-api-python/{__version__}",
            on_retry=on_retry,
            pacer=self._pacer,
            opener=opener if opener is not None else no_redirect_opener(),
            # Answers that say the call uses something deprecated: once per call site.
            deprecations=Deprecations(on_deprecation),
            trace_context=trace_context,
        )
        self._transport = transport
        self.customers = Customers(transport)
        self.products = Products(transport)
        self.invoices = Invoices(transport)
        self.payments = Payments(transport)

    def ping(self) -> Result:
        """The key's company, mode and scopes: a cheap check that the key works."""
        body, response = self._transport.call("GET", "/ping")
        return _result(body["data"], response)

    def _send(self, method: str, path: str, body: bytes, idempotency_key: str) -> Dict[str, Any]:
        """One write of a body already encoded, with its key, through this client's transport (its
        retries, pacing and deprecation report): the offline queue's way in."""
        answer, _ = self._transport.call(method, path, body=body, idempotency_key=idempotency_key)
        return answer

    def _writes_fit_in(self, writes: int) -> Optional[float]:
        """Seconds until ``writes`` more writes fit in every write limit this client has learnt (0 for
        none; None while no write limit is known): the offline queue's estimate."""
        longest: Optional[float] = 0.0 if writes == 0 else None
        for limit in self.rate_limits() if writes else []:
            if "write" in limit.applies_to and limit.quota and limit.window_seconds:
                beyond = writes - max(0, limit.remaining if limit.remaining is not None else limit.quota)
                wait = 0.0 if beyond <= 0 else (limit.reset_in or 0.0) + (-(-beyond // limit.quota) - 1) * limit.window_seconds
                longest = max(longest or 0.0, wait)
        return longest

    def rate_limits(self) -> List[RateLimitState]:
        """The rate limits this client has learnt from the API's RateLimit headers, and what is left."""
        return self._pacer.snapshot() if self._pacer is not None else []
