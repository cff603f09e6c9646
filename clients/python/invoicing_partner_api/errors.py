"""What a failed call raises.

PartnerApiError: the API answered with a failure (its error envelope, or a bare HTTP failure such as
a gateway's 502). PartnerApiNetworkError: no answer came at all (refused, dropped, timeout).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

#: The contract's 15 error codes, in the order the API documents them.
ERROR_CODES = (
    "invalid_api_key",
    "api_key_expired",
    "api_key_revoked",
    "partner_api_disabled",
    "browser_use_forbidden",
    "test_mode_read_only",
    "insufficient_scope",
    "resource_not_found",
    "invalid_query_parameter",
    "validation_failed",
    "idempotency_key_required",
    "idempotency_key_invalid",
    "idempotency_request_in_flight",
    "idempotency_key_reuse",
    "rate_limit_exceeded",
)


@dataclass(frozen=True)
class RateLimitInfo:
    """The contract's rate-limit headers of one answer."""

    #: X-RateLimit-Limit: requests allowed in the tightest window.
    limit: Optional[int]
    #: X-RateLimit-Remaining: requests left in it.
    remaining: Optional[int]
    #: Retry-After in seconds (on 429 and 409 idempotency_request_in_flight).
    retry_after: Optional[int]


@dataclass(frozen=True)
class Response:
    """What one call's answer said besides its body: ``response_of(result)``."""

    status: int
    #: X-Request-Id: quote it to support.
    request_id: Optional[str]
    #: Idempotency-Replay: true: a write answered from the record of an earlier identical request.
    replayed: bool
    rate_limit: Optional[RateLimitInfo]
    #: Requests made for this call, retries included.
    attempts: int


class PartnerApiError(Exception):
    """The API answered with a failure. Branch on ``code``; ``message`` and ``hint`` are for people.

    ``str(error)`` (what an uncaught error shows) is the message followed by the hint, so that it
    says what to do; ``message`` is the API's message alone.
    """

    def __init__(
        self,
        *,
        status: int,
        code: Optional[str],
        message: str,
        hint: Optional[str] = None,
        doc_url: Optional[str] = None,
        request_id: Optional[str] = None,
        errors: Optional[Dict[str, List[str]]] = None,
        rate_limit: Optional[RateLimitInfo] = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(f"{message} {hint}" if hint else message)
        #: HTTP status.
        self.status = status
        #: One of ERROR_CODES; None when the answer was not the API's envelope (e.g. a proxy's 502).
        self.code = code
        self.message = message
        self.hint = hint
        self.doc_url = doc_url
        #: X-Request-Id of the failed answer.
        self.request_id = request_id
        #: For validation_failed: dotted field path ("items.0.price") to its messages.
        self.errors = errors
        self.rate_limit = rate_limit
        #: Requests made for this call, retries included.
        self.attempts = attempts

    def __repr__(self) -> str:
        return f"PartnerApiError(status={self.status}, code={self.code!r}, request_id={self.request_id!r})"


class PartnerApiNetworkError(Exception):
    """No answer arrived: connection refused or dropped, DNS failure, or the timeout passed."""

    def __init__(self, message: str, *, timed_out: bool, attempts: int) -> None:
        super().__init__(message)
        #: True when the timeout passed before the answer.
        self.timed_out = timed_out
        self.attempts = attempts
