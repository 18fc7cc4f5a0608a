"""What a history file is, found out read-only before anything writes to it.

Opening a file read-write first (and switching it to WAL) changed files that were
not ours: another application's SQLite database gained mpstudio's tables, and a
history from a newer mpstudio, refused as "never rewritten", had its header changed.
So the file is looked at through a read-only connection first; only an mpstudio
history of this version or older (or an empty file) is opened for writing, and a
history in a folder that cannot be written is opened read-only.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from mpstudio.engine.history.schema import SCHEMA_VERSION, SchemaTooNew
from mpstudio.engine.i18n import _

OUR_TABLES = frozenset({"runs", "steps", "epochs", "scale_changes"})


class NotAHistory(RuntimeError):
    """The file is a database, but not an mpstudio run history."""


@dataclass(frozen=True)
class FileVerdict:
    exists: bool  # a file with content (an empty or missing one gets a new history)
    version: int  # its schema version (0: new)
    writable: bool  # the file and its folder can be written (WAL needs the folder)


def check_history_file(path: Path) -> FileVerdict:
    """Raise NotAHistory, SchemaTooNew or sqlite3.DatabaseError (not a database at
    all) for a file mpstudio must not write; change nothing either way."""
    folder = path.parent
    writable = (_can_write(folder) if folder.exists() else True) and (
        not path.exists() or _can_write(path))
    if not path.exists() or path.stat().st_size == 0:
        return FileVerdict(False, 0, writable)
    conn = connect_read_only(path)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%'")}
    finally:
        conn.close()
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(version)
    if version == 0 and tables:
        raise NotAHistory(_("it is another application's database (its tables: "
                            "{tables})").format(tables=", ".join(sorted(tables)[:5])))
    if version > 0 and not tables >= OUR_TABLES:
        raise NotAHistory(_("it lacks the run history's tables"))
    return FileVerdict(True, version, writable)


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes. SQLite reads a WAL-mode file (as mpstudio leaves
    its history) through a -shm index it creates when missing, which fails in a folder
    this user cannot write (another user's history, a read-only mount): "attempt to
    write a readonly database". Such a file is read as it lies on disk (``immutable``):
    a writer's clean close has moved the WAL into it, and no writer here can change it.
    Raise sqlite3.DatabaseError for a file that cannot be read either way."""
    uri = path.resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=10.0, isolation_level=None)
    try:
        conn.execute("PRAGMA user_version").fetchone()  # SQLite opens the file lazily
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if "readonly" not in str(exc) and "unable to open" not in str(exc):
            raise
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, timeout=10.0,
                           isolation_level=None)


def _can_write(path: Path) -> bool:
    # The effective user decides (a process that dropped privileges), where supported.
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK, effective_ids=effective)
