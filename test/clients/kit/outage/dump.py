"""Prints the entries of a Python or PHP offline queue's store (SQLite) as JSON, in queue order."""

import json
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}/queue.sqlite3?mode=ro", uri=True)
rows = db.execute("select id, path, body, state, server_id, error, found from entries order by seq").fetchall()
print(json.dumps([
    {"id": r[0], "path": r[1], "body": bytes(r[2]).decode("utf-8") if isinstance(r[2], bytes) else r[2],
     "state": r[3], "server_id": r[4], "error": r[5], "found": r[6]}
    for r in rows
]))
