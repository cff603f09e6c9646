"""Pacing: wait before a request that a rate limit the API announced would refuse, instead of
sending it and meeting a 429 (a refused request still counts against the limits).

What the client knows comes from the answers' IETF RateLimit headers:

    RateLimit-Policy: "key-minute";q=60;w=60, "key-writes-minute";q=10;w=60, ...
        every limit that counted the request, with its quota and window in seconds;
    RateLimit: "key-writes-minute";r=0;t=42
        the tightest of them: requests left and seconds until its window resets (every other limit
        of the policy has at least as many left).

The rules are those of the TypeScript and PHP clients, shared by every thread using one PartnerApi:
- a limit applies to the kind of request (read: GET, write: POST/PUT) whose answers listed it, and a
  limit that counts reads counts writes too;
- a request reserves one unit of every limit it applies to before it is sent; an answer sets the
  reported limit's remaining to its ``r`` minus the requests still in flight (on the same window, the
  lower of that and what was known: answers may arrive out of order);
- a request waits while a limit it applies to has nothing left, until that limit's reset (then its
  quota is back), or, when the reset is unknown, until an answer in flight says more;
- until the first answer to a kind of request has arrived, one request of that kind at a time; a
  server that sends no RateLimit headers is then never waited for;
- a wait longer than ``max_wait`` is not made: the request goes, and the server's 429 (with its
  Retry-After) ends the call, as for the per-day limit.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Set, Tuple

READ = "read"
WRITE = "write"
_KINDS = (READ, WRITE)
# Answers in the same window report resets at most this far apart (t is whole seconds).
_SAME_WINDOW = 1.5


@dataclass(frozen=True)
class PaceInfo:
    """Passed to ``on_pace`` before each wait."""

    kind: str
    #: The limit waited for, e.g. "key-writes-minute".
    limit: str
    #: Seconds.
    delay: float


@dataclass(frozen=True)
class RateLimitState:
    """What the client knows of one limit (``PartnerApi.rate_limits()``)."""

    name: str
    quota: Optional[int]
    window_seconds: Optional[int]
    #: Requests this client may still send in the current window (its own reservations deducted).
    remaining: Optional[int]
    #: Seconds until the window resets, when known.
    reset_in: Optional[float]
    applies_to: Tuple[str, ...]


@dataclass
class _Limit:
    quota: Optional[int] = None
    window_seconds: Optional[int] = None
    remaining: Optional[int] = None
    reset_at: Optional[float] = None
    kinds: Set[str] = field(default_factory=set)

    def applies(self, kind: str) -> bool:
        return kind in self.kinds or (kind == WRITE and READ in self.kinds)


class Ticket:
    __slots__ = ("kind", "released")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.released = False


class Pacer:
    def __init__(
        self,
        max_wait: float,
        on_pace: Optional[Callable[[PaceInfo], None]] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_wait = max_wait
        self._on_pace = on_pace
        self._clock = clock
        self._limits: Dict[str, _Limit] = {}
        self._in_flight = {READ: 0, WRITE: 0}
        self._answered = {READ: False, WRITE: False}
        self._changed = threading.Condition()

    def acquire(self, kind: str) -> Ticket:
        """Waits until a request of this kind may go, then reserves it."""
        with self._changed:
            while True:
                now = self._clock()
                self._expire(now)
                wait = self._blocker(kind, now)
                if wait is None or (wait[1] is not None and wait[1] - now > self._max_wait):
                    self._reserve(kind)
                    return Ticket(kind)
                limit, until = wait
                if until is None:
                    self._changed.wait()
                else:
                    delay = until - now
                    if self._on_pace is not None:
                        self._on_pace(PaceInfo(kind=kind, limit=limit, delay=delay))
                    self._changed.wait(timeout=delay)

    def release(self, ticket: Ticket, headers: Optional[Mapping[str, str]]) -> None:
        """Ends a reservation: with the answer's headers, or None when no answer came."""
        with self._changed:
            if ticket.released:
                return
            ticket.released = True
            self._in_flight[ticket.kind] -= 1
            if headers is not None:
                self._answered[ticket.kind] = True
                self._learn(ticket.kind, headers, self._clock())
            self._changed.notify_all()

    def snapshot(self) -> List[RateLimitState]:
        with self._changed:
            now = self._clock()
            self._expire(now)
            return [
                RateLimitState(
                    name=name,
                    quota=limit.quota,
                    window_seconds=limit.window_seconds,
                    remaining=limit.remaining,
                    reset_in=None if limit.reset_at is None else max(0.0, limit.reset_at - now),
                    applies_to=tuple(kind for kind in _KINDS if limit.applies(kind)),
                )
                for name, limit in self._limits.items()
            ]

    def _expire(self, now: float) -> None:
        for limit in self._limits.values():
            if limit.reset_at is not None and now >= limit.reset_at:
                limit.remaining = limit.quota
                limit.reset_at = None

    def _blocker(self, kind: str, now: float) -> Optional[Tuple[str, Optional[float]]]:
        """Why a request of this kind must wait now (the latest reset among exhausted limits), or None."""
        if not self._answered[kind] and self._in_flight[kind] > 0:
            return ("(first answer)", None)
        found: Optional[Tuple[str, Optional[float]]] = None
        for name, limit in self._limits.items():
            if not limit.applies(kind) or limit.remaining is None or limit.remaining > 0:
                continue
            if limit.reset_at is not None and limit.reset_at > now:
                if found is None or found[1] is None or limit.reset_at > found[1]:
                    found = (name, limit.reset_at)
            elif found is None and self._in_flight_for(limit) > 0:
                found = (name, None)
        return found

    def _reserve(self, kind: str) -> None:
        self._in_flight[kind] += 1
        for limit in self._limits.values():
            if limit.applies(kind) and limit.remaining is not None:
                limit.remaining -= 1

    def _in_flight_for(self, limit: _Limit) -> int:
        return sum(self._in_flight[kind] for kind in _KINDS if limit.applies(kind))

    def _limit(self, name: str) -> _Limit:
        if name not in self._limits:
            self._limits[name] = _Limit()
        return self._limits[name]

    def _learn(self, kind: str, headers: Mapping[str, str], now: float) -> None:
        policy = parse_list(headers.get("ratelimit-policy"))
        for name, params in policy:
            limit = self._limit(name)
            limit.kinds.add(kind)
            if "q" in params:
                limit.quota = params["q"]
            if "w" in params:
                limit.window_seconds = params["w"]
        for name, params in parse_list(headers.get("ratelimit")):
            if "r" not in params:
                continue
            r = params["r"]
            reported = self._limit(name)
            reported.kinds.add(kind)
            lower = r - self._in_flight_for(reported)
            reset_at = now + params["t"] if "t" in params else None
            same_window = (
                reset_at is not None
                and reported.reset_at is not None
                and abs(reset_at - reported.reset_at) <= _SAME_WINDOW
            )
            if same_window and reported.remaining is not None:
                reported.remaining = min(reported.remaining, lower)
            else:
                reported.remaining = lower
            if reset_at is not None:
                reported.reset_at = reset_at
            # The tightest limit has the fewest left: every other limit that counted this request has at least r.
            for other, _ in policy:
                if other == name:
                    continue
                limit = self._limit(other)
                bound = r - self._in_flight_for(limit)
                limit.remaining = bound if limit.remaining is None else max(limit.remaining, bound)


_MEMBER = re.compile(r'(?:"[^"]*"|[^,])+')
_NAME = re.compile(r'^"([^"]*)"$|^([A-Za-z*][A-Za-z0-9_.:/*-]*)$')
_PARAM = re.compile(r"^([a-z*][a-z0-9_.*-]*)=(-?[0-9]+)$")


def parse_list(value: Optional[str]) -> List[Tuple[str, Dict[str, int]]]:
    """A structured-field list as these headers use it: ``"name";a=1;b=2, "other";a=3``."""
    if not value:
        return []
    items = []
    for member in _MEMBER.findall(value):
        head, *params = [part.strip() for part in member.split(";")]
        name = _NAME.match(head)
        if not name:
            continue
        values: Dict[str, int] = {}
        for param in params:
            match = _PARAM.match(param)
            if match:
                values[match.group(1)] = int(match.group(2))
        items.append((name.group(1) if name.group(1) is not None else name.group(2), values))
    return items
