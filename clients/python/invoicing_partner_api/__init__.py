"""invoicing_partner_api: the official Python client of the Partner API v1 of the invoicing service.

Standard library only; Python 3.9 or later. Retries with the same bytes and Idempotency-Key, pacing on
the API's rate limits, auto-paging, typed errors, exact money (Decimal or decimal strings), webhook
verification, a NUIT helper and an offline queue for points of sale.
"""

from ._deprecation import DeprecationInfo, PartnerApiDeprecationWarning, read_deprecation
from ._pacing import PaceInfo, RateLimitState
from ._transport import RetryInfo
from .client import (
    Customers,
    Invoices,
    PartnerApi,
    Payments,
    Products,
    Result,
    __version__,
    response_of,
)
from .errors import ERROR_CODES, PartnerApiError, PartnerApiNetworkError, RateLimitInfo, Response
from .offline import OfflineQueue, RefConflictError, StoreKeyMismatchError, StoreLockedError
from .nuit import compact_nuit, format_nuit, is_valid_nuit, nuit_check_digit
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "ERROR_CODES",
    "Customers",
    "DeprecationInfo",
    "Invoices",
    "OfflineQueue",
    "PaceInfo",
    "PartnerApi",
    "PartnerApiDeprecationWarning",
    "PartnerApiError",
    "PartnerApiNetworkError",
    "Payments",
    "Products",
    "RateLimitInfo",
    "RateLimitState",
    "RefConflictError",
    "Response",
    "StoreKeyMismatchError",
    "StoreLockedError",
    "Result",
    "RetryInfo",
    "WebhookVerificationError",
    "__version__",
    "compact_nuit",
    "format_nuit",
    "is_valid_nuit",
    "nuit_check_digit",
    "read_deprecation",
    "response_of",
    "verify_webhook",
]
