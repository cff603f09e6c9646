"""OfflineQueue: writes made while the line is down, kept on disk and sent exactly once when it is back.

The same rules as the TypeScript and PHP clients' queues:

- ``enqueue`` writes the request, its Idempotency-Key (made there, once) and its body bytes to a
  SQLite store (``synchronous=FULL``: on disk before it returns) and returns the entry's local id;
- ``flush`` sends the entries oldest first, each with its key and the same bytes on every attempt;
  an entry is done only when an answer says so; ``{"$local": id}`` is replaced by the server's id
  once, before the first send, and that body is stored before it goes;
- the time of an entry's first send is stored before it goes: an entry never sent with its key cannot
  have created anything; one sent more than 24 h minus a margin ago is first looked for (an invoice
  by ``reference``, a product by ``sku``, a customer by NUIT, e-mail or phone) and, if not found,
  sent with a new key;
- refusals (4xx) move the entry, and then the entries that name it, to the failed list; no answer,
  429 and 5xx after the client's retries end the flush and keep the entry pending;
- one process per store (an ``flock``, on Windows ``msvcrt.locking``, on a lock file; the system
  releases it when the process dies), and a store refuses another API key than the one it was made with (only a salted hash of
  the key is kept).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import sqlite3
import time
import urllib.request
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional

from ._json import IsMoney, encode_json, invoice_money, no_money, product_money
from ._pacing import Pacer, PaceInfo
from ._transport import Transport, no_redirect_opener
from .client import __version__
from .errors import PartnerApiError, PartnerApiNetworkError

try:  # POSIX
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # Windows
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]

DAY = 24 * 60 * 60.0

_LOCAL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
# Inside a JSON string every quote is escaped: this text can only be a {"$local": id} object.
_LOCAL_REF = re.compile(r'\{"\$local":"([0-9a-f-]{36})"\}')

_ROUTES = [
    ("POST", re.compile(r"/customers\Z"), no_money),
    ("POST", re.compile(r"/products\Z"), product_money),
    ("POST", re.compile(r"/invoices\Z"), invoice_money),
    ("PUT", re.compile(r"/customers/[1-9][0-9]*\Z"), no_money),
    ("PUT", re.compile(r"/products/[1-9][0-9]*\Z"), product_money),
]

_SCHEMA = """
create table if not exists meta (name text primary key, value text not null);
create table if not exists entries (
  seq integer primary key autoincrement,
  id text not null unique,
  method text not null,
  path text not null,
  key text not null,
  body blob not null,
  waits_for text not null,
  enqueued_at real not null,
  first_attempt_at real,
  state text not null default 'pending',
  server_id integer,
  found integer not null default 0,
  error text
);
"""

# Added with the till's own reference (a store made before gets them on open).
_REF_COLUMNS = (("ref", "text"), ("ref_digest", "text"))
_MAX_REF = 200


class StoreLockedError(Exception):
    """Another process holds the store."""


class StoreKeyMismatchError(Exception):
    """The store was made with another API key."""


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
    if ref is None:
        return None
    if not isinstance(ref, str) or not 0 < len(ref) <= _MAX_REF:
        raise TypeError(f"ref must be a string of 1 to {_MAX_REF} characters")
    return ref


def _ref_digest(method: str, path: str, encoded: bytes) -> str:
    return hashlib.sha256(f"{method} {path}\n".encode("utf-8") + encoded).hexdigest()


def _private(path: str) -> None:
    """The owner's only: the store holds customers' names, NUITs and e-mails (a looser one is tightened)."""
    if os.path.exists(path):
        os.chmod(path, 0o600)


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def _locals_of(value: Any, where: str, found: List[str]) -> None:
    if isinstance(value, Mapping):
        if "$local" in value:
            local = value["$local"]
            if len(value) != 1 or not isinstance(local, str) or not _LOCAL_ID.match(local):
                raise TypeError(f"{where or 'body'}: {{'$local'}} takes only a local id returned by enqueue")
            if local not in found:
                found.append(local)
            return
        for key, field in value.items():
            _locals_of(field, f"{where}.{key}" if where else str(key), found)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _locals_of(item, f"{where}.{index}", found)


def _encode(method: str, path: str, body: Any) -> tuple:
    is_money: Optional[IsMoney] = None
    for route_method, pattern, money in _ROUTES:
        if route_method == method and pattern.match(path):
            is_money = money
    if is_money is None:
        raise TypeError(
            f"{method} {path}: a fila aceita POST /customers, /products, /invoices e PUT /customers/{{id}}, /products/{{id}}"
        )
    if not isinstance(body, Mapping):
        raise TypeError("body must be a mapping")
    found: List[str] = []
    _locals_of(body, "", found)
    return encode_json(body, is_money).encode("utf-8"), found


def _digits(value: Any) -> str:
    return re.sub(r"[^0-9]", "", value) if isinstance(value, str) else ""


def _text(value: Any) -> Optional[str]:
    return value.strip() if isinstance(value, str) and value.strip() else None


class OfflineQueue:
    """A till's queue of writes, on disk at ``path`` (a directory of its own), for one API key."""

    def __init__(self, path: str, conn: sqlite3.Connection, lock_fd: int, transport: Transport, pacer: Pacer,
                 clock: Callable[[], float], key_expiry_margin: float, lookup_skew: float) -> None:
        self._path = path
        self._db = conn
        self._lock_fd: Optional[int] = lock_fd
        self._transport = transport
        self._pacer = pacer
        self._clock = clock
        self._key_expiry_margin = key_expiry_margin
        self._lookup_skew = lookup_skew

    @classmethod
    def open(
        cls,
        path: str,
        *,
        api_key: str,
        base_url: str,
        clock: Callable[[], float] = time.time,
        key_expiry_margin: float = 3600.0,
        lookup_skew: float = 3600.0,
        max_retries: int = 4,
        timeout: float = 30.0,
        retry_base_delay: float = 1.0,
        max_retry_wait: float = 60.0,
        on_pace: Optional[Callable[[PaceInfo], None]] = None,
        opener: Optional[urllib.request.OpenerDirector] = None,
    ) -> "OfflineQueue":
        """Opens (or makes) the store; ``StoreLockedError`` while another process holds it."""
        if not isinstance(api_key, str) or not api_key:
            raise TypeError("api_key is required")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise TypeError("base_url must be an http(s) address ending in /api/v1/partner")
        # The owner's only (0700, its files 0600): the entries hold customers' names, NUITs and
        # e-mails. A folder made looser before (or by hand) is tightened.
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.chmod(path, 0o700)
        lock_fd = os.open(os.path.join(path, "lock"), os.O_RDWR | os.O_CREAT, 0o600)
        os.chmod(os.path.join(path, "lock"), 0o600)
        try:
            _lock(lock_fd)
        except OSError:
            holder = os.read(lock_fd, 32).decode("ascii", "replace").strip("\x00 ")
            os.close(lock_fd)
            raise StoreLockedError(f"a fila em {path} está em uso pelo processo {holder or '?'}") from None
        try:
            # The holder's pid, for the message of a refused open (after the locked first byte).
            os.ftruncate(lock_fd, 1)
            os.lseek(lock_fd, 1, os.SEEK_SET)
            os.write(lock_fd, str(os.getpid()).encode())
            store = os.path.join(path, "queue.sqlite3")
            # Made 0600 before SQLite opens it: its -wal and -shm files take the same mode.
            os.close(os.open(store, os.O_RDWR | os.O_CREAT, 0o600))
            for file in (store, store + "-wal", store + "-shm"):
                _private(file)
            conn = sqlite3.connect(store, isolation_level=None)
            conn.execute("pragma journal_mode=wal")
            conn.execute("pragma synchronous=full")
            conn.executescript(_SCHEMA)
            columns = {row[1] for row in conn.execute("pragma table_info(entries)")}
            for name, kind in _REF_COLUMNS:
                if name not in columns:
                    conn.execute(f"alter table entries add column {name} {kind}")
            conn.execute("create unique index if not exists entries_ref on entries (ref) where ref is not null")
            row = conn.execute("select value from meta where name = 'key'").fetchone()
            if row is None:
                salt = os.urandom(16).hex()
                digest = hashlib.sha256((salt + api_key).encode()).hexdigest()
                conn.execute("insert into meta (name, value) values ('key', ?)", (f"{salt}:{digest}",))
            else:
                salt, digest = row[0].split(":")
                if hashlib.sha256((salt + api_key).encode()).hexdigest() != digest:
                    conn.close()
                    raise StoreKeyMismatchError(
                        f"a fila em {path} foi criada com outra chave: use uma fila por caixa e por chave"
                    )
        except BaseException:
            os.close(lock_fd)
            raise
        pacer = Pacer(max_retry_wait, on_pace)
        transport = Transport(
            api_key=api_key,
            base_url=base_url,
            max_retries=int(max_retries),
            timeout=float(timeout),
            retry_base_delay=float(retry_base_delay),
            max_retry_wait=float(max_retry_wait),
            user_agent=f"invoicing-partner-api-python/{__version__} offline-queue",
            on_retry=None,
            pacer=pacer,
            opener=opener if opener is not None else no_redirect_opener(),
        )
        return cls(path, conn, lock_fd, transport, pacer, clock, key_expiry_margin, lookup_skew)

    def __enter__(self) -> "OfflineQueue":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._lock_fd is None:
            return
        self._db.close()
        _unlock(self._lock_fd)
        os.close(self._lock_fd)
        self._lock_fd = None

    # -- enqueue and the caller's view ------------------------------------------------------------

    def enqueue(self, method: str, path: str, body: Mapping[str, Any], *, ref: Optional[str] = None) -> str:
        """Stores a write (POST /customers, /products, /invoices; PUT /customers/{id}, /products/{id})
        and returns its local id. ``{"$local": id}`` stands for the id of an entry enqueued before. An
        invoice without ``reference`` gets a unique one (the 24 h look-up needs it).

        ``ref`` is the till's own identifier of the operation (its sale number): enqueued again with
        the same ``ref`` and the same body (after a crash, say), the entry already held is returned,
        never a second one; with another body it is refused (``RefConflictError``). Without ``ref``,
        each call is a new entry."""
        self._open()
        ref = _ref_of(ref)
        digest = None
        if ref is not None:
            # What a repeat must match: the call as the till made it (before the queue's reference).
            digest = _ref_digest(method, path, _encode(method, path, body)[0])
            held = self._db.execute("select id, ref_digest from entries where ref = ?", (ref,)).fetchone()
            if held is not None:
                if held[1] != digest:
                    raise RefConflictError(ref, held[0])
                return held[0]
        if method == "POST" and path == "/invoices" and isinstance(body, Mapping) and not body.get("reference"):
            body = {**body, "reference": f"fila-{uuid.uuid4()}"}
        encoded, waits_for = _encode(method, path, body)
        for local in waits_for:
            row = self._db.execute("select method, state from entries where id = ?", (local,)).fetchone()
            if row is None or row[0] != "POST" or row[1] == "discarded":
                raise TypeError(f"{{'$local': {local}}} não é uma criação desta fila")
        local_id = str(uuid.uuid4())
        self._db.execute(
            "insert into entries (id, method, path, key, body, waits_for, enqueued_at, ref, ref_digest)"
            " values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (local_id, method, path, str(uuid.uuid4()), encoded, json.dumps(waits_for), self._clock(), ref, digest),
        )
        return local_id

    def by_ref(self, ref: str) -> Optional[Dict[str, Any]]:
        """What the queue holds for the till's reference ``ref`` (given to enqueue): its ``local_id``
        and result (state, the server's id once done, the refusal once failed), or None. Read from the
        store, so it answers after a crash as before it."""
        self._open()
        row = self._db.execute("select id from entries where ref = ?", (_ref_of(ref),)).fetchone()
        if row is None:
            return None
        return {"local_id": row[0], **self.result(row[0])}

    def status(self) -> Dict[str, Any]:
        self._open()
        counts = {"pending": 0, "done": 0, "failed": 0, "discarded": 0}
        for state, count in self._db.execute("select state, count(*) from entries group by state"):
            counts[state] = count
        oldest = self._db.execute("select min(enqueued_at) from entries where state = 'pending'").fetchone()[0]
        wait = self._empty_in(counts["pending"])
        return {
            **counts,
            "oldest_pending_at": None if oldest is None else _iso(oldest),
            "estimated_empty_at": None if wait is None else _iso(self._clock() + wait),
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
        self._open()
        rows = self._db.execute(
            "select id, method, path, body, enqueued_at, error from entries where state = 'failed' order by seq"
        ).fetchall()
        return [
            {
                "local_id": row[0],
                "method": row[1],
                "path": row[2],
                "body": bytes(row[3]).decode("utf-8"),
                "enqueued_at": _iso(row[4]),
                "error": json.loads(row[5]),
            }
            for row in rows
        ]

    def resend(self, local_id: str, body: Optional[Mapping[str, Any]] = None) -> None:
        """Puts a failed entry back, with a corrected body if given, and a new key (the refusal created
        nothing); the entries that failed waiting for it wait again. Its place in the order is kept."""
        entry = self._entry(local_id)
        if entry["state"] != "failed":
            raise TypeError(f"{local_id}: só uma entrada falhada se reenvia")
        encoded, waits_for = (entry["body"], json.loads(entry["waits_for"])) if body is None else _encode(
            entry["method"], entry["path"], body
        )
        self._db.execute("begin immediate")
        try:
            self._reset(local_id, encoded, waits_for)
            for row in self._db.execute(
                "select id, body, waits_for from entries where state = 'failed' and json_extract(error, '$.depends_on') = ?",
                (local_id,),
            ).fetchall():
                self._reset(row[0], bytes(row[1]), json.loads(row[2]))
            self._db.execute("commit")
        except BaseException:
            self._db.execute("rollback")
            raise

    def discard(self, local_id: str) -> None:
        """Gives a failed entry up for good (entries that name it stay failed)."""
        entry = self._entry(local_id)
        if entry["state"] != "failed":
            raise TypeError(f"{local_id}: só uma entrada falhada se descarta")
        self._db.execute("update entries set state = 'discarded' where id = ?", (local_id,))

    # -- flush ------------------------------------------------------------------------------------

    def flush(self) -> Dict[str, Any]:
        """Sends the pending entries, oldest first. Returns when none is left to send, when the API
        does not answer (``stopped: offline``) or is busy (429 or 5xx beyond the retries)."""
        self._open()
        result: Dict[str, Any] = {"sent": 0, "found": 0, "failed": 0, "pending": 0, "stopped": "empty"}
        ids = [row[0] for row in self._db.execute("select id from entries where state = 'pending' order by seq")]
        for local_id in ids:
            try:
                result[self._send_one(self._entry(local_id))] += 1
            except PartnerApiNetworkError:
                result["stopped"] = "offline"
                break
            except PartnerApiError as error:
                if error.status == 401 or _refusal(error):
                    raise
                result["stopped"] = "busy"
                break
        result["pending"] = self._db.execute("select count(*) from entries where state = 'pending'").fetchone()[0]
        return result

    def _send_one(self, entry: Dict[str, Any]) -> str:
        local_id = entry["id"]
        waits_for = json.loads(entry["waits_for"])
        body = bytes(entry["body"])
        if waits_for:
            ids: Dict[str, int] = {}
            for local in waits_for:
                row = self._db.execute("select state, server_id from entries where id = ?", (local,)).fetchone()
                if row is None or row[0] != "done":
                    self._fail(local_id, {
                        "status": None,
                        "code": "dependency_failed",
                        "message": f"espera pela entrada {local}, que não foi criada",
                        "request_id": None,
                        "depends_on": local,
                    })
                    return "failed"
                ids[local] = row[1]
            text = _LOCAL_REF.sub(lambda m: str(ids[m.group(1)]), body.decode("utf-8"))
            body = text.encode("utf-8")
            self._db.execute("update entries set body = ?, waits_for = '[]' where id = ?", (body, local_id))
        first = entry["first_attempt_at"]
        key = entry["key"]
        if first is not None and self._clock() - first >= DAY - self._key_expiry_margin:
            if entry["method"] == "POST":
                found = self._look_up(entry["path"], body, first - self._lookup_skew)
                if isinstance(found, str):
                    self._fail(local_id, {"status": None, "code": "unverifiable", "message": found, "request_id": None})
                    return "failed"
                if found is not None:
                    self._db.execute(
                        "update entries set state = 'done', server_id = ?, found = 1, error = null where id = ?",
                        (found, local_id),
                    )
                    return "found"
            # Not created (or a PUT, which sets the same fields again): a new key for a new first send.
            key = str(uuid.uuid4())
            self._db.execute("update entries set key = ?, first_attempt_at = null where id = ?", (key, local_id))
            first = None
        if first is None:
            self._db.execute("update entries set first_attempt_at = ? where id = ?", (self._clock(), local_id))
        try:
            answer, _ = self._transport.call(entry["method"], entry["path"], body=body, idempotency_key=key)
        except PartnerApiError as error:
            if error.status == 401 or not _refusal(error):
                raise
            failure = {"status": error.status, "code": error.code, "message": str(error.message), "request_id": error.request_id}
            if error.errors:
                failure["errors"] = error.errors
            self._fail(local_id, failure)
            return "failed"
        self._db.execute(
            "update entries set state = 'done', server_id = ?, error = null where id = ?",
            (int(answer["data"]["id"]), local_id),
        )
        return "sent"

    def _look_up(self, path: str, body: bytes, since: float) -> Any:
        """The id of the record a POST may have created, None, or why it cannot be told (a str)."""
        data = json.loads(body.decode("utf-8"))
        query: Dict[str, Any] = {"updated_since": _iso(since)}
        if path == "/invoices":
            reference = _text(data.get("reference"))
            if reference is None:
                return "a factura não tem reference"
            return self._scan("invoices", query, lambda item: item.get("reference") == reference)
        if path == "/products":
            sku = _text(data.get("sku"))
            if sku is None:
                return "o produto não tem sku"
            return self._scan("products", {**query, "search": sku}, lambda item: item.get("sku") == sku)
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

        return self._scan("customers", {**query, "search": search}, matches)

    def _scan(self, collection: str, query: Dict[str, Any], matches: Callable[[Dict[str, Any]], bool]) -> Optional[int]:
        page = 1
        while True:
            answer, _ = self._transport.call(
                "GET", f"/{collection}", query={**query, "sort": "updated_at", "order": "asc", "per_page": 100, "page": page}
            )
            for item in answer["data"]:
                if matches(item):
                    return int(item["id"])
            pagination = answer["pagination"]
            if pagination["current_page"] >= pagination["last_page"] or not answer["data"]:
                return None
            page += 1

    # -- helpers ----------------------------------------------------------------------------------

    def _open(self) -> None:
        if self._lock_fd is None:
            raise RuntimeError("a fila está fechada")

    def _entry(self, local_id: str) -> Dict[str, Any]:
        self._open()
        cursor = self._db.execute("select * from entries where id = ?", (local_id,))
        row = cursor.fetchone()
        if row is None:
            raise TypeError(f"{local_id}: não é uma entrada desta fila")
        return dict(zip([c[0] for c in cursor.description], row))

    def _fail(self, local_id: str, error: Dict[str, Any]) -> None:
        self._db.execute("update entries set state = 'failed', error = ? where id = ?", (json.dumps(error), local_id))

    def _reset(self, local_id: str, body: bytes, waits_for: List[str]) -> None:
        self._db.execute(
            "update entries set state = 'pending', key = ?, body = ?, waits_for = ?, first_attempt_at = null, error = null where id = ?",
            (str(uuid.uuid4()), body, json.dumps(waits_for), local_id),
        )

    def _empty_in(self, writes: int) -> Optional[float]:
        """Seconds until ``writes`` more writes fit in every write limit the client knows of."""
        if writes == 0:
            return 0.0
        longest: Optional[float] = None
        for limit in self._pacer.snapshot():
            if "write" not in limit.applies_to or not limit.quota or not limit.window_seconds:
                continue
            left = max(0, limit.remaining if limit.remaining is not None else limit.quota)
            beyond = writes - left
            wait = 0.0 if beyond <= 0 else (limit.reset_in or 0.0) + (-(-beyond // limit.quota) - 1) * limit.window_seconds
            longest = max(longest or 0.0, wait)
        return longest


def _refusal(error: PartnerApiError) -> bool:
    """A refusal for good: the entry itself is wrong (not the line, the limits or the server)."""
    if error.status == 429 or error.status >= 500:
        return False
    return not (error.status == 409 and error.code == "idempotency_request_in_flight")
