"""The work the GUI hands to its engine threads, as plain functions (no Qt here).

Each runs on a background thread (see engine_thread.py) and imports TensorFlow
lazily, so importing this module costs nothing at start-up.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.events import Reporter
    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
    from mpstudio.engine.model_summary import ModelSummary
    from mpstudio.engine.spec import RunSpec
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
    template: str, input_shape: tuple[int, ...], num_classes: int, policy: str
) -> ModelSummary:
    """The template built under ``policy``: parameters and each layer's dtypes."""
    from mpstudio.engine.model_summary import describe_model
    from mpstudio.engine.templates.registry import build_model

    model = build_model(template, input_shape, num_classes, policy)
    return describe_model(model, policy)


@dataclass
class TrainingOutcome:
    """What a training job left: the results (baseline first) or why none."""

    results: list[RunResult]
    stopped_while_loading: str = ""  # the stop message when the data never finished loading

    @property
    def last(self) -> RunResult | None:
        return self.results[-1] if self.results else None


def train(spec: RunSpec, with_baseline: bool, reporter: Reporter) -> TrainingOutcome:
    """One run, or a float32 baseline then the mixed run (same seed, same weights)."""
    from mpstudio.engine.datasets.errors import DataLoadStopped
    from mpstudio.engine.trainer import compare, runner

    try:
        if with_baseline:
            pair = compare.compare(spec, reporter)
            return TrainingOutcome([r for r in (pair.baseline, pair.mixed) if r is not None])
        return TrainingOutcome([runner.run(spec, reporter)])
    except DataLoadStopped as exc:
        return TrainingOutcome([], stopped_while_loading=str(exc))


def save_keras_model(model: Any, path: Path) -> int:
    """Write ``model`` as a .keras file: into a temp file beside it, then renamed, so a
    failure never leaves half a file or replaces a good one. Returns the size."""
    path = Path(path)
    tmp = path.with_name(f".{path.stem}.partial-{os.getpid()}.keras")
    try:
        model.save(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path.stat().st_size
