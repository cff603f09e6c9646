"""One call to the API, with the retries the contract recommends.

- Retried: 429, 409 idempotency_request_in_flight, every 5xx, and network errors or timeouts.
- The wait is an exponential backoff with jitter: a random wait between half and all of the base
  delay, then of 2x, 4x, 8x of it... up to MAX_BACKOFF (so that clients that failed together do not
  retry together), and never shorter than the answer's Retry-After.
- The retries stop when the next wait would take the call's waits past ``retry_budget`` (60 s by
  default: a database failover of 30-40 s is waited out; at least budget - MAX_BACKOFF = 50 s is
  always waited), or after ``max_retries``.
- Never retried: any other 4xx, including 409 idempotency_key_reuse.
- A write is encoded once and carries one Idempotency-Key: every attempt sends the same bytes with
  the same key, so the API creates the record once and replays its answer to a retry.
- Before every attempt the pacer (_pacing.py) waits while a rate limit it knows of is exhausted.
- A redirect is never followed (it would carry the Authorization header elsewhere): a 3xx fails.
- The caller's trace context (``trace_context``), asked once per call, goes with every attempt as
  the W3C ``traceparent``/``tracestate`` headers; a malformed one (or a hook that raises) is not sent.
- Answers are asked for gzip-compressed (a page of 100 invoices travels as about 8 KB instead of
  65 KB) and decoded here with the standard library.
"""

from __future__ import annotations

import email.utils
import gzip
import http.client
import json
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from ._deprecation import Deprecations
from ._pacing import READ, WRITE, Pacer
from .errors import ERROR_CODES, PartnerApiError, PartnerApiNetworkError, RateLimitInfo, Response


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follows a redirect (it would carry the Authorization header to another address): the
    3xx answer is handed back as it is, and the call fails naming where it pointed."""

    # Before urllib's own redirect handler, also in an opener given by the caller.
    handler_order = 100

    def http_error_302(self, req, fp, code, msg, headers):  # type: ignore[no-untyped-def]
        raise urllib.error.HTTPError(req.full_url, code, msg, headers, fp)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def no_redirect_opener(*handlers: urllib.request.BaseHandler) -> urllib.request.OpenerDirector:
    """urllib's opener with ``handlers``, that never follows a redirect."""
    return urllib.request.build_opener(_NoRedirect(), *handlers)


#: The longest backoff wait in seconds (a Retry-After may ask for more, up to ``max_retry_wait``).
MAX_BACKOFF = 10.0
#: Defaults of the retries: the budget outlasts a database failover (30-40 s).
DEFAULT_RETRY_BUDGET = 60.0
DEFAULT_MAX_RETRIES = 15

#: A W3C traceparent: version (not ff), trace id, parent id (neither all zeros), flags; lower case.
_TRACEPARENT = re.compile(r"(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}")
#: A tracestate fit for a header: printable ASCII, at most 512 characters.
_TRACESTATE = re.compile(r"[\x20-\x7e]{1,512}")

TraceContextHook = Callable[[], Optional[Mapping[str, Any]]]


def trace_headers(hook: Optional[TraceContextHook]) -> Dict[str, str]:
    """The trace headers for the hook's answer: ``traceparent`` only if well formed, ``tracestate``
    only with it and only if fit for a header. Never raises: tracing never breaks a call."""
    if hook is None:
        return {}
    try:
        context = hook()
    except Exception:
        return {}
    if not isinstance(context, Mapping):
        return {}
    parent = context.get("traceparent")
    parent = parent.strip() if isinstance(parent, str) else ""
    if not _TRACEPARENT.fullmatch(parent):
        return {}
    state = context.get("tracestate")
    state = state.strip() if isinstance(state, str) else ""
    return {"traceparent": parent, "tracestate": state} if _TRACESTATE.fullmatch(state) else {"traceparent": parent}


@dataclass(frozen=True)
class RetryInfo:
    """Passed to ``on_retry`` before each wait."""

    method: str
    path: str
    #: The attempt that failed (1 for the first request).
    attempt: int
    #: Seconds the client waits before the next attempt.
    delay: float
    #: The failure: a PartnerApiError (429, 409 in flight, 5xx) or a PartnerApiNetworkError.
    error: Exception
    #: The Idempotency-Key the next attempt resends (writes only).
    idempotency_key: Optional[str]


Failure = Union[PartnerApiError, PartnerApiNetworkError]


