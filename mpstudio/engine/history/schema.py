"""The run history's SQLite schema and its versions.

The version lives in ``PRAGMA user_version``. A new file gets the current schema;
an older file is migrated step by step in one transaction; a file written by a
newer mpstudio is refused with a message (never rewritten), so a downgrade loses
nothing.
"""

from __future__ import annotations

import sqlite3

from mpstudio.engine.i18n import _

SCHEMA_VERSION = 2

# Metrics tables use (run_id, key) primary keys without a rowid: one B-tree per table,
# and a run's metrics are contiguous on disk, which is how they are always read.
_SCHEMA_1 = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    finished REAL,
    label TEXT NOT NULL,
    status TEXT NOT NULL,
    dataset TEXT NOT NULL,
    template TEXT NOT NULL,
    precision TEXT NOT NULL,
    spec TEXT NOT NULL,
    hardware TEXT NOT NULL,
    model TEXT NOT NULL,
    dataset_summary TEXT NOT NULL,
    steps_per_epoch INTEGER NOT NULL,
    total_steps INTEGER NOT NULL,
    summary TEXT,
    failure TEXT,
    examples_per_sec REAL,
    val_accuracy REAL,
    comparison TEXT,
    role TEXT NOT NULL,
    trial INTEGER NOT NULL,
    trials INTEGER NOT NULL,
    model_paths TEXT NOT NULL DEFAULT '[]',
    owner_host TEXT NOT NULL,
    owner_pid INTEGER NOT NULL,
    owner_started REAL NOT NULL
);
CREATE INDEX runs_by_status ON runs (status);
CREATE INDEX runs_by_comparison ON runs (comparison);
CREATE TABLE steps (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    loss REAL,
    accuracy REAL,
    loss_scale REAL,
    overflow_steps INTEGER NOT NULL,
    examples_per_sec REAL,
    step_time REAL NOT NULL,
    warmup INTEGER NOT NULL,
    PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
CREATE TABLE epochs (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    epoch INTEGER NOT NULL,
    steps INTEGER NOT NULL,
    loss REAL,
    accuracy REAL,
    val_loss REAL,
    val_accuracy REAL,
    epoch_time REAL NOT NULL,
    train_time REAL NOT NULL,
    PRIMARY KEY (run_id, epoch)
) WITHOUT ROWID;
CREATE TABLE scale_changes (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    old REAL NOT NULL,
    new REAL NOT NULL,
    overflow_steps INTEGER NOT NULL,
    PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
"""

# The SQL that takes a file from version N to N + 1 (version 0: an empty file).
# Statements are split on ";", so none may contain one.
MIGRATIONS: dict[int, str] = {
    0: _SCHEMA_1,
    # 2: the hash of each run's initial weights (a benchmark bundle's replay checks it);
    # older runs have "" (not recorded)
    1: "ALTER TABLE runs ADD COLUMN initial_weights_hash TEXT NOT NULL DEFAULT ''",
}


class SchemaTooNew(RuntimeError):
    def __init__(self, found: int) -> None:
        self.found = found
        super().__init__(_(
            "it was written by a newer mpstudio (schema version {found}; this one reads up "
            "to {newest})").format(found=found, newest=SCHEMA_VERSION))


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the file to ``target``; returns the version it had."""
    found = schema_version(conn)
    if found > target:
        raise SchemaTooNew(found)
    if found == target:
        return found
    # One transaction for the whole upgrade (executescript would commit in between).
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(conn)  # another process may have migrated meanwhile
        while version < target:
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    conn.execute(statement)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found
