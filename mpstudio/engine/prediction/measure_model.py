"""Measured where the device is present: the user's model (a template or a .keras file)
timed for a few seconds under each precision at the batch asked for, on this machine's
run device, to set beside its prediction.

Each precision is a run through the run path every run takes (``runner.run``), so it
measures what a comparison of that model measures: on the data a comparison would
train on where it is on disk and holds a batch (its split, shuffle and epochs: on a
small dataset each epoch's start is a visible part of a short step), else on synthetic
data of the model's input shape and classes, as a comparison's speed pair times it
(``speed_pair.synthetic_spec``: one random batch repeated, 50 steps an epoch, no
validation). Nothing is recorded in the history. The run's monitor keeps the warm-up
(tracing, XLA, autotuning) out of the timed windows; its reporter here keeps those
windows and stops the run once the time budget is spent (a budget per precision), or
when the user asks.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from mpstudio.engine.i18n import _
from mpstudio.engine.prediction.measurement import (
    FLOAT32,
    ModelMeasurement,
    PrecisionMeasurement,
    with_speedups,
)
from mpstudio.engine.said import Said
from mpstudio.engine.spec import Distribution, LossScaling, RunSpec, TrainingAids

log = logging.getLogger(__name__)

MEASURE_SECONDS = 2.0  # timed per precision after the warm-up: a few seconds in all
MIN_WINDOWS = 2  # timed windows before the budget may end a precision...
MOST_BUDGETS = 4  # ...unless its steps are so slow that this many budgets went by
MOST_STEPS = 1_000_000  # the budget ends a precision long before this
PRECISIONS = (FLOAT32, "mixed_float16", "mixed_bfloat16")

Progress = Callable[[int, int, str], None]


class _Timed:
    """The reporter of one precision's run: keeps its steady windows (examples/s),
    starts the budget's clock as the warm-up ends, and asks the run to stop once the
    budget is spent or ``user_stop`` says so."""

    def __init__(self, seconds: float, user_stop: Callable[[], bool],
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds, self._user_stop, self._clock = seconds, user_stop, clock
        self.rates: list[float] = []
        self.user_stopped = False
        self._started: float | None = None

    def emit(self, event: Any) -> None:
        from mpstudio.engine.events import StepMetrics

        if not isinstance(event, StepMetrics):
            return
        if event.warmup:
            self._started = self._clock()  # the last warm-up sample: timing starts here
        elif event.examples_per_sec:
            self.rates.append(event.examples_per_sec)

    def should_stop(self) -> bool:
        if self._user_stop():
            self.user_stopped = True
            return True
        if self._started is None:
            return False
        spent = self._clock() - self._started
        return ((spent >= self.seconds and len(self.rates) >= MIN_WINDOWS)
                or spent >= MOST_BUDGETS * self.seconds)


def measurement_spec(spec: RunSpec, input_shape: tuple[int, ...], classes: int,
                     on_data: bool = False) -> RunSpec:
    """``spec``'s model, optimizer, loop and XLA at its batch, on one device, with no
    training aid (only its speed): on its own data (``on_data``) as a comparison trains
    on it, else on synthetic data of ``input_shape`` and ``classes``."""
    from mpstudio.engine.trainer.speed_pair import synthetic_spec

    bare = spec.replace(aids=TrainingAids(), distribute=Distribution(), log_every_steps=0,
                        sized_from={}, steps=MOST_STEPS)
    if on_data:
        return bare
    return synthetic_spec(bare, spec.batch_size, MOST_STEPS, input_shape, classes)


def data_on_disk(spec: RunSpec) -> bool:
    """Whether ``spec``'s data can be read without a download (a user's file is)."""
    from mpstudio.engine.datasets.registry import availability, is_registered

    return not is_registered(spec.dataset) or availability(spec.dataset).offline


def precision_spec(spec: RunSpec, precision: str) -> RunSpec:
    """``spec`` under ``precision``: float32 without loss scaling (a comparison's
    baseline), the spec's own precision as set, another with its default scaling."""
    if precision == spec.precision and precision != FLOAT32:
        return spec
    scaling = LossScaling(mode="off") if precision == FLOAT32 else LossScaling()
    return spec.replace(precision=precision, loss_scaling=scaling)