class Transport:
    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        max_retries: int,
        timeout: float,
        retry_base_delay: float,
        max_retry_wait: float,
        user_agent: str,
        retry_budget: float = DEFAULT_RETRY_BUDGET,
        on_retry: Optional[Callable[[RetryInfo], None]],
        pacer: Optional[Pacer],
        opener: urllib.request.OpenerDirector,
        rand: Callable[[], float] = random.random,
        sleep: Callable[[float], None] = time.sleep,
        deprecations: Optional[Deprecations] = None,
        trace_context: Optional[TraceContextHook] = None,
    ) -> None:
        self._api_key = api_key
        self._base_url = base_url.rstrip("/")
        self._max_retries = max_retries
        self._timeout = timeout
        self._retry_base_delay = retry_base_delay
        self._max_retry_wait = max_retry_wait
        self._retry_budget = retry_budget
        self._user_agent = user_agent
        self._on_retry = on_retry
        self._pacer = pacer
        self._opener = opener
        # An opener of the caller's that follows redirects (urllib's default does) gets the refusal
        # too: the key never leaves for the address a redirect names.
        add_handler = getattr(opener, "add_handler", None)
        handlers = getattr(opener, "handlers", None)
        if add_handler is not None and isinstance(handlers, list) and not any(isinstance(h, _NoRedirect) for h in handlers):
            add_handler(_NoRedirect())
        self._random = rand
        self._sleep = sleep
        self._deprecations = deprecations
        self._trace_context = trace_context

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[bytes] = None,
        idempotency_key: Optional[str] = None,
    ) -> Tuple[Any, Response]:
        url = self._base_url + path + _query_string(query)
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "User-Agent": self._user_agent,
            **trace_headers(self._trace_context),
        }
        if body is not None:
            headers["Content-Type"] = "application/json"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        kind = READ if method == "GET" else WRITE
        attempt = 0
        waited = 0.0
        while True:
            attempt += 1
            retry_after: Optional[float] = None
            failure: Failure
            ticket = self._pacer.acquire(kind) if self._pacer is not None else None
            answer_headers = None
            try:
                status, answer_headers, text = self._send(method, url, headers, body, path, attempt)
            except PartnerApiNetworkError as error:
                failure = error
            else:
                info = _response_info(status, answer_headers, attempt)
                if self._deprecations is not None:
                    self._deprecations.notice(method, path, answer_headers)
                if 200 <= status < 300:
                    return _parse_success(status, text, info), info
                error = (
                    _redirect_error(status, answer_headers, method, path, info)
                    if 300 <= status < 400
                    else _api_error(status, text, info)
                )
                if not retryable(error):
                    raise error
                failure = error
                if info.rate_limit is not None and info.rate_limit.retry_after is not None:
                    retry_after = float(info.rate_limit.retry_after)
            finally:
                if ticket is not None and self._pacer is not None:
                    self._pacer.release(ticket, answer_headers)
            if attempt > self._max_retries:
                raise failure
            delay = max(retry_after if retry_after is not None else 0.0, self._backoff(attempt))
            if waited + delay > self._retry_budget:
                raise failure
            # A Retry-After longer than the client is willing to wait (e.g. the per-day limit) ends the call.
            if delay > self._max_retry_wait:
                raise failure
            if self._on_retry is not None:
                self._on_retry(
                    RetryInfo(
                        method=method,
                        path=path,
                        attempt=attempt,
                        delay=delay,
                        error=failure,
                        idempotency_key=idempotency_key,
                    )
                )
            self._sleep(delay)
            waited += delay

    def _backoff(self, attempt: int) -> float:
        """Base, 2x, 4x, 8x... of the base delay up to MAX_BACKOFF, each a random wait between its half and itself."""
        ceiling = min(self._retry_base_delay * 2 ** (attempt - 1), MAX_BACKOFF)
        return ceiling / 2 + ceiling / 2 * self._random()

    def _send(
        self,
        method: str,
        url: str,
        headers: Dict[str, str],
        body: Optional[bytes],
        path: str,
        attempt: int,
    ) -> Tuple[int, http.client.HTTPMessage, str]:
        """One attempt: the status, headers and whole body; no answer is a PartnerApiNetworkError."""
        request = urllib.request.Request(url, data=body, headers=headers, method=method)
        try:
            try:
                with self._opener.open(request, timeout=self._timeout) as answer:
                    return answer.status, answer.headers, _decoded(answer.headers, answer.read())
            except urllib.error.HTTPError as error:
                with error:
                    return error.code, error.headers, _decoded(error.headers, error.read())
        except (urllib.error.URLError, http.client.HTTPException, OSError, EOFError, zlib.error) as error:
            reason = getattr(error, "reason", error)
            timed_out = isinstance(reason, (socket.timeout, TimeoutError)) or isinstance(
                error, (socket.timeout, TimeoutError)
            )
            what = f"no answer within {self._timeout} s" if timed_out else str(reason) or type(error).__name__
            raise PartnerApiNetworkError(f"{method} {path}: {what}", timed_out=timed_out, attempts=attempt) from error


