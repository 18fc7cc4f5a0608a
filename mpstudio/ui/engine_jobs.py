"""The work the GUI hands to its engine threads, as plain functions (no Qt here).

Each runs on a background thread (see engine_thread.py) and imports TensorFlow
lazily, so importing this module costs nothing at start-up.
"""

from __future__ import annotations

import platform
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mpstudio.engine.comparison.card import ComparisonCard
    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.events import Reporter
    from mpstudio.engine.export.results import ExportOutcome, ExportRequest
    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
    from mpstudio.engine.history.records import StoredRun
    from mpstudio.engine.model_summary import ModelSummary
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.compare_options import CompareOptions
    from mpstudio.engine.trainer.runner import RunResult


@dataclass(frozen=True)
class TensorFlowReady:
    versions: dict[str, str]  # package -> version, for About and the log
    memory: MemoryApplyResult  # the saved GPU memory settings, applied before GPU init


def load_tensorflow() -> TensorFlowReady:
    """Import TensorFlow and Keras and apply the saved GPU memory settings."""
    from mpstudio.cli_support import tensorflow_logs_hidden

    with tensorflow_logs_hidden():
        import keras
        import tensorflow as tf

        from mpstudio.engine.hardware.gpu_memory import apply_saved_gpu_memory

        memory = apply_saved_gpu_memory()  # before any op initializes the GPUs
    versions = dict(ui_versions())
    versions["TensorFlow"] = tf.__version__
    versions["Keras"] = keras.__version__
    return TensorFlowReady(versions, memory)


def ui_versions() -> dict[str, str]:
    """Versions known without TensorFlow (About shows them before it has loaded)."""
    import numpy
    import pyqtgraph
    import PySide6
    from PySide6 import QtCore

    from mpstudio import __version__

    return {
        "mpstudio": __version__,
        "Python": platform.python_version(),
        "PySide6": PySide6.__version__,
        "Qt": QtCore.qVersion(),
        "pyqtgraph": pyqtgraph.__version__,
        "NumPy": numpy.__version__,
    }


def hardware_check(
    measure: bool,
    seconds_per_case: float,
    progress: Callable[[int, int, str], None] | None,
    should_stop: Callable[[], bool],
) -> HardwareCheck:
    from mpstudio.cli_support import tensorflow_logs_hidden
    from mpstudio.engine.hardware.check import run_hardware_check

    with tensorflow_logs_hidden():
        return run_hardware_check(measure, seconds_per_case, progress, should_stop)


def inspect_dataset(dataset: str, options: dict[str, Any]) -> DataReport:
    """What a dataset holds. Only called for data that is on disk (never downloads)."""
    from mpstudio.engine.datasets.registry import inspect_dataset as inspect

    return inspect(dataset, options)


def model_preview(
    template: str, input_shape: tuple[int, ...], num_classes: int, policy: str,
    input_scale: float | None = None,
) -> ModelSummary:
    """The template built under ``policy``: parameters and each layer's dtypes.
    ``input_scale``: the data is uint8 images that the model scales (its first row)."""
    from mpstudio.engine.model_summary import describe_model
    from mpstudio.engine.templates.registry import build_model

    model = build_model(template, input_shape, num_classes, policy, input_scale=input_scale)
    return describe_model(model, policy)


@dataclass
class TrainingOutcome:
    """What a training job left: the results in the order they ran, the same runs as
    the history recorded them, and a comparison's card; or why there is nothing."""

    results: list[RunResult]
    stopped_while_loading: str = ""  # the stop message when the data never finished loading
    stored: list[StoredRun] = field(default_factory=list)  # empty if recording failed
    card: ComparisonCard | None = None  # a comparison with at least one whole pair
    history_kept: bool = True  # False: the history file failed, runs were kept in memory

    @property
    def last(self) -> RunResult | None:
        return self.results[-1] if self.results else None

    def run_id(self, result: RunResult) -> int | None:
        """The history id of ``result`` (None when it was not recorded)."""
        if not self.history_kept or len(self.stored) != len(self.results):
            return None
        return self.stored[self.results.index(result)].id


def train(spec: RunSpec, comparison: CompareOptions | None, reporter: Reporter) -> TrainingOutcome:
    """One run, or a comparison (float32 and mixed trials from the same seed and weights),
    recorded in the run history as it goes. The card is built here, on the thread that
    recorded the runs, from what the history holds."""
    from mpstudio.engine.comparison.card import card_for_comparison
    from mpstudio.engine.datasets.errors import DataLoadStopped
    from mpstudio.engine.history.recorder import RecordingReporter
    from mpstudio.engine.trainer import compare, runner

    if spec.distribute.strategy == "multiworker" and comparison is None:
        try:
            return _train_multiworker(spec, reporter)
        except DataLoadStopped as exc:
            return TrainingOutcome([], stopped_while_loading=str(exc))
    recorder = RecordingReporter(reporter)
    try:
        if comparison is not None:
            results = compare.compare(spec, recorder, comparison.repeats,
                                      comparison.baseline, keep=recorder.keep_model).results
        else:
            results = [runner.run(spec, recorder)]
            recorder.keep_model(results[0])
        stored = recorder.stored()
    except DataLoadStopped as exc:
        return TrainingOutcome([], stopped_while_loading=str(exc))
    finally:
        recorder.close()
    card = card_for_comparison(stored) if comparison is not None else None
    return TrainingOutcome(results, stored=stored, card=card, history_kept=recorder.persistent)


def _train_multiworker(spec: RunSpec, reporter: Reporter) -> TrainingOutcome:
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
    return TrainingOutcome([result], stored=stored, history_kept=run_id is not None)


def record_model_path(run_id: int, path: Path) -> None:
    """Note in the history where a run's model was saved (best effort: the file is
    saved either way)."""
    from mpstudio.engine.history.store import HistoryError, RunStore

    try:
        with RunStore() as store:
            store.add_model_path(run_id, path)
    except (HistoryError, sqlite3.Error):
        pass


def export_run(
    requests: list[ExportRequest],
    *,
    run_id: int | None,
    model: Any = None,
    spec: RunSpec | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[ExportOutcome]:
    """Export ``model`` (the run just trained), or the kept model of history run
    ``run_id`` when no model is given, to each requested format, verifying each; the
    history notes where each file went. ExportError: the run's model cannot be loaded."""
    from mpstudio.engine.export.exporter import export_models
    from mpstudio.engine.export.source import source_from_model, source_from_run

    if model is not None:
        source = source_from_model(model, spec, run_id)
    elif run_id is not None:
        source = source_from_run(run_id)
    else:
        raise ValueError("export_run needs a model or a history run id")
    outcomes = export_models(source, requests, overwrite=overwrite, progress=progress,
                             should_stop=should_stop)
    if run_id is not None:  # History shows where the run's model went
        for outcome in outcomes:
            if outcome.result is not None:
                record_model_path(run_id, outcome.result.path)
    return outcomes
