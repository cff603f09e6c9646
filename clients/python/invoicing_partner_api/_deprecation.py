"""Tells the program's developers when the API answers that a call uses something deprecated
(``Deprecation`` RFC 9745, ``Sunset`` RFC 8594, ``Link`` rel="deprecation"; the compatibility policy):
once per call site of the program, as a ``DeprecationWarning`` (``warnings``) pointing at that line,
or to ``on_deprecation`` instead."""

import os
import re
import sys
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Callable, Mapping, Optional, Set, Tuple

_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_LINK = re.compile(r'<([^>]*)>\s*;[^,]*rel="?deprecation"?', re.IGNORECASE)


class PartnerApiDeprecationWarning(DeprecationWarning):
    """The API said that a call uses something deprecated (see ``DeprecationInfo``)."""


@dataclass(frozen=True)
class DeprecationInfo:
    method: str
    #: The request's path under the base address, without its query (e.g. ``/customers``).
    path: str
    #: Since when it is deprecated (``Deprecation: @<seconds>``), or None.
    deprecated_at: Optional[datetime]
    #: From when it may stop working (``Sunset``), or None.
    sunset_at: Optional[datetime]
    #: The rel="deprecation" link: where the docs explain it.
    link: Optional[str]
    #: Where the program made the call (``file:line``), or None.
    call_site: Optional[str]

    def message(self) -> str:
        text = f"Partner API: {self.method} {self.path} uses something deprecated"
        if self.deprecated_at is not None:
            text += f" since {self.deprecated_at.date().isoformat()}"
        if self.sunset_at is not None:
            text += f", may stop working from {self.sunset_at.date().isoformat()}"
        if self.link is not None:
            text += f" ({self.link})"
        if self.call_site is not None:
            text += f", called at {self.call_site}"
        return text + "."


def read_deprecation(
    method: str, path: str, headers: Mapping[str, str], call_site: Optional[str] = None
) -> Optional[DeprecationInfo]:
    """The deprecation headers of an answer (any mapping with ``get``), or None when it has none."""
    deprecation = headers.get("deprecation")
    sunset = headers.get("sunset")
    if deprecation is None and sunset is None:
        return None
    since = None
    match = re.fullmatch(r"@(-?\d+)", (deprecation or "").strip())
    if match:
        since = datetime.fromtimestamp(int(match.group(1)), tz=timezone.utc)
    until = None
    if sunset is not None:
        try:
            until = parsedate_to_datetime(sunset)
        except (TypeError, ValueError):
            until = None
    link = _LINK.search(headers.get("link") or "")
    return DeprecationInfo(
        method, path.split("?", 1)[0], since, until, link.group(1) if link else None, call_site
    )


def _caller() -> Tuple[Optional[str], int, str]:
    """The first frame outside this package: its file, line and module name."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_OWN_DIR):
            return filename, frame.f_lineno, frame.f_globals.get("__name__", "")
        frame = frame.f_back  # type: ignore[assignment]
    return None, 0, ""


class Deprecations:
    def __init__(self, on_deprecation: Optional[Callable[[DeprecationInfo], None]] = None) -> None:
        self._on_deprecation = on_deprecation
        self._told: Set[str] = set()

    def notice(self, method: str, path: str, headers: Mapping[str, str]) -> None:
        if headers.get("deprecation") is None and headers.get("sunset") is None:
            return
        filename, line, module = _caller()
        site = f"{filename}:{line}" if filename else None
        info = read_deprecation(method, path, headers, site)
        if info is None:
            return
        key = f"{site} {method} {info.path}"
        if key in self._told:
            return
        self._told.add(key)
        if self._on_deprecation is not None:
            self._on_deprecation(info)
        else:
            # Shown at the program's own line (so filters by module and `-W error` work there).
            warnings.warn_explicit(
                info.message(), PartnerApiDeprecationWarning, filename or "<unknown>", line, module=module
            )