def _redirect_error(status: int, headers: http.client.HTTPMessage, method: str, path: str, info: Response) -> PartnerApiError:
    """The API never redirects; an answer that does (a proxy, a wrong base URL) is not followed."""
    location = headers.get("location")
    where = f" to {location}" if location else ""
    return PartnerApiError(
        status=status,
        code=None,
        message=f"HTTP {status}: {method} {path} was redirected{where}; the client never follows a redirect (is base_url the API's address?)",
        request_id=info.request_id,
        rate_limit=info.rate_limit,
        attempts=info.attempts,
    )


def retryable(error: PartnerApiError) -> bool:
    """Retried, and for the offline queue not a refusal of the entry: 429, 5xx, 409 in flight."""
    if error.status == 429 or error.status >= 500:
        return True
    return error.status == 409 and error.code == "idempotency_request_in_flight"


def _query_value(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    if not query:
        return ""
    pairs = [(name, _query_value(value)) for name, value in query.items() if value is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _decoded(headers: http.client.HTTPMessage, raw: bytes) -> str:
    """The body as text, decompressed as its Content-Encoding says (a broken one: zlib.error)."""
    encoding = (headers.get("content-encoding") or "identity").strip().lower()
    if encoding == "gzip":
        raw = gzip.decompress(raw)
    elif encoding == "deflate":
        raw = zlib.decompress(raw)
    elif encoding != "identity":
        raise zlib.error(f"unexpected Content-Encoding {encoding}")
    return raw.decode("utf-8", "replace")


def _integer(headers: http.client.HTTPMessage, name: str) -> Optional[int]:
    raw = headers.get(name)
    if raw is None:
        return None
    raw = raw.strip()
    return int(raw) if raw.isdigit() and raw.isascii() else None


def _retry_after(headers: http.client.HTTPMessage) -> Optional[int]:
    """Retry-After in seconds: delta-seconds or an HTTP date."""
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _integer(headers, "retry-after")
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0, int(when.timestamp() - time.time() + 0.999))


def _response_info(status: int, headers: http.client.HTTPMessage, attempts: int) -> Response:
    limit = _integer(headers, "x-ratelimit-limit")
    remaining = _integer(headers, "x-ratelimit-remaining")
    retry_after = _retry_after(headers)
    rate_limit = (
        None
        if limit is None and remaining is None and retry_after is None
        else RateLimitInfo(limit=limit, remaining=remaining, retry_after=retry_after)
    )
    return Response(
        status=status,
        request_id=headers.get("x-request-id"),
        replayed=headers.get("idempotency-replay") == "true",
        rate_limit=rate_limit,
        attempts=attempts,
    )


def _loads(text: str) -> Any:
    # Numbers that are not integers (quantities, rates) as Decimal: never a binary float.
    return json.loads(text, parse_float=Decimal)


def _parse_success(status: int, text: str, info: Response) -> Any:
    try:
        return _loads(text)
    except ValueError:
        raise PartnerApiError(
            status=status,
            code=None,
            message=f"HTTP {status} with a body that is not JSON",
            request_id=info.request_id,
            rate_limit=info.rate_limit,
            attempts=info.attempts,
        ) from None


def _api_error(status: int, text: str, info: Response) -> PartnerApiError:
    envelope = None
    try:
        body = _loads(text)
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str):
            envelope = error
    except ValueError:
        pass
    if envelope is None or envelope["code"] not in ERROR_CODES:
        return PartnerApiError(
            status=status,
            code=None,
            message=envelope["message"] if envelope else f"HTTP {status}",
            request_id=info.request_id,
            rate_limit=info.rate_limit,
            attempts=info.attempts,
        )
    return PartnerApiError(
        status=status,
        code=envelope["code"],
        message=envelope["message"],
        hint=envelope.get("hint"),
        doc_url=envelope.get("doc_url"),
        request_id=envelope.get("request_id") or info.request_id,
        errors=envelope.get("errors"),
        rate_limit=info.rate_limit,
        attempts=info.attempts,
    )
