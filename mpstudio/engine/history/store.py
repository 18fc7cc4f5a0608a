"""RunStore: every run in one SQLite file in the user's data folder.

A run is written as it goes: a row when it starts (status "running", with the
process that owns it), its metrics as they arrive, its summary when it ends. A
process that dies mid-run leaves a "running" row whose owner is gone; the next
``recover_interrupted`` marks it "interrupted" and keeps its metrics.

One connection per thread (SQLite's rule); WAL mode lets the window read the
history while the engine thread writes a run into it.
"""

from __future__ import annotations

import json
import math
import socket
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import psutil

from mpstudio.engine.events import (
    EpochMetrics,
    LossScaleChanged,
    RunStarted,
    RunSummary,
    StepMetrics,
)
from mpstudio.engine.history.file_check import (
    FileVerdict,
    NotAHistory,
    check_history_file,
    connect_read_only,
)
from mpstudio.engine.history.locations import HISTORY_ENV, history_path
from mpstudio.engine.history.records import RunRow, StoredRun, summary_from_dict
from mpstudio.engine.history.run_models import remove_run_folders
from mpstudio.engine.history.schema import SCHEMA_VERSION, SchemaTooNew, migrate
from mpstudio.engine.history.stored_columns import DamagedRun, json_column, list_row
from mpstudio.engine.history.stored_text import from_column, from_values, to_column, to_values
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import said

_ROW_COLUMNS = ("id, created, label, status, dataset, template, precision, examples_per_sec, "
                "val_accuracy, comparison, role, trial, trials")


class HistoryError(RuntimeError):
    """The history file cannot be used, or a run is not in it; the message says what
    to do."""


def _this_process() -> tuple[str, int, float]:
    proc = psutil.Process()
    return socket.gethostname(), proc.pid, proc.create_time()


def _owner_alive(host: str, pid: int, started: float) -> bool:
    """Whether the process that owns a running row still runs. A row from another
    machine (a shared file) cannot be checked: it counts as alive."""
    if host != socket.gethostname():
        return True
    try:
        return abs(psutil.Process(pid).create_time() - started) < 1.0  # not a reused pid
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


def _nan(value: float | None) -> float:
    """SQLite stores NaN as NULL: a loss read back as NULL was NaN (a diverged run)."""
    return math.nan if value is None else float(value)


def _damaged(where: str, exc: Exception) -> str:
    return _("cannot read {where}: {reason}. It is damaged or not an mpstudio history: move "
             "it aside (mpstudio then starts a new one) or set {variable} to another "
             "file").format(where=where, reason=exc, variable=HISTORY_ENV)


