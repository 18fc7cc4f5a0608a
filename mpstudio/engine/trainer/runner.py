"""One training run: RunSpec in, events out, RunResult back.

Problems with the spec itself (bad values, a dataset that does not fit the
template) raise SpecError before anything trains; data or a model that cannot
be set up raises RunSetupError. Anything that goes wrong while training (out of
memory, a diverged loss, an unexpected error) ends the run with a RunFailed
event carrying a readable reason and what was measured.

Each attempt has one shape: prepare (run_setup: data, model, loop, monitor; then
RunStarted) -> attach the training aids (aids/registry) -> train (training) ->
conclude (conclusion: status, summary, the last event). What a feature adds to a run
is a training aid (aids/training_aid.py), not a step here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.events import EpochMetrics, NumericsDiagnosis, Reporter, RunFailed, RunSummary
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.aids.registry import attach_aids
from mpstudio.engine.trainer.conclusion import conclude
from mpstudio.engine.trainer.cpu_float16_fusion import float16_fusion_off
from mpstudio.engine.trainer.oom_retry import run_with_retries
from mpstudio.engine.trainer.run_inputs import RunSetupError
from mpstudio.engine.trainer.run_setup import AttemptRequest, RunPlace, announce, prepare
from mpstudio.engine.trainer.training import train

__all__ = ["CallbackFactory", "RunPlace", "RunResult", "RunSetupError", "run"]

CallbackFactory = Callable[[RunSpec], Sequence[keras.callbacks.Callback]]


@dataclass
class RunResult:
    spec: RunSpec
    summary: RunSummary
    model: keras.Model | None  # None once let go of (kept on disk: see memory_release)
    initial_weights: list[np.ndarray]  # the weights before training (for comparisons)
    epochs: list[EpochMetrics]
    warnings: list[str]
    failure: RunFailed | None = None
    sampled_steps: tuple[int, ...] = ()  # where the monitor sampled (a schedule to replay)
    retried: int = 0  # out-of-memory attempts recorded before this one
    diagnosis: NumericsDiagnosis | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def run(
    spec: RunSpec,
    reporter: Reporter,
    *,
    initial_weights: list[np.ndarray] | None = None,
    place: RunPlace | None = None,
    sample_at: Sequence[int] | None = None,
    callbacks: CallbackFactory | None = None,
    oom_retry: bool | None = None,
    profile_steps: int = 0,
) -> RunResult:
    """Train ``spec`` and report through ``reporter``. ``place``: where the run sits in
    a comparison (its RunStarted event says so, and the history records it).
    ``sample_at``: sample the metrics exactly at these steps (another run's
    ``sampled_steps``), so two runs' curves share their windows step for step.
    ``callbacks``: more Keras callbacks for each attempt's spec (called on every
    training batch's start in both loops). ``oom_retry``: override ``spec.aids``'s
    (a comparison turns it off: both sides must train the same batch).
    ``profile_steps``: trace this many steady steps with TensorFlow's profiler; the
    summary's ``op_profile`` holds the time per op type (aids/run_profile).

    Raises SpecError for a spec that cannot run (bad data included), RunSetupError
    when the data (a download) or the model cannot be set up, and DataLoadStopped
    when the reporter asks to stop while the data loads; once training starts,
    every ending is an event. Out of memory with retries on, each attempt is a run
    of its own (RunStarted ... RunFailed, then OomRetry); the last one is returned.
    """
    enabled = spec.aids.oom_retry if oom_retry is None else oom_retry

    def attempt(current: RunSpec, retries: int) -> RunResult:
        kind = "CPU" if not tf.config.list_physical_devices("GPU") else "GPU"
        with float16_fusion_off(current.precision, kind):
            request = AttemptRequest(
                initial_weights=initial_weights, place=place or RunPlace(),
                sample_at=sample_at, callbacks=callbacks(current) if callbacks else (),
                oom_retries=retries, profile_steps=profile_steps)
            result = _attempt(current, reporter, request)
        result.retried = retries
        return result

    result: RunResult = run_with_retries(spec, reporter, enabled, attempt)
    return result


def _attempt(spec: RunSpec, reporter: Reporter, request: AttemptRequest) -> RunResult:
    prepared = prepare(spec, reporter, request)
    announce(prepared)
    aids = attach_aids(prepared)
    trained = train(prepared, aids)
    summary, failure = conclude(prepared, aids, trained)
    return RunResult(
        spec, summary, prepared.model, prepared.start_weights, list(prepared.monitor.epochs),
        prepared.warnings, failure, tuple(prepared.monitor.sampled_steps),
        diagnosis=trained.diagnosis,
    )
