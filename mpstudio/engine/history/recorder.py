"""RecordingReporter: writes every run into the history as it goes, and passes every
event on unchanged. A history that cannot be written costs a warning, never the run."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mpstudio.engine.events import (
    EpochMetrics,
    Event,
    LossScaleChanged,
    PassingReporter,
    Reporter,
    RunFailed,
    RunFinished,
    RunStarted,
    RunWarning,
    StepMetrics,
)
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.history.run_models import keep_models, run_folder
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import said

FLUSH_SECONDS = 1.0  # a killed process loses at most this much of a run's metrics


class RecordingReporter(PassingReporter):
    def __init__(
        self,
        inner: Reporter,
        open_store: Callable[[], RunStore] = RunStore,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(inner)
        self.run_ids: list[int] = []  # every run recorded, in order
        self.persistent = True  # False: the history file failed, runs live in memory only
        self._open_store = open_store
        self._store: RunStore | None = None
        self._broken = False
        self._clock = clock
        self._run_id: int | None = None
        self._steps: list[StepMetrics] = []
        self._epochs: list[EpochMetrics] = []
        self._changes: list[LossScaleChanged] = []
        self._flushed = 0.0

    def emit(self, event: Event) -> None:
        if type(event) is RunStarted:  # recorded first: the event carries its history id
            self._try_record(event)
            run_id = self._run_id if not self._broken and self.persistent else None
            self.inner.emit(dataclasses.replace(event, run_id=run_id))
            return
        self.inner.emit(event)
        self._try_record(event)

    def _try_record(self, event: Event) -> None:
        if self._broken:
            return
        try:
            self._record(event)
        except (sqlite3.Error, HistoryError, OSError) as exc:
            self._give_up(exc)

    def run_folder(self) -> Path | None:
        """The folder of the run being recorded (its TensorBoard logs go there), or None
        when no run is open or the history is not on disk."""
        if self._run_id is None or self._store is None or not self.persistent:
            return None
        return run_folder(self._run_id, self._store.path)

    def end_open_run(self, status: str, reason: Any) -> None:
        """End the run still open here as ``status``, with the metrics it recorded: a
        stop that ended it before it could end itself (before its first step)."""
        if self._run_id is None or self._store is None or self._broken:
            return
        try:
            self._flush()
            self._store.end_unfinished_run(self._run_id, status, reason)
            self._run_id = None
        except (sqlite3.Error, HistoryError, OSError) as exc:
            self._give_up(exc)

    def close(self) -> None:
        """End recording: a run still open here ended without a result (an error that
        escaped the engine) and is marked failed; then the file is closed."""
        try:
            if self._run_id is not None and self._store is not None:
                self._flush()
                self._store.finish_run(self._run_id, None,
                                       said(N_("the run ended without a result")),
                                       status="failed")
                self._run_id = None
        except (sqlite3.Error, HistoryError, OSError) as exc:
            self._give_up(exc)
        if self._store is not None:
            self._store.close()
            self._store = None

    # ------------------------------------------------------------ recording
    def _record(self, event: Event) -> None:
        kind = type(event)
        if kind is RunStarted:
            if self._store is None:
                self._store = self._open()
            self._run_id = self._store.begin_run(event)  # type: ignore[arg-type]
            self.run_ids.append(self._run_id)
            self._flushed = self._clock()
            return
        if self._run_id is None:
            return  # data loading before a run: nothing to record yet
        if kind is StepMetrics:
            self._steps.append(event)  # type: ignore[arg-type]
        elif kind is LossScaleChanged:
            self._changes.append(event)  # type: ignore[arg-type]
        elif kind is EpochMetrics:
            self._epochs.append(event)  # type: ignore[arg-type]
            self._flush()
        elif kind is RunFinished or kind is RunFailed:
            self._flush()
            assert self._store is not None
            if kind is RunFinished:
                self._store.finish_run(self._run_id, event.summary, None)  # type: ignore[union-attr]
            else:
                failed: RunFailed = event  # type: ignore[assignment]
                status = "diverged" if failed.kind == "diverged" else "failed"
                self._store.finish_run(self._run_id, failed.summary, failed.reason, status)
            self._run_id = None
            return
        if self._clock() - self._flushed >= FLUSH_SECONDS:
            self._flush()

    def _open(self) -> RunStore:
        """The history; when it cannot be opened, a store in memory for this process, so
        the comparison card still works (the warning says the run is not kept)."""
        try:
            store = self._open_store()
            if store.read_only:  # readable, not writable: said once, before the run
                store.close()
                raise HistoryError(store.read_only_reason())
            return store
        except HistoryError as exc:
            self.persistent = False
            self.inner.emit(RunWarning(_("{error}; this session's runs are not kept").format(
                error=exc)))
            return RunStore(":memory:")

    def stored(self) -> list[StoredRun]:
        """Every run recorded so far, read back from the history (call on the thread
        that recorded them); empty when recording failed."""
        if self._store is None or self._broken:
            return []
        self._flush()
        return [self._store.run(i) for i in self.run_ids]

    def keep_model(self, result: Any) -> None:
        """Keep the trained model of the run recorded last beside the history, for
        export later: call it as soon as ``runner.run`` returns ``result`` (a RunResult;
        its out-of-memory attempts were recorded before it), before the next run, so
        the model can be let go of then. A failed run keeps none; a model that cannot
        be saved costs a warning."""
        if (self._store is None or self._broken or not self.persistent or not self.run_ids
                or not result.ok or result.model is None):
            return
        for warning in keep_models([(self.run_ids[-1], result.model)], self._store.path):
            self.inner.emit(RunWarning(warning))

    def _flush(self) -> None:
        if self._store is not None and self._run_id is not None and (
            self._steps or self._epochs or self._changes
        ):
            self._store.add_metrics(self._run_id, self._steps, self._epochs, self._changes)
        self._steps, self._epochs, self._changes = [], [], []
        self._flushed = self._clock()

    def _give_up(self, exc: Exception) -> None:
        self._broken = True
        self._run_id = None
        self.inner.emit(RunWarning(_(
            "run history: {error}; training goes on, but this run is not recorded").format(
                error=exc)))