def measure_model(spec: RunSpec, input_shape: tuple[int, ...], classes: int,
                  precisions: Sequence[str] = PRECISIONS, *,
                  seconds: float = MEASURE_SECONDS, progress: Progress | None = None,
                  should_stop: Callable[[], bool] = lambda: False,
                  on_data: bool = False, own_inputs: bool = False) -> ModelMeasurement:
    """``spec``'s model timed under each of ``precisions`` (float32 first) at
    ``spec.batch_size`` on this machine's run device, ``seconds`` each after the
    warm-up; on ``spec``'s data with ``on_data`` (synthetic data of ``input_shape``
    where it holds less than a batch), else on synthetic data. A precision that fails
    (out of memory at this batch, a setup error) says why in its row; a Stop ends the
    measurement with the precisions timed so far."""
    from mpstudio.engine import device_info
    from mpstudio.engine.datasets.registry import display_name
    from mpstudio.engine.templates.user_model import model_name
    from mpstudio.engine.trainer.monitor import WARMUP_STEPS

    devices = device_info.run_devices()
    name = model_name(spec.template)
    base = measurement_spec(spec, input_shape, classes, on_data)
    wanted = [FLOAT32] + [p for p in precisions if p != FLOAT32]
    timed: list[PrecisionMeasurement] = []
    stopped = False
    for done, precision in enumerate(wanted):
        if should_stop():
            stopped = True
            break
        if progress is not None:
            progress(done, len(wanted), f"{name} {precision}")
        timer = _Timed(seconds, should_stop)
        try:
            timed.append(_timed_run(precision_spec(base, precision), timer, on_data))
        except _DataTooSmall:  # less than a batch: what its shape does, then
            on_data = False
            base = measurement_spec(spec, input_shape, classes)
            timed.append(_timed_run(precision_spec(base, precision), timer))
        if timer.user_stopped:
            stopped = True
            break
    if progress is not None and not stopped:
        progress(len(wanted), len(wanted), "done")
    return ModelMeasurement(
        device=run_device_label(devices),
        device_name=devices.label, template=spec.template, batch_size=spec.batch_size,
        input_shape=tuple(input_shape), classes=classes, precisions=with_speedups(timed),
        warmup_steps=WARMUP_STEPS, seconds_per_precision=seconds,
        baseline=devices.float32_math, stopped=stopped, own_inputs=own_inputs,
        data=display_name(spec.dataset) if on_data else "")


def run_device_label(devices: Any = None) -> str:
    """The hardware check's label of the device a run here computes on ("CPU",
    "GPU:0"); ``devices``: the run's (default: this machine's)."""
    from mpstudio.engine import device_info

    devices = devices or device_info.run_devices()
    return "CPU" if devices.kind == "CPU" else (devices.devices or ("GPU:0",))[0]


class _DataTooSmall(Exception):
    """The data holds less than one batch."""


def _timed_run(spec: RunSpec, timer: _Timed, on_data: bool = False) -> PrecisionMeasurement:
    """One precision's run, timed; its failure in words where it has no timed window.
    ``on_data``: _DataTooSmall where the data holds less than a batch."""
    from mpstudio.engine.datasets.errors import DataLoadStopped
    from mpstudio.engine.spec import SpecError
    from mpstudio.engine.trainer.runner import RunSetupError, run

    precision = spec.precision
    try:
        result = run(spec, timer, oom_retry=False)
    except SpecError as exc:
        if on_data and exc.batch_limit is not None:
            raise _DataTooSmall from None
        return PrecisionMeasurement(precision, failure="; ".join(exc.problems))
    except (RunSetupError, DataLoadStopped) as exc:
        return PrecisionMeasurement(precision, failure=str(exc))
    except Exception as exc:  # a precision that cannot run here must not end the others
        log.warning("measuring %s failed", precision, exc_info=True)
        return PrecisionMeasurement(precision, failure=f"{type(exc).__name__}: {exc}")
    summary = result.summary
    if not timer.rates:
        reason: str = (Said(result.failure.reason) if result.failure is not None else
                       _("stopped before a step was timed") if timer.user_stopped else
                       _("no step was timed after the warm-up"))
        return PrecisionMeasurement(precision, failure=reason)
    rates = sorted(timer.rates)
    low, high = _quartiles(rates)
    steps = summary.steps_done - summary.warmup_steps
    return PrecisionMeasurement(
        precision, statistics.median(rates), low, high, steps=steps,
        seconds=(summary.steady_step_time or 0.0) * steps, windows=len(rates))


def _quartiles(rates: list[float]) -> tuple[float, float]:
    """The lower and upper quartiles (the extremes of fewer than four windows)."""
    if len(rates) < 4:
        return rates[0], rates[-1]
    quartiles = statistics.quantiles(rates, n=4)
    return quartiles[0], quartiles[2]
