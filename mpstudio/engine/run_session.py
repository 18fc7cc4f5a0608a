"""One run, or a comparison, from spec to history: train, record every run as it goes,
keep each trained model beside the history, and build a comparison's card. The one
path the command line and the window's engine process both take.

``TrainingOutcome`` is what a front end in another process receives: each run's spec,
summary and failure, its history id and a handle to its model (which stays in the
engine process); nothing in it holds a tensor or imports TensorFlow.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mpstudio.engine.events import EpochMetrics, Reporter, RunFailed, RunSummary
from mpstudio.engine.spec import RunSpec

if TYPE_CHECKING:
    from mpstudio.engine.comparison.card import ComparisonCard
    from mpstudio.engine.history.records import StoredRun
    from mpstudio.engine.trainer.compare_options import CompareOptions
    from mpstudio.engine.trainer.runner import RunResult


@dataclass(frozen=True)
class TrainedRun:
    """One run as a front end sees it (RunResult without the model and weights)."""

    spec: RunSpec
    summary: RunSummary
    failure: RunFailed | None
    warnings: tuple[str, ...] = ()
    run_id: int | None = None  # its history id (None: not recorded)
    model_handle: int | None = None  # the model, kept in the engine process for export
    epochs: tuple[EpochMetrics, ...] = ()

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass
class TrainingOutcome:
    """What a training job left: the runs in the order they ran, the same runs as the
    history recorded them, and a comparison's card; or why there is nothing."""

    results: list[TrainedRun]
    stopped_while_loading: str = ""  # the stop message when the data never finished loading
    stored: list[StoredRun] = field(default_factory=list)  # empty if recording failed
    card: ComparisonCard | None = None  # a comparison with at least one whole pair
    history_kept: bool = True  # False: the history file failed, runs were kept in memory

    @property
    def last(self) -> TrainedRun | None:
        return self.results[-1] if self.results else None

    def run_id(self, result: TrainedRun) -> int | None:
        """The history id of ``result`` (None when it was not recorded)."""
        return result.run_id if self.history_kept else None


@dataclass
class Session:
    """The engine side of a training job: the full RunResults (models included)."""

    results: list[RunResult]
    stored: list[StoredRun]
    card: ComparisonCard | None
    history_kept: bool
    stopped_while_loading: str = ""

    def outcome(self, handles: list[int | None] | None = None) -> TrainingOutcome:
        """The front end's view; ``handles[i]``: where result i's model is kept."""
        ids: list[int | None] = [s.id for s in self.stored] \
            if len(self.stored) == len(self.results) else [None] * len(self.results)
        handles = handles or [None] * len(self.results)
        runs = [TrainedRun(r.spec, r.summary, r.failure, tuple(r.warnings), run_id, handle,
                           tuple(r.epochs))
                for r, run_id, handle in zip(self.results, ids, handles, strict=True)]
        return TrainingOutcome(runs, self.stopped_while_loading, self.stored, self.card,
                               self.history_kept)


def train_session(spec: RunSpec, reporter: Reporter, comparison: CompareOptions | None = None,
                  *, record: bool = True) -> Session:
    """Train ``spec`` (or compare it with float32), recording each run in the history as
    it goes unless ``record`` is False (a multi-worker worker that is not the chief).
    Raises SpecError, RunSetupError and DataLoadStopped as the runner does."""
    from mpstudio.engine.comparison.card import card_for_comparison
    from mpstudio.engine.first_step import StoppedBeforeFirstStep, stopped_reason
    from mpstudio.engine.history.recorder import RecordingReporter
    from mpstudio.engine.trainer import compare, runner

    recorder = RecordingReporter(reporter) if record else None
    front: Any = recorder if recorder is not None else reporter
    keep = recorder.keep_model if recorder is not None else None
    try:
        if comparison is not None:
            results = compare.compare(spec, front, comparison.repeats, comparison.baseline,
                                      keep=keep, profile=comparison.profile,
                                      baseline_batch_size=comparison.baseline_batch_size,
                                      size=comparison.size
                                      ).results
        else:
            results = [runner.run(spec, front)]
            if keep is not None:
                keep(results[0])
        stored = recorder.stored() if recorder is not None else []
    except StoppedBeforeFirstStep:  # the CLI's Ctrl-C while the first step was traced
        if recorder is not None:
            recorder.end_open_run("stopped", stopped_reason())
        raise
    finally:
        if recorder is not None:
            recorder.close()
    card = card_for_comparison(stored) if comparison is not None and stored else None
    kept = recorder.persistent if recorder is not None else False
    return Session(results, stored, card, kept)


def train_in_worker_process(spec: RunSpec, reporter: Reporter) -> Session:
    """This host's worker of a multi-worker run, as a ``python -m mpstudio train``
    subprocess that joins the other hosts (started the same way) and records the run
    history itself: the outcome reads the run back from the history."""
    from mpstudio.engine.distribute.worker_process import run_worker_process
    from mpstudio.engine.history.store import HistoryError, RunStore

    result, run_id = run_worker_process(spec, reporter)
    stored: list[StoredRun] = []
    if run_id is not None:
        try:
            with RunStore() as store:
                stored = [store.run(run_id)]
        except (HistoryError, sqlite3.Error):
            stored = []  # the run is in the history file; only the read back failed
    return Session([result], stored, None, run_id is not None)
