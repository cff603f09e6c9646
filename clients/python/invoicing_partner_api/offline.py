"""OfflineQueue: writes made while the line is down, kept on disk and sent exactly once when it is back.

The queue stores and orders entries; every request goes through its ``PartnerApi`` (one transport,
pacer, retry budget and deprecation report). The same rules as the TypeScript and PHP queues:

- ``enqueue`` writes the request, its Idempotency-Key (made there, once) and its body bytes to a
  SQLite store (``synchronous=FULL``: on disk before it returns) and returns the entry's local id;
- ``flush`` sends the entries oldest first, each with its key and the same bytes on every attempt;
  ``{"$local": id}`` is replaced by the server's id once, and that body is stored before it goes;
- the time of an entry's first send is stored before it goes; one sent more than 24 h minus a
  margin ago is looked for first (_offline_lookup.py) and, if not found, sent with a new key;
- refusals (4xx) move the entry, and then the entries that name it, to the failed list; no answer,
  429 and 5xx after the client's retries end the flush and keep the entry pending.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional

from . import _offline_body as bodies
from . import _offline_lookup as lookup
from ._offline_store import Store, StoreKeyMismatchError, StoreLockedError
from ._transport import retryable
from .client import PartnerApi
from .errors import PartnerApiError, PartnerApiNetworkError

__all__ = ["OfflineQueue", "RefConflictError", "StoreKeyMismatchError", "StoreLockedError"]

DAY = 24 * 60 * 60.0
_MAX_REF = 200


class RefConflictError(ValueError):
    """The same ``ref`` was enqueued before with another body: refused, nothing stored."""

    def __init__(self, ref: str, local_id: str) -> None:
        super().__init__(
            f"a referência {json.dumps(ref, ensure_ascii=False)} já está na fila (entrada {local_id}) com outro pedido: "
            "a mesma referência só se repete com o mesmo método, caminho e corpo"
        )
        #: The till's reference.
        self.ref = ref
        #: The local id of the entry already held for it.
        self.local_id = local_id


def _ref_of(ref: Any) -> Optional[str]:
    if ref is not None and (not isinstance(ref, str) or not 0 < len(ref) <= _MAX_REF):
        raise TypeError(f"ref: um texto de 1 a {_MAX_REF} caracteres")
    return ref


class OfflineQueue:
    """A till's queue of writes, on disk at ``path`` (a directory of its own), for one API key."""

    def __init__(self, store: Store, api: PartnerApi, clock: Callable[[], float], key_expiry_margin: float,
                 lookup_skew: float) -> None:
        self._store = store
        self._api = api
        self._clock = clock
        self._key_expiry_margin = key_expiry_margin
        self._lookup_skew = lookup_skew

    @classmethod
    def open(cls, path: str, *, api_key: str, base_url: str, clock: Callable[[], float] = time.time,
             key_expiry_margin: float = 3600.0, lookup_skew: float = 3600.0, **client_options: Any) -> "OfflineQueue":
        """Opens (or makes) the store; ``StoreLockedError`` while another process holds it.
        ``client_options`` are ``PartnerApi``'s (``max_retries``, ``retry_budget``, ``on_pace``,
        ``on_deprecation``...), with its defaults."""
        api = PartnerApi(api_key, base_url, **client_options)
        return cls(Store.open(path, api_key), api, clock, key_expiry_margin, lookup_skew)

    def __enter__(self) -> "OfflineQueue":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._store.close()

    def enqueue(self, method: str, path: str, body: Mapping[str, Any], *, ref: Optional[str] = None) -> str:
        """Stores a write (POST /customers, /products, /invoices; PUT /customers/{id}, /products/{id})
        and returns its local id. ``{"$local": id}`` stands for the id of an entry enqueued before. An
        invoice without ``reference`` gets a unique one (the 24 h look-up needs it).

        ``ref`` is the till's own identifier of the operation (its sale number): enqueued again with
        the same ``ref`` and the same body, the entry already held is returned; with another body it
        is refused (``RefConflictError``). Without ``ref``, each call is a new entry."""
        ref = _ref_of(ref)
        digest = None
        if ref is not None:
            # What a repeat must match: the call as the till made it (before the queue's reference).
            digest = hashlib.sha256(f"{method} {path}\n".encode("utf-8") + bodies.encode(method, path, body)[0]).hexdigest()
            held = self._store.row("select id, ref_digest from entries where ref = ?", (ref,))
            if held is not None:
                if held["ref_digest"] != digest:
                    raise RefConflictError(ref, held["id"])
                return held["id"]
        if method == "POST" and path == "/invoices" and isinstance(body, Mapping) and not body.get("reference"):
            body = {**body, "reference": f"fila-{uuid.uuid4()}"}
        encoded, waits_for = bodies.encode(method, path, body)
        for local in waits_for:
            row = self._store.row("select method, state from entries where id = ?", (local,))
            if row is None or row["method"] != "POST" or row["state"] == "discarded":
                raise TypeError(f"{{'$local': {local}}} não é uma criação desta fila")
        local_id = str(uuid.uuid4())
        self._store.run(
            "insert into entries (id, method, path, key, body, waits_for, enqueued_at, ref, ref_digest)"
            " values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (local_id, method, path, str(uuid.uuid4()), encoded, json.dumps(waits_for), self._clock(), ref, digest),
        )
        return local_id

    def by_ref(self, ref: str) -> Optional[Dict[str, Any]]:
        """What the queue holds for the till's reference ``ref`` (given to enqueue): its ``local_id``
        and result, or None. Read from the store, so it answers after a crash as before it."""
        row = self._store.row("select id from entries where ref = ?", (_ref_of(ref),))
        return None if row is None else {"local_id": row["id"], **self.result(row["id"])}

    def status(self) -> Dict[str, Any]:
        counts = {"pending": 0, "done": 0, "failed": 0, "discarded": 0}
        for row in self._store.rows("select state, count(*) as n from entries group by state"):
            counts[row["state"]] = row["n"]
        oldest = self._store.value("select min(enqueued_at) from entries where state = 'pending'")
        wait = self._api._writes_fit_in(counts["pending"])
        return {
            **counts,
            "oldest_pending_at": None if oldest is None else lookup.iso(oldest),
            "estimated_empty_at": None if wait is None else lookup.iso(self._clock() + wait),
        }

    def result(self, local_id: str) -> Dict[str, Any]:
        entry = self._entry(local_id)
        result: Dict[str, Any] = {"state": entry["state"]}
        if entry["server_id"] is not None:
            result["id"] = entry["server_id"]
        if entry["error"] is not None:
            result["error"] = json.loads(entry["error"])
        return result

    def failed(self) -> List[Dict[str, Any]]:
        return [
            {
                "local_id": row["id"],
                "method": row["method"],
                "path": row["path"],
                "body": bytes(row["body"]).decode("utf-8"),
                "enqueued_at": lookup.iso(row["enqueued_at"]),
                "error": json.loads(row["error"]),
            }
            for row in self._store.rows("select * from entries where state = 'failed' order by seq")
        ]

    def resend(self, local_id: str, body: Optional[Mapping[str, Any]] = None) -> None:
        """Puts a failed entry back, with a corrected body if given, and a new key (the refusal created
        nothing); the entries that failed waiting for it wait again. Its place in the order is kept."""
        entry = self._failed_entry(local_id, "reenvia")
        encoded, waits_for = (
            (entry["body"], json.loads(entry["waits_for"])) if body is None else bodies.encode(entry["method"], entry["path"], body)
        )
        reset = "update entries set state = 'pending', key = ?, body = ?, waits_for = ?, first_attempt_at = null, error = null where id = ?"
        with self._store.transaction():
            self._store.run(reset, (str(uuid.uuid4()), encoded, json.dumps(waits_for), local_id))
            dependants = "select id, body, waits_for from entries where state = 'failed' and json_extract(error, '$.depends_on') = ?"
            for row in self._store.rows(dependants, (local_id,)):
                self._store.run(reset, (str(uuid.uuid4()), row["body"], row["waits_for"], row["id"]))

    def discard(self, local_id: str) -> None:
        """Gives a failed entry up for good (entries that name it stay failed)."""
        self._failed_entry(local_id, "descarta")
        self._store.run("update entries set state = 'discarded' where id = ?", (local_id,))

    def flush(self) -> Dict[str, Any]:
        """Sends the pending entries, oldest first. Returns when none is left to send, when the API
        does not answer (``stopped: offline``) or is busy (429 or 5xx beyond the retries)."""
        result: Dict[str, Any] = {"sent": 0, "found": 0, "failed": 0, "pending": 0, "stopped": "empty"}
        for row in self._store.rows("select id from entries where state = 'pending' order by seq"):
            try:
                result[self._send_one(self._entry(row["id"]))] += 1
            except PartnerApiNetworkError:
                result["stopped"] = "offline"
                break
            except PartnerApiError as error:
                if not retryable(error):
                    raise
                result["stopped"] = "busy"
                break
        result["pending"] = self._store.value("select count(*) from entries where state = 'pending'")
        return result

    def _send_one(self, entry: Dict[str, Any]) -> str:
        local_id = entry["id"]
        body = bytes(entry["body"])
        ids: Dict[str, int] = {}
        for local in json.loads(entry["waits_for"]):
            row = self._store.row("select state, server_id from entries where id = ?", (local,))
            if row is None or row["state"] != "done":
                message = f"espera pela entrada {local}, que não foi criada"
                return self._fail(local_id, {"status": None, "code": "dependency_failed", "message": message,
                                             "request_id": None, "depends_on": local})
            ids[local] = row["server_id"]
        if ids:
            body = bodies.put_ids(body, ids)
            self._store.run("update entries set body = ?, waits_for = '[]' where id = ?", (body, local_id))
        first = entry["first_attempt_at"]
        key = entry["key"]
        if first is not None and self._clock() - first >= DAY - self._key_expiry_margin:
            if entry["method"] == "POST":
                found = lookup.find(self._api, entry["path"], body, first - self._lookup_skew)
                if isinstance(found, str):
                    return self._fail(local_id, {"status": None, "code": "unverifiable", "message": found, "request_id": None})
                if found is not None:
                    done = "update entries set state = 'done', server_id = ?, found = 1, error = null where id = ?"
                    self._store.run(done, (found, local_id))
                    return "found"
            # Not created (or a PUT, which sets the same fields again): a new key for a new first send.
            key = str(uuid.uuid4())
            self._store.run("update entries set key = ?, first_attempt_at = null where id = ?", (key, local_id))
            first = None
        if first is None:
            self._store.run("update entries set first_attempt_at = ? where id = ?", (self._clock(), local_id))
        try:
            answer = self._api._send(entry["method"], entry["path"], body, key)
        except PartnerApiError as error:
            if error.status == 401 or retryable(error):
                raise
            failure = {"status": error.status, "code": error.code, "message": str(error.message), "request_id": error.request_id}
            return self._fail(local_id, {**failure, **({"errors": error.errors} if error.errors else {})})
        done = "update entries set state = 'done', server_id = ?, error = null where id = ?"
        self._store.run(done, (int(answer["data"]["id"]), local_id))
        return "sent"

    def _entry(self, local_id: str) -> Dict[str, Any]:
        entry = self._store.row("select * from entries where id = ?", (local_id,))
        if entry is None:
            raise TypeError(f"{local_id}: não é uma entrada desta fila")
        return entry

    def _failed_entry(self, local_id: str, verb: str) -> Dict[str, Any]:
        entry = self._entry(local_id)
        if entry["state"] != "failed":
            raise TypeError(f"{local_id}: só uma entrada falhada se {verb}")
        return entry

    def _fail(self, local_id: str, error: Dict[str, Any]) -> str:
        self._store.run("update entries set state = 'failed', error = ? where id = ?", (json.dumps(error), local_id))
        return "failed"
