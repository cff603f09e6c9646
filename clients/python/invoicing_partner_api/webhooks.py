"""Verifying the service's webhook deliveries (Standard Webhooks, https://www.standardwebhooks.com).

- The signed content is ``{webhook-id}.{webhook-timestamp}.{raw body}``, HMAC-SHA256 keyed with the
  base64 bytes of the secret after ``whsec_``.
- ``webhook-signature`` holds one or more ``v1,<base64>`` entries separated by spaces (after a secret
  rotation the service signs with the new and the old secret for 24 hours): one match is enough.
- You may pass several secrets (yours, during your own switch-over): one match with any is enough.
- A timestamp more than ``tolerance`` seconds (default 300) away from your clock is refused, so an old
  delivery replayed by someone else is refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from decimal import Decimal
from typing import Any, Dict, Mapping, Optional, Sequence, Union

_SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = 300


class WebhookVerificationError(Exception):
    """The delivery is not one the service made with your secret (or is too old, or malformed).

    ``reason`` is one of "missing_header", "timestamp", "signature", "payload".
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    """A header from a dict of headers (any case) or a WSGI environ / Django META (HTTP_WEBHOOK_ID)."""
    environ_name = "HTTP_" + name.upper().replace("-", "_")
    getter = getattr(headers, "get", None)
    for candidate in (name, environ_name):
        value = getter(candidate) if getter else None
        if value is not None:
            return value if isinstance(value, str) else " ".join(value)
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() in (name, environ_name.lower()):
            return value if isinstance(value, str) else " ".join(value)
    return None


def _secret_key(secret: str) -> bytes:
    encoded = secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("a webhook secret is whsec_ followed by base64") from error


def verify_webhook(
    payload: Union[bytes, str],
    headers: Mapping[str, Any],
    secret: Union[str, Sequence[str]],
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """Checks a delivery and returns its event (``id``, ``type``, ``created_at``, ``data``).

    ``payload`` is the raw body exactly as received (before any JSON parsing); ``secret`` is your
    ``whsec_...`` secret, or several. Raises WebhookVerificationError when the delivery must not be
    trusted. Numbers in the event are parsed as Decimal; money is decimal text anyway.
    """
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise ValueError("no webhook secret given")
    keys = [_secret_key(one) for one in secrets]
    message_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not message_id or not timestamp or not signatures:
        raise WebhookVerificationError(
            "missing_header", "webhook-id, webhook-timestamp and webhook-signature are required"
        )
    if not timestamp.isdigit() or not timestamp.isascii():
        raise WebhookVerificationError("timestamp", "webhook-timestamp is not a number")
    current = int(time.time() if now is None else now)
    if abs(current - int(timestamp)) > tolerance:
        raise WebhookVerificationError("timestamp", f"webhook-timestamp is more than {tolerance} s away from now")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    signed = f"{message_id}.{timestamp}.".encode("utf-8") + body
    candidates = []
    for entry in signatures.split(" "):
        if entry.startswith("v1,"):
            try:
                candidates.append(base64.b64decode(entry[3:], validate=True))
            except (binascii.Error, ValueError):
                continue
    matched = False
    for key in keys:
        expected = hmac.new(key, signed, hashlib.sha256).digest()
        for candidate in candidates:
            if hmac.compare_digest(expected, candidate):
                matched = True
    if not matched:
        raise WebhookVerificationError("signature", "no webhook-signature matches the secret")
    try:
        return json.loads(body.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, ValueError) as error:
        raise WebhookVerificationError("payload", "the signed body is not JSON") from error
