"""The offline queue's store: a directory of the till's own (0700, files 0600: the entries hold
customers' names, NUITs and e-mails) with a lock file and a SQLite database (WAL,
``synchronous=FULL``), whose schema is the PHP client's, the same file (``offline-queue.sql``).

One process per store (an ``flock``, on Windows ``msvcrt.locking``, on the lock file; the system
releases it when the process dies); a store refuses another API key than the one it was made with
(only a salted hash of the key is kept).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from typing import Any, Dict, List, Optional, Sequence

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

_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "offline-queue.sql")


class StoreLockedError(Exception):
    """Another process holds the store."""


class StoreKeyMismatchError(Exception):
    """The store was made with another API key."""


class Store:
    def __init__(self, db: sqlite3.Connection, lock_fd: int) -> None:
        self._db = db
        self._lock_fd: Optional[int] = lock_fd

    @classmethod
    def open(cls, path: str, api_key: str) -> "Store":
        """Opens (or makes) the store; ``StoreLockedError`` while another process holds it."""
        # A folder made looser before (or by hand) is tightened.
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
            file = os.path.join(path, "queue.sqlite3")
            # Made 0600 before SQLite opens it: its -wal and -shm files take the same mode.
            os.close(os.open(file, os.O_RDWR | os.O_CREAT, 0o600))
            for made in (file, file + "-wal", file + "-shm"):
                if os.path.exists(made):
                    os.chmod(made, 0o600)
            store = cls(sqlite3.connect(file, isolation_level=None), lock_fd)
            with open(_SCHEMA, encoding="utf-8") as schema:
                store._db.executescript(schema.read())
            # A store made before the till's own reference gets its columns here.
            columns = {row["name"] for row in store.rows("pragma table_info(entries)")}
            for name in ("ref", "ref_digest"):
                if name not in columns:
                    store.run(f"alter table entries add column {name} text")
            store.run("create unique index if not exists entries_ref on entries (ref) where ref is not null")
            stored = store.row("select value from meta where name = 'key'")
            if stored is None:
                salt = os.urandom(16).hex()
                store.run("insert into meta (name, value) values ('key', ?)", (f"{salt}:{_digest(salt, api_key)}",))
            elif _digest(stored["value"].split(":")[0], api_key) != stored["value"].split(":")[1]:
                store._db.close()
                raise StoreKeyMismatchError(f"a fila em {path} foi criada com outra chave: use uma fila por caixa e por chave")
            return store
        except BaseException:
            os.close(lock_fd)
            raise

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._execute(sql, params)

    def row(self, sql: str, params: Sequence[Any] = ()) -> Optional[Dict[str, Any]]:
        found = self.rows(sql, params)
        return found[0] if found else None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> List[Dict[str, Any]]:
        cursor = self._execute(sql, params)
        names = [column[0] for column in cursor.description or ()]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def value(self, sql: str) -> Any:
        return self._execute(sql, ()).fetchone()[0]

    def transaction(self) -> "_Transaction":
        return _Transaction(self)

    def close(self) -> None:
        if self._lock_fd is None:
            return
        self._db.close()
        _unlock(self._lock_fd)
        os.close(self._lock_fd)
        self._lock_fd = None

    def _execute(self, sql: str, params: Sequence[Any]) -> sqlite3.Cursor:
        if self._lock_fd is None:
            raise RuntimeError("a fila está fechada")
        return self._db.execute(sql, params)


class _Transaction:
    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> None:
        self._store.run("begin immediate")

    def __exit__(self, kind: Any, *rest: Any) -> None:
        self._store.run("commit" if kind is None else "rollback")


def _digest(salt: str, api_key: str) -> str:
    return hashlib.sha256((salt + api_key).encode()).hexdigest()