class RunStore:
    """``read_only``: never write (``mpstudio runs list``/``show``); a history whose
    folder cannot be written opens read-only by itself, and writing then says why."""

    def __init__(self, path: str | Path | None = None, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else history_path()
        self.read_only = read_only
        self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        where = _("the run history {path}").format(path=self.path)
        if str(self.path) == ":memory:":
            conn = sqlite3.connect(":memory:", isolation_level=None)
            migrate(conn)
            return conn
        try:
            verdict = check_history_file(self.path)
        except SchemaTooNew as exc:
            raise HistoryError(_("cannot use {where}: {reason}. It was left unchanged. Update "
                                 "mpstudio, or set {variable} to another file").format(
                                     where=where, reason=exc, variable=HISTORY_ENV)) from None
        except NotAHistory as exc:
            raise HistoryError(_("{where} is not an mpstudio run history: {reason}. It was "
                                 "left unchanged: set {variable} to another file").format(
                                     where=where, reason=exc, variable=HISTORY_ENV)) from None
        except (sqlite3.DatabaseError, OSError) as exc:
            raise HistoryError(_damaged(where, exc)) from None
        if not verdict.writable:
            if not verdict.exists:
                raise HistoryError(_(
                    "cannot create {where}: the folder {folder} is not writable; set "
                    "{variable} to a file in a folder you can write").format(
                        where=where, folder=self.path.parent, variable=HISTORY_ENV))
            self.read_only = True  # reading still works; writing says why it cannot
        if self.read_only:
            return self._open_read_only(where, verdict)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise HistoryError(_("cannot open {where}: {reason}; check the folder's "
                                 "permissions or set {variable} to another file").format(
                                     where=where, reason=exc, variable=HISTORY_ENV)) from None
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn)
        except SchemaTooNew as exc:  # another process wrote a newer schema meanwhile
            conn.close()
            raise HistoryError(_("cannot use {where}: {reason}. Update mpstudio, or set "
                                 "{variable} to another file").format(
                                     where=where, reason=exc, variable=HISTORY_ENV)) from None
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise HistoryError(_damaged(where, exc)) from None
        return conn

    def _open_read_only(self, where: str, verdict: FileVerdict) -> sqlite3.Connection:
        if not verdict.exists:
            conn = sqlite3.connect(":memory:", isolation_level=None)  # nothing recorded yet
            migrate(conn)
            return conn
        if verdict.version < SCHEMA_VERSION:
            raise HistoryError(_("cannot read {where} read-only: it needs an upgrade to this "
                                 "mpstudio's format, which writes to it; run mpstudio where "
                                 "its folder is writable").format(where=where))
        try:
            return connect_read_only(self.path)
        except sqlite3.DatabaseError as exc:
            raise HistoryError(_damaged(where, exc)) from None

    def read_only_reason(self) -> str:
        """Why nothing can be written here (a store opened read-only)."""
        return _("the run history {path} is read-only here: its folder {folder} is not "
                 "writable (check its permissions, or set {variable} to a file in a folder "
                 "you can write)").format(path=self.path, folder=self.path.parent,
                                          variable=HISTORY_ENV)

    def _writable(self) -> None:
        if self.read_only:
            raise HistoryError(self.read_only_reason())

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ writing
    def begin_run(self, started: RunStarted) -> int:
        self._writable()
        spec = started.spec
        host, pid, proc_started = _this_process()
        model = started.model
        cur = self._conn.execute(
            "INSERT INTO runs (created, label, status, dataset, template, precision, spec, "
            "hardware, model, dataset_summary, steps_per_epoch, total_steps, comparison, "
            "role, trial, trials, owner_host, owner_pid, owner_started, initial_weights_hash) "
            "VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                time.time(), started.label, str(spec.get("dataset", "")),
                str(spec.get("template", "")), str(spec.get("precision", "")),
                json.dumps(spec), json.dumps(to_values(started.hardware)),
                json.dumps({"name": model.name, "policy": model.policy,
                            "params": model.params, "trainable_params": model.trainable_params,
                            "output_dtype": model.output_dtype}),
                to_column(started.dataset), started.steps_per_epoch, started.total_steps,
                started.comparison, started.role, started.trial, started.trials,
                host, pid, proc_started, started.initial_weights_hash or "",
            ),
        )
        assert cur.lastrowid is not None  # an INSERT sets it
        return cur.lastrowid

    def add_metrics(
        self,
        run_id: int,
        steps: Sequence[StepMetrics] = (),
        epochs: Sequence[EpochMetrics] = (),
        scale_changes: Sequence[LossScaleChanged] = (),
    ) -> None:
        """Append metrics in one transaction (one fsync for a whole batch)."""
        self._writable()
        with self._transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, s.step, s.epoch, s.loss, s.accuracy, s.loss_scale, s.overflow_steps,
                  s.examples_per_sec, s.step_time, int(s.warmup)) for s in steps],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO epochs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, e.epoch, e.steps, e.loss, e.accuracy, e.val_loss, e.val_accuracy,
                  e.epoch_time, e.train_time) for e in epochs],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO scale_changes VALUES (?, ?, ?, ?, ?)",
                [(run_id, c.step, c.old, c.new, c.overflow_steps) for c in scale_changes],
            )

    def finish_run(self, run_id: int, summary: RunSummary | None, failure: str | None,
                   status: str | None = None) -> None:
        """``failure``: why it failed, a plain string or a ``Said`` (kept as its message,
        read back in the reader's language)."""
        self._writable()
        status = status or (summary.status if summary else "failed")
        self._conn.execute(
            "UPDATE runs SET status = ?, finished = ?, summary = ?, failure = ?, "
            "examples_per_sec = ?, val_accuracy = ? WHERE id = ?",
            (
                status, time.time(),
                json.dumps(to_values(summary.to_dict())) if summary else None,
                to_column(failure), summary.steady_examples_per_sec if summary else None,
                summary.final_val_accuracy if summary else None, run_id,
            ),
        )

    def add_model_path(self, run_id: int, path: str | Path) -> None:
        self._writable()
        stored = self.run(run_id, metrics=False)
        paths = [p for p in stored.model_paths if p != str(path)] + [str(path)]
        self._conn.execute("UPDATE runs SET model_paths = ? WHERE id = ?",
                           (json.dumps(paths), run_id))

    def delete_runs(self, ids: Iterable[int]) -> int:
        self._writable()
        ids = list(ids)
        with self._transaction() as conn:
            cur = conn.execute(
                f"DELETE FROM runs WHERE id IN ({', '.join('?' * len(ids))})", ids
            ) if ids else None
        remove_run_folders(ids, self.path)  # the models the runs kept go with them
        return cur.rowcount if cur is not None else 0

    def recover_interrupted(self) -> list[int]:
        """Mark runs whose process died mid-run as interrupted (their metrics stay);
        fills the list columns from what they recorded. Returns their ids."""
        if self.read_only:
            return []  # the next writable open marks them
        rows = self._conn.execute(
            "SELECT id, owner_host, owner_pid, owner_started FROM runs WHERE status = 'running'"
        ).fetchall()
        dead = [r[0] for r in rows if not _owner_alive(r[1], r[2], r[3])]
        for run_id in dead:
            self.end_unfinished_run(run_id, "interrupted", said(N_(
                "the app or process ended during the run; the metrics up to then are kept")))
        return dead

    def end_unfinished_run(self, run_id: int, status: str, failure: str) -> bool:
        """End a run whose process can no longer finish it (the engine crashed, or Stop
        now ended it): ``status`` and why, with the list columns filled from the metrics
        it recorded. False when the run had already ended."""
        self._writable()
        speed = self._conn.execute(
            "SELECT avg(examples_per_sec) FROM steps WHERE run_id = ? AND warmup = 0",
            (run_id,)).fetchone()[0]
        acc = self._conn.execute(
            "SELECT val_accuracy FROM epochs WHERE run_id = ? ORDER BY epoch DESC LIMIT 1",
            (run_id,)).fetchone()
        cur = self._conn.execute(
            "UPDATE runs SET status = ?, finished = ?, examples_per_sec = ?, "
            "val_accuracy = ?, failure = ? WHERE id = ? AND status = 'running'",
            (status, time.time(), speed, acc[0] if acc else None, to_column(failure), run_id))
        return cur.rowcount > 0

    # ------------------------------------------------------------ reading
    def runs(self, *, status: str | None = None, dataset: str | None = None,
             template: str | None = None, precision: str | None = None,
             limit: int | None = None) -> list[RunRow]:
        """Newest first, optionally filtered on exact values."""
        where: list[str] = []
        args: list[str | int] = []
        for column, value in (("status", status), ("dataset", dataset),
                              ("template", template), ("precision", precision)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = f"SELECT {_ROW_COLUMNS} FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [list_row(row) for row in self._conn.execute(sql, args)]

    def run(self, run_id: int, metrics: bool = True) -> StoredRun:
        row = self._conn.execute(
            f"SELECT {_ROW_COLUMNS}, spec, hardware, model, dataset_summary, steps_per_epoch, "
            "total_steps, summary, failure, finished, model_paths, initial_weights_hash "
            "FROM runs WHERE id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise HistoryError(_("no run #{id} in the history {path} (`mpstudio runs list` "
                                 "shows the ids)").format(id=run_id, path=self.path))
        n = len(_ROW_COLUMNS.split(","))
        (spec, hardware, model, dataset_summary, steps_per_epoch, total_steps, summary,
         failure, finished, model_paths, weights) = row[n:]
        listed = list_row(row[:n])
        if "created" in listed.damaged:  # the rest reads: said, not guessed
            raise HistoryError(str(DamagedRun(run_id, "created", repr(row[1]))))
        try:
            columns = {name: json_column(run_id, name, value, kind, empty_ok)
                       for name, value, kind, empty_ok in (
                           ("spec", spec, dict, False), ("hardware", hardware, dict, False),
                           ("model", model, dict, False), ("summary", summary, dict, True),
                           ("model_paths", model_paths, list, False))}
            stored_summary = summary_from_dict(columns["summary"])
        except DamagedRun as exc:
            raise HistoryError(str(exc)) from None
        except (TypeError, ValueError) as exc:  # a summary's values of the wrong type
            raise HistoryError(str(DamagedRun(run_id, "summary", str(exc)))) from None
        return StoredRun(
            row=listed,
            spec=columns["spec"],
            hardware=from_values(columns["hardware"]),
            model=columns["model"],
            dataset_summary=from_column(dataset_summary),
            steps_per_epoch=steps_per_epoch,
            total_steps=total_steps,
            summary=stored_summary,
            failure=from_column(failure),
            finished=finished,
            model_paths=tuple(str(p) for p in columns["model_paths"]),
            steps=self._steps(run_id) if metrics else (),
            epochs=self._epochs(run_id) if metrics else (),
            scale_changes=self._scale_changes(run_id) if metrics else (),
            initial_weights_hash=weights or "",
        )

    def side_of(self, run_id: int) -> list[StoredRun]:
        """The run with the other trials of its side of the same comparison, in trial
        order (a run outside a comparison, or with one trial, is its own side)."""
        run = self.run(run_id)
        if run.row.comparison is None or run.row.trials <= 1:
            return [run]
        ids = [r[0] for r in self._conn.execute(
            "SELECT id FROM runs WHERE comparison = ? AND role = ? ORDER BY trial, id",
            (run.row.comparison, run.row.role))]
        return [run if i == run_id else self.run(i) for i in ids]

    def comparison_runs(self, comparison: str) -> list[RunRow]:
        return [list_row(row) for row in self._conn.execute(
            f"SELECT {_ROW_COLUMNS} FROM runs WHERE comparison = ? ORDER BY trial, role, id",
            (comparison,))]

    def _steps(self, run_id: int) -> tuple[StepMetrics, ...]:
        return tuple(
            StepMetrics(step=r[0], epoch=r[1], loss=_nan(r[2]), accuracy=_nan(r[3]),
                        loss_scale=r[4], overflow_steps=r[5], examples_per_sec=r[6],
                        step_time=r[7], warmup=bool(r[8]))
            for r in self._conn.execute(
                "SELECT step, epoch, loss, accuracy, loss_scale, overflow_steps, "
                "examples_per_sec, step_time, warmup FROM steps WHERE run_id = ? ORDER BY step",
                (run_id,))
        )

    def _epochs(self, run_id: int) -> tuple[EpochMetrics, ...]:
        return tuple(
            EpochMetrics(epoch=r[0], steps=r[1], loss=_nan(r[2]), accuracy=_nan(r[3]),
                         val_loss=r[4], val_accuracy=r[5], epoch_time=r[6], train_time=r[7])
            for r in self._conn.execute(
                "SELECT epoch, steps, loss, accuracy, val_loss, val_accuracy, epoch_time, "
                "train_time FROM epochs WHERE run_id = ? ORDER BY epoch", (run_id,))
        )

    def _scale_changes(self, run_id: int) -> tuple[LossScaleChanged, ...]:
        return tuple(
            LossScaleChanged(step=r[0], old=r[1], new=r[2], overflow_steps=r[3])
            for r in self._conn.execute(
                "SELECT step, old, new, overflow_steps FROM scale_changes WHERE run_id = ? "
                "ORDER BY step", (run_id,))
        )

    # ------------------------------------------------------------ helpers
    def _transaction(self) -> _Transaction:
        return _Transaction(self._conn)


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN")
        return self.conn

    def __exit__(self, kind: Any, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if kind else "COMMIT")
