"""A server's run history, copied row by row into a window's local copy of it.

The window on a laptop shows the runs of the server its engine is on from a SQLite
file of its own for that server (``mirror_path``), with the server's run ids, so the
History reads the same there as on the server, and stays readable when the server is
not reachable. The engine reads the rows its window lacks (``read_rows``: runs after
the last one the copy has, and again those the copy still has as running); the window
writes them in one transaction (``write_rows``). Tables and columns are the history's
own (history/schema.py): a newer schema's extra columns are left out, never guessed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpstudio.engine.history.locations import history_path
from mpstudio.engine.history.schema import SCHEMA_VERSION
from mpstudio.engine.history.store import RunStore

METRIC_TABLES = ("steps", "epochs", "scale_changes")
MOST_RUNS = 200  # per request: a history of thousands arrives in a few requests


@dataclass(frozen=True)
class HistoryRows:
    """Rows of a history's tables, as SQLite holds them (column names for runs)."""

    schema_version: int
    runs: tuple[dict[str, Any], ...] = ()
    steps: tuple[tuple[Any, ...], ...] = ()
    epochs: tuple[tuple[Any, ...], ...] = ()
    scale_changes: tuple[tuple[Any, ...], ...] = ()
    more: bool = False  # runs after these remain: ask again after the last id


def read_rows(store: RunStore, after_id: int, refresh: tuple[int, ...] = ()) -> HistoryRows:
    """The runs after ``after_id`` (at most MOST_RUNS) and those in ``refresh`` (a copy's
    runs that were still running), with all their metrics."""
    conn = store._conn
    wanted = [row[0] for row in conn.execute(
        "SELECT id FROM runs WHERE id > ? ORDER BY id LIMIT ?", (after_id, MOST_RUNS + 1))]
    more = len(wanted) > MOST_RUNS
    ids = sorted(set(wanted[:MOST_RUNS]) | set(refresh))
    if not ids:
        return HistoryRows(SCHEMA_VERSION)
    marks = ", ".join("?" * len(ids))
    cursor = conn.execute(f"SELECT * FROM runs WHERE id IN ({marks}) ORDER BY id", ids)
    names = [d[0] for d in cursor.description]
    runs = tuple(dict(zip(names, row, strict=True)) for row in cursor)
    metrics = {table: tuple(tuple(row) for row in conn.execute(
        f"SELECT * FROM {table} WHERE run_id IN ({marks})", ids)) for table in METRIC_TABLES}
    return HistoryRows(SCHEMA_VERSION, runs, more=more, **metrics)


def write_rows(store: RunStore, rows: HistoryRows) -> int:
    """Put ``rows`` into ``store`` (a window's copy), replacing what it had of those
    runs; the number of runs written."""
    if not rows.runs:
        return 0
    conn = store._conn
    columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    with store._transaction() as tx:
        for run in rows.runs:
            known = {k: v for k, v in run.items() if k in columns}
            tx.execute(f"INSERT OR REPLACE INTO runs ({', '.join(known)}) VALUES "
                       f"({', '.join('?' * len(known))})", tuple(known.values()))
        for table in METRIC_TABLES:
            width = len(list(conn.execute(f"PRAGMA table_info({table})")))
            tx.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({', '.join('?' * width)})",
                           [row[:width] for row in getattr(rows, table)])
    return len(rows.runs)


def copy_state(store: RunStore) -> tuple[int, tuple[int, ...]]:
    """(the last run id the copy has, the ids it has as running): what to ask for."""
    conn = store._conn
    last = conn.execute("SELECT COALESCE(MAX(id), 0) FROM runs").fetchone()[0]
    running = tuple(row[0] for row in conn.execute(
        "SELECT id FROM runs WHERE status = 'running'"))
    return int(last), running


def mirror_path(address: str) -> Path:
    """The window's copy of the history of the server at ``address``: beside the local
    history, one file per server, named so any address makes a file name."""
    safe = re.sub(r"[^A-Za-z0-9_.@-]+", "_", address.removeprefix("ssh://"))[:60]
    digest = hashlib.sha256(address.encode()).hexdigest()[:8]
    return history_path().parent / "servers" / f"{safe}-{digest}.sqlite3"
