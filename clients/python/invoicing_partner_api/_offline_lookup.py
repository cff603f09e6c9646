"""After the 24 hours an Idempotency-Key lives on the server, resending an entry with it could create
the record a second time. So an entry sent before with a key that may have expired is first looked
for, through the client's lists, among the records changed since that first send: an invoice by its
``reference``, a product by its ``sku``, a customer by NUIT, e-mail or phone."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any, Callable, Dict, Optional, Union

from .client import PartnerApi, _Collection


def iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def find(api: PartnerApi, path: str, body: bytes, since: float) -> Union[int, str, None]:
    """The id of the record a POST may have created, None, or why it cannot be told (a str)."""
    data = json.loads(body.decode("utf-8"))
    query: Dict[str, Any] = {"updated_since": iso(since)}
    if path == "/invoices":
        reference = _text(data.get("reference"))
        if reference is None:
            return "a factura não tem reference"
        return _scan(api.invoices, query, lambda item: item.get("reference") == reference)
    if path == "/products":
        sku = _text(data.get("sku"))
        if sku is None:
            return "o produto não tem sku"
        return _scan(api.products, {**query, "search": sku}, lambda item: item.get("sku") == sku)
    nuit = _digits(data.get("nuit"))
    email = (_text(data.get("email")) or "").lower()
    phone = _digits(data.get("phone"))
    search = nuit or email or _text(data.get("phone"))
    if not search:
        return "o cliente não tem NUIT, e-mail nem telefone"

    def matches(item: Dict[str, Any]) -> bool:
        if nuit:
            return _digits(item.get("nuit")) == nuit
        if email:
            return (item.get("email") or "").lower() == email
        return bool(phone) and _digits(item.get("phone")) == phone

    return _scan(api.customers, {**query, "search": search}, matches)


def _scan(collection: _Collection, query: Dict[str, Any], matches: Callable[[Dict[str, Any]], bool]) -> Optional[int]:
    for item in collection.list_all(**query, sort="updated_at", order="asc"):
        if matches(item):
            return int(item["id"])
    return None


def _digits(value: Any) -> str:
    return re.sub(r"[^0-9]", "", value) if isinstance(value, str) else ""


def _text(value: Any) -> Optional[str]:
    return value.strip() if isinstance(value, str) and value.strip() else None
