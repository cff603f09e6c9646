"""Request bodies, encoded once per call: a retry resends these very bytes.

Money goes in as ``decimal.Decimal`` or as decimal strings ("1250.50") and the API takes it as JSON
numbers. The encoder writes a Decimal anywhere, and a decimal string at a money field, as the number
literal itself (its exact digits, no exponent), so an amount never passes through a binary float. A
float at a money field is refused (TypeError); elsewhere (quantities, rates) a float is written as
Python's shortest repr. A string at a money field that is not a plain decimal ("12,50") is sent as a
string, and the API answers 422 validation_failed naming the field.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from decimal import Decimal
from typing import Any, Callable, Mapping, Tuple, Union

Path = Tuple[Union[str, int], ...]
IsMoney = Callable[[Path], bool]

# A JSON number literal without exponent: what a decimal string may be written as.
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?\Z")


def encode_json(value: Any, is_money: IsMoney) -> str:
    """Compact JSON text of ``value`` (keys in their order), with the money rules above."""
    return _encode(value, (), is_money)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _encode(value: Any, path: Path, is_money: IsMoney) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{_where(path)}: {value} is not a JSON number")
        return format(value, "f")
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if is_money(path):
            raise TypeError(
                f"{_where(path)}: money must be a Decimal or a decimal string such as '12.50', never a float"
            )
        if not math.isfinite(value):
            raise ValueError(f"{_where(path)}: {value} is not a JSON number")
        return json.dumps(value)
    if isinstance(value, str):
        return value if is_money(path) and _DECIMAL.match(value) else _string(value)
    if isinstance(value, datetime.date):
        return _string(value.isoformat())
    if isinstance(value, Mapping):
        fields = []
        for key, field in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{_where(path)}: object keys must be strings, not {type(key).__name__}")
            fields.append(_string(key) + ":" + _encode(field, path + (key,), is_money))
        return "{" + ",".join(fields) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_encode(item, path + (i,), is_money) for i, item in enumerate(value)) + "]"
    raise TypeError(f"{_where(path)}: {type(value).__name__} cannot be sent as JSON")


def _where(path: Path) -> str:
    return ".".join(str(part) for part in path) or "body"


def no_money(path: Path) -> bool:
    return False


def product_money(path: Path) -> bool:
    return len(path) == 1 and path[0] in ("price", "pos_price")


def invoice_money(path: Path) -> bool:
    return len(path) == 3 and path[0] == "items" and isinstance(path[1], int) and path[2] == "price"
