"""Run events and the reporter protocol.

Events are frozen dataclasses of plain Python values (never tensors), so any
front end (Qt signal, CLI, JSON lines, a test's list) can consume them from the
training thread. A reporter is anything with ``emit(event)`` and ``should_stop()``.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any, Protocol, Union

from mpstudio.engine.datasets.report import DataProgress, DataReport
from mpstudio.engine.model_summary import ModelSummary


@dataclass(frozen=True)
class RunSummary:
    """What a run measured. Speeds exclude the warm-up steps (tracing, XLA compile)."""

    label: str  # e.g. "mixed_float16" or "float32 (baseline)"
    precision: str
    status: str  # finished | stopped | diverged | failed
    loop: str
    xla: bool
    batch_size: int
    epochs_done: int
    steps_done: int
    warmup_steps: int
    time_to_first_step: float | None  # seconds from the start of training to step 1 done
    steady_examples_per_sec: float | None  # None: too few steps after the warm-up
    steady_step_time: float | None  # seconds per step, steady state
    mean_epoch_time: float | None  # the first epoch (tracing) left out when there are more
    total_time: float
    final_loss: float | None  # training loss of the last epoch (unscaled)
    final_accuracy: float | None
    final_val_loss: float | None
    final_val_accuracy: float | None
    best_val_accuracy: float | None
    overflow_steps: int  # steps skipped by dynamic loss scaling
    loss_scale_mode: str  # dynamic | fixed | off
    loss_scale_min: float | None
    loss_scale_max: float | None
    loss_scale_final: float | None
    peak_memory_bytes: int | None  # None where the device does not report it
    memory_note: str  # a sentence (Said): the history keeps its message
    device: str  # RunDevices.label, in English (event_text shows it with device_text)
    params: int
    test_loss: float | None = None  # on the dataset's own test split, after a finished run
    test_accuracy: float | None = None
    # Seconds the input pipeline alone takes to deliver a batch, over the steady step
    # time: near 1 the run waits for data and faster math cannot help (None: not probed).
    data_time_fraction: float | None = None
    # tf.distribute: the strategy, its replicas and the global batch (batch_size x
    # replicas); throughput above is for the whole job, across replicas.
    strategy: str = "default"
    replicas: int = 1
    global_batch_size: int | None = None
    distribution: str = ""  # one sentence: where it ran, the batch and learning rate used
    # Training aids: what they did, in words ("" when none was on), the epoch whose
    # weights the run kept, the batch that fit after out-of-memory retries, the last
    # gradient-underflow sample and where the TensorBoard logs went.
    aids: str = ""
    kept_epoch: int | None = None  # None: the last epoch's weights
    oom_retries: int = 0
    largest_batch_fit: int | None = None  # set when a retry found it
    underflow_unscaled: float | None = None
    underflow_scaled: float | None = None
    tensorboard_dir: str = ""
    # Why XLA is on or off as the compiled model runs ("off: Keras turned XLA off: layer
    # 'lstm_128' (LSTM) runs cuDNN's kernel...") and, across replicas, the sum of each
    # device's peak (peak_memory_bytes is the largest one device held).
    xla_note: str = ""
    peak_memory_total_bytes: int | None = None
    # Per-example right/wrong of the final model (and of the best epoch's) on the
    # validation and test splits, packed (comparison.paired_accuracy.encode_hits):
    # a comparison tests accuracy on the examples both sides predicted. "" when
    # not recorded (an older run, a multi-worker run, a split over a million).
    val_examples: int | None = None
    test_examples: int | None = None
    val_hits: str = ""
    best_val_hits: str = ""
    test_hits: str = ""
    # An opt-in profile of a few steady steps (profiling.op_profile.OpProfile.to_dict).
    op_profile: dict[str, Any] | None = None
    # The device memory estimated before the run (memory_estimate.MemoryEstimate.to_dict),
    # set against peak_memory_bytes where the device reports one.
    memory_estimate: dict[str, Any] | None = None
    # The step predicted before the run (prediction.run_prediction.predict_run): examples/s,
    # what bounds it, the device's rates used. None: no rates for the device.
    predicted: dict[str, Any] | None = None

    @property
    def examples_per_sec_per_replica(self) -> float | None:
        if self.steady_examples_per_sec is None:
            return None
        return self.steady_examples_per_sec / max(1, self.replicas or 1)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class RunStarted:
    label: str
    spec: dict[str, Any]  # RunSpec.to_dict()
    hardware: dict[str, str]
    model: ModelSummary
    dataset: str  # DataBundle.summary()
    steps_per_epoch: int
    total_steps: int
    log_every_steps: int
    xla: bool
    loss_scaling: str  # one sentence: what scaling this run uses
    data_report: DataReport | None = None  # what the dataset source found
    # Where the run sits in a comparison: role single | baseline | mixed, trial of trials,
    # and an id the runs of one comparison share.
    role: str = "single"
    trial: int = 1
    trials: int = 1
    comparison: str | None = None
    distribution: str = ""  # strategy, replicas, global batch and learning rate, in words
    xla_note: str = ""  # why XLA is on or off (the compiled model's decision)
    run_id: int | None = None  # the run's id in the history (set by the recorder)
    # initial_weights.weights_hash of the model as training starts: a replay (mpstudio
    # replay) shows it began from the same weights
    initial_weights_hash: str = ""


@dataclass(frozen=True)
class StepMetrics:
    """Sampled every ``log_every_steps`` steps. ``loss``/``accuracy`` are the means over
    the steps since the previous sample (unscaled loss); times wait for the device."""

    step: int  # global step, 1-based
    epoch: int  # 1-based
    loss: float
    accuracy: float
    loss_scale: float | None
    overflow_steps: int  # skipped by dynamic loss scaling so far
    examples_per_sec: float | None  # over this window; None during warm-up
    step_time: float  # mean seconds per step over this window
    warmup: bool  # the window holds warm-up steps (tracing/compilation)


@dataclass(frozen=True)
class EpochMetrics:
    epoch: int  # 1-based
    steps: int  # global step at the end of the epoch
    loss: float
    accuracy: float
    val_loss: float | None
    val_accuracy: float | None
    epoch_time: float  # seconds, training and validation
    train_time: float  # seconds, training only


@dataclass(frozen=True)
class LossScaleChanged:
    step: int  # first sample at which the new scale was seen
    old: float
    new: float
    overflow_steps: int  # steps skipped since the previous sample


@dataclass(frozen=True)
class RunWarning:
    message: str


@dataclass(frozen=True)
class RunFinished:
    summary: RunSummary


@dataclass(frozen=True)
class RunFailed:
    """A run that could not finish. ``reason`` is for people: what happened and what to try."""

    reason: str
    kind: str  # diverged | out_of_memory | error | worker_lost
    step: int | None
    summary: RunSummary | None  # what was measured before the failure

    @property
    def has_traceback(self) -> bool:
        """An error that the log keeps with its traceback (not a diverged loss or an
        out-of-memory, which the reason explains in full)."""
        return self.kind in ("error", "worker_lost")


@dataclass(frozen=True)
class AidAction:
    """A training aid acted: early stopping stopped, the plateau lowered the learning
    rate, the checkpoint kept a new best epoch."""

    step: int
    epoch: int
    aid: str  # early_stopping | reduce_lr | best_checkpoint
    message: str
    value: float | None = None  # reduce_lr: the new rate; otherwise the monitored value


@dataclass(frozen=True)
class OomRetry:
    """An attempt ran out of memory; the run starts again at ``batch_size``."""

    failed_batch_size: int
    batch_size: int
    learning_rate: float  # linearly scaled with the batch
    message: str  # the failed attempt's batch and memory, and what happens next


@dataclass(frozen=True)
class LayerUnderflow:
    layer: str
    dtype: str  # the layer's compute dtype
    values: int  # nonzero gradient values sampled
    unscaled: float  # fraction that rounds to zero in float16 at scale 1
    scaled: float  # the same at the current loss scale


@dataclass(frozen=True)
class GradientUnderflow:
    """Sampled every ``aids.underflow_every`` steps of a mixed_float16 run: of the
    nonzero weight gradients, the fraction float16 would round to zero without loss
    scaling and with the current scale, overall and per layer."""

    step: int
    epoch: int
    scale: float  # the loss scale in force (1.0 without loss scaling)
    unscaled: float
    scaled: float
    layers: tuple[LayerUnderflow, ...]
    seconds: float  # what this sample cost


@dataclass(frozen=True)
class NumericsDiagnosis:
    """Where a non-finite value first appeared, found by re-running a step with checks."""

    step: int
    layer: str | None  # None: nothing non-finite was found again
    dtype: str | None  # the compute dtype of that layer
    stage: str  # forward | gradient | weights | none
    message: str


Event = Union[  # noqa: UP007 - a runtime alias: `X | Y` of classes needs Python 3.10+ anyway
    DataProgress, RunStarted, StepMetrics, EpochMetrics, LossScaleChanged, RunWarning,
    RunFinished, RunFailed, AidAction, OomRetry, GradientUnderflow, NumericsDiagnosis,
]


class Reporter(Protocol):
    def emit(self, event: Event) -> None: ...

    def should_stop(self) -> bool: ...


class PassingReporter:
    """A reporter that wraps another (history, TensorBoard, the first-step watch): events,
    the stop question and the CLI's Ctrl-C stop all pass on to ``inner``; a subclass
    overrides ``emit`` to do its own part."""

    def __init__(self, inner: Reporter) -> None:
        self.inner = inner

    def emit(self, event: Event) -> None:
        self.inner.emit(event)

    def should_stop(self) -> bool:
        return self.inner.should_stop()

    def stop(self) -> None:  # the CLI's Ctrl-C handler calls this
        stop = getattr(self.inner, "stop", None)
        if stop is not None:
            stop()


class CollectingReporter:
    """Keeps every event in a list; ``stop()`` may be called from any thread."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._stop = threading.Event()

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()

    def of_type(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
