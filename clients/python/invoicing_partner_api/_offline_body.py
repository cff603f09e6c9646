"""Bodies of queued writes. ``{"$local": id}`` stands for the id the server will give an entry still
queued; it is encoded as ``{"$local":"<id>"}``, and that text can only be such an object (inside a
JSON string every quote is escaped), so it is replaced in the bytes themselves, once, before the
first send: the rest of the body keeps its exact bytes."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._json import IsMoney, encode_json, invoice_money, no_money, product_money

_LOCAL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
_LOCAL_REF = re.compile(r'\{"\$local":"([0-9a-f-]{36})"\}')

# The writes a queue takes, with the money fields of each (_json's rules).
_ROUTES = [
    ("POST", re.compile(r"/customers\Z"), no_money),
    ("POST", re.compile(r"/products\Z"), product_money),
    ("POST", re.compile(r"/invoices\Z"), invoice_money),
    ("PUT", re.compile(r"/customers/[1-9][0-9]*\Z"), no_money),
    ("PUT", re.compile(r"/products/[1-9][0-9]*\Z"), product_money),
]


def encode(method: str, path: str, body: Any) -> Tuple[bytes, List[str]]:
    """The body's JSON bytes (money as number literals) and the local ids it names."""
    is_money: Optional[IsMoney] = None
    for route_method, pattern, money in _ROUTES:
        if route_method == method and pattern.match(path):
            is_money = money
    if is_money is None:
        raise TypeError(
            f"{method} {path}: a fila aceita POST /customers, /products, /invoices e PUT /customers/{{id}}, /products/{{id}}"
        )
    if not isinstance(body, Mapping):
        raise TypeError("body: um dicionário")
    found: List[str] = []
    _locals_of(body, "", found)
    return encode_json(body, is_money).encode("utf-8"), found


def put_ids(body: bytes, ids: Dict[str, int]) -> bytes:
    """The body with each ``{"$local":"id"}`` replaced by the server's id of that entry."""
    return _LOCAL_REF.sub(lambda m: str(ids[m.group(1)]), body.decode("utf-8")).encode("utf-8")


def _locals_of(value: Any, where: str, found: List[str]) -> None:
    if isinstance(value, Mapping) and "$local" in value:
        local = value["$local"]
        if len(value) != 1 or not isinstance(local, str) or not _LOCAL_ID.match(local):
            raise TypeError(f"{where or 'body'}: {{'$local'}} leva só um id local devolvido por enqueue")
        if local not in found:
            found.append(local)
    elif isinstance(value, Mapping):
        for key, field in value.items():
            _locals_of(field, f"{where}.{key}" if where else str(key), found)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _locals_of(item, f"{where}.{index}", found)
