"""How long the input pipeline alone takes per batch, against the training step: near
1 the run waits for data and faster math cannot help (the summary's
``data_time_fraction``, after a finished or stopped run)."""

from __future__ import annotations

import dataclasses
import time

import tensorflow as tf

from mpstudio.engine.events import RunSummary
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.run_setup import PreparedRun

PROBE_BATCHES = 64
PROBE_SECONDS = 1.0


def data_time_per_batch(dataset: tf.data.Dataset, max_batches: int = PROBE_BATCHES,
                        max_seconds: float = PROBE_SECONDS) -> float | None:
    """Seconds the pipeline alone takes per batch, on a fresh pass (after training, so
    a cached dataset is warm as it was for most of the run). The first batch pays for
    starting the iterator and is not timed. None if it gave too little to time."""
    n = 0
    start = 0.0
    try:
        for i, _ in enumerate(dataset.take(max_batches + 1)):
            if i == 0:
                start = time.perf_counter()
                continue
            n += 1
            if time.perf_counter() - start >= max_seconds:
                break
    except (tf.errors.OpError, ValueError):
        return None
    return (time.perf_counter() - start) / n if n else None


def data_time_fraction(dataset: tf.data.Dataset, steady_step_time: float | None) -> float | None:
    """The pipeline's time per batch over the training step's: near 1 (or above) the
    run waits for data (prefetching overlaps the rest with the step)."""
    if not steady_step_time:
        return None
    per_batch = data_time_per_batch(dataset)
    return None if per_batch is None else per_batch / steady_step_time


class InputWait(TrainingAid):
    def __init__(self, train: tf.data.Dataset) -> None:
        self.train = train

    @classmethod
    def attach(cls, run: PreparedRun) -> InputWait:
        return cls(run.bundle.train)

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        if status not in ("finished", "stopped"):
            return summary
        return dataclasses.replace(summary, data_time_fraction=data_time_fraction(
            self.train, summary.steady_step_time))
