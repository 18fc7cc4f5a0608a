"""RunMonitor: the bookkeeping both training loops share, and the events it emits.

Sampling: every ``log_every`` steps (and at step 1, at the end of the warm-up
and at each epoch's end; automatic sampling also keeps 50 ms between samples)
the monitor waits for the device, takes the time, then reads the running epoch
means of loss and accuracy, the loss scale and the optimizer's applied-step
count in one fused read. The time between two samples is honest device time;
between samples nothing is read and the device runs ahead asynchronously. A
window's loss is recovered exactly from two running means:
(n*m_n - p*m_p) / (n - p), since every training batch has the same size.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from mpstudio.engine.events import (
    EpochMetrics,
    LossScaleChanged,
    Reporter,
    RunSummary,
    StepMetrics,
)
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said
from mpstudio.engine.spec import RunSpec

WARMUP_STEPS = 2  # tracing, XLA compilation and tf.data autotuning happen here
TARGET_SAMPLES_PER_EPOCH = 25
AUTO_MIN_SAMPLE_INTERVAL = 0.05  # seconds between automatic samples, at least



@dataclass(frozen=True)
class TrainState:
    loss_mean: float  # running mean of the unscaled loss over the epoch so far
    accuracy_mean: float
    applied_steps: int  # optimizer steps applied (skipped overflow steps do not count)
    scale: float | None  # the loss scale in force, None without loss scaling


class StateSource(Protocol):
    """What the monitor reads from a training loop (trainer.state_reader.StateReader)."""

    def applied_steps(self) -> int: ...  # waits for the device

    def scale(self) -> float | None: ...

    def read(self) -> TrainState: ...


def auto_log_every(steps_per_epoch: int) -> int:
    return max(1, steps_per_epoch // TARGET_SAMPLES_PER_EPOCH)


@dataclass(frozen=True)
class NonFiniteWeight:
    """The first weight (in the model's layer order) holding a NaN or an inf
    (trainer.weights_check finds it)."""

    layer: str  # the layer's name
    layer_type: str  # its class name (Dense)
    dtype: str  # the layer's compute dtype
    weight: str  # the weight's path (dense_1024/kernel)
    replicas: int  # on how many replicas' copies it is not finite
    of_replicas: int = 1  # how many replicas were checked (1 without a strategy)


@dataclass
class Divergence:
    step: int
    epoch: int
    loss: float
    loss_scale: float | None
    reason: Said  # shown now, kept in the history as its message
    # Set when the loss stayed finite but a weight did not (a fused kernel hid it).
    weight: NonFiniteWeight | None = None


@dataclass
class _EpochState:
    epoch: int = 0
    started: float = 0.0
    steps: int = 0  # steps done in this epoch
    sampled_steps: int = 0  # steps covered by the last sample
    sampled_loss: float = 0.0  # running means at the last sample
    sampled_accuracy: float = 0.0
    train_time: float | None = None


@dataclass
class RunMonitor:
    spec: RunSpec
    reporter: Reporter
    state: StateSource
    steps_per_epoch: int
    total_steps: int
    log_every: int
    label: str
    min_sample_interval: float = 0.0  # seconds; 0 samples exactly every log_every steps
    warmup_steps: int = WARMUP_STEPS
    clock: Callable[[], float] = time.perf_counter
    # Sample exactly at these steps (and at step 1, the warm-up's end and epoch ends):
    # a comparison's runs replay the first run's schedule, so their windows match.
    schedule: frozenset[int] | None = None
    global_batch: int = 0  # examples per step across replicas; 0: the spec's batch size
    # Training aids hook in here: before each step (steps done so far), after each step
    # (steps done, epoch), at each epoch's end (its metrics, cut short by a stop?), and
    # checks that end the run (early stopping).
    before_step_hooks: list[Callable[[int], None]] = field(default_factory=list)
    after_step_hooks: list[Callable[[int, int], None]] = field(default_factory=list)
    epoch_hooks: list[Callable[[EpochMetrics, bool], None]] = field(default_factory=list)
    stop_checks: list[Callable[[], bool]] = field(default_factory=list)
    # Checks the weights at each epoch's end and at the run's end: the first non-finite
    # weight, or None (trainer.weights_check; one pass over the weights, never per step).
    weights_check: Callable[[], NonFiniteWeight | None] | None = None

    # Run state, read by the loops and the runner.
    steps: int = field(default=0, init=False)
    sampled_steps: list[int] = field(default_factory=list, init=False)
    divergence: Divergence | None = field(default=None, init=False)
    stop_requested: bool = field(default=False, init=False)
    # Bookkeeping.
    _started: float = field(default=0.0, init=False, repr=False)
    _window_start: float = field(default=0.0, init=False, repr=False)
    _window_steps: int = field(default=0, init=False, repr=False)
    _applied_at_start: int = field(default=0, init=False, repr=False)
    _time_to_first_step: float | None = field(default=None, init=False, repr=False)
    _steady_time: float = field(default=0.0, init=False, repr=False)
    _steady_steps: int = field(default=0, init=False, repr=False)
    _scale: float | None = field(default=None, init=False, repr=False)
    _scale_min: float | None = field(default=None, init=False, repr=False)
    _scale_max: float | None = field(default=None, init=False, repr=False)
    _overflow_steps: int = field(default=0, init=False, repr=False)
    _epoch: _EpochState = field(default_factory=_EpochState, init=False, repr=False)
    _epochs: list[EpochMetrics] = field(default_factory=list, init=False, repr=False)
    _full_epoch_times: list[float] = field(default_factory=list, init=False, repr=False)
    _weights_checked_at: int | None = field(default=None, init=False, repr=False)

    # ------------------------------------------------------------ lifecycle
    def train_begin(self) -> None:
        self._applied_at_start = self.state.applied_steps()
        self._note_scale(self.state.scale())
        self._started = self.clock()

    def epoch_begin(self, epoch: int) -> None:
        """``epoch`` is 1-based."""
        now = self.clock()
        self._epoch = _EpochState(epoch=epoch, started=now)
        self._window_start = now
        self._window_steps = 0

    def before_step(self) -> None:
        if self._epoch.steps == 0:
            # An epoch's steady window starts at its first step, not at the epoch's
            # start: making the epoch's data iterator sometimes stalls for half a
            # second (seen in plain Keras fit too, at random epochs), which is epoch
            # time, not step time. Counted, it cut a 64-step epoch's examples/s by a
            # third and set mpstudio 17% below a one-epoch plain script.
            self._window_start = self.clock()
        for hook in self.before_step_hooks:
            hook(self.steps)

    def step_done(self) -> None:
        self.steps += 1
        self._epoch.steps += 1
        self._window_steps += 1
        if self.steps == 1 or self.steps == self.warmup_steps:
            self._sample()  # time to first step; the steady windows start after the warm-up
        elif self.schedule is not None:
            if self.steps in self.schedule:
                self._sample()
        elif self._epoch.steps % self.log_every == 0 and (
            not self.min_sample_interval
            or self.clock() - self._window_start >= self.min_sample_interval
        ):
            self._sample()
        for hook in self.after_step_hooks:
            hook(self.steps, self._epoch.epoch)

    def train_epoch_end(self) -> None:
        """The last training step of the epoch is done (validation not yet started)."""
        if self._epoch.train_time is not None:
            return
        if self._window_steps:
            self._sample()
        elif self.steps > self.warmup_steps:
            # Time after the last sample (e.g. the data iterator running out) is still
            # training time: a loop whose last step was a sample point must not drop it.
            self._steady_time += self.clock() - self._window_start
        self._epoch.train_time = self.clock() - self._epoch.started

    def epoch_end(
        self, loss: float, accuracy: float, val_loss: float | None, val_accuracy: float | None
    ) -> None:
        self.train_epoch_end()
        if self.divergence is None and not math.isfinite(loss):
            self._diverge(loss, self._scale)
        self.check_weights(loss)
        state = self._epoch
        event = EpochMetrics(
            epoch=state.epoch,
            steps=self.steps,
            loss=float(loss),
            accuracy=float(accuracy),
            val_loss=None if val_loss is None else float(val_loss),
            val_accuracy=None if val_accuracy is None else float(val_accuracy),
            epoch_time=self.clock() - state.started,
            train_time=state.train_time or 0.0,
        )
        self._epochs.append(event)
        if state.steps == self.steps_per_epoch:
            self._full_epoch_times.append(event.epoch_time)
        self.reporter.emit(event)
        partial = self.stop_requested or state.steps < self.steps_per_epoch
        for hook in self.epoch_hooks:
            hook(event, partial)

    @property
    def _batch(self) -> int:
        return self.global_batch or self.spec.batch_size

    @property
    def epochs(self) -> list[EpochMetrics]:
        return self._epochs

    # --------------------------------------------------------------- stops
    def poll_stop(self) -> None:
        if not self.stop_requested and self.reporter.should_stop():
            self.stop_requested = True

    @property
    def aid_stopped(self) -> bool:
        return any(check() for check in self.stop_checks)

    def stop_before_next_step(self) -> bool:
        """For loops that can stop between steps (the custom loop)."""
        self.poll_stop()
        return (self.stop_requested or self.divergence is not None
                or self.steps >= self.total_steps or self.aid_stopped)

    def next_step_is_last(self) -> bool:
        """For loops that stop after the step they are about to run (Keras fit)."""
        self.poll_stop()
        return (
            self.stop_requested
            or self.divergence is not None
            or self.steps + 1 >= self.total_steps
            or self.aid_stopped
        )

    # ------------------------------------------------------------- sampling
    def _sample(self) -> None:
        self.state.applied_steps()  # waits for the device: the time below is honest
        now = self.clock()
        self.sampled_steps.append(self.steps)
        # The read's own cost (a one-off trace at step 1) falls into the next window.
        sample = self.state.read()
        loss_mean, acc_mean, scale = sample.loss_mean, sample.accuracy_mean, sample.scale
        applied = sample.applied_steps - self._applied_at_start
        state = self._epoch
        n, p = state.steps, state.sampled_steps
        loss = (n * loss_mean - p * state.sampled_loss) / (n - p) if p else loss_mean
        accuracy = (n * acc_mean - p * state.sampled_accuracy) / (n - p) if p else acc_mean
        state.sampled_steps, state.sampled_loss, state.sampled_accuracy = n, loss_mean, acc_mean

        elapsed = now - self._window_start
        if self.steps == 1:
            self._time_to_first_step = now - self._started
        warmup = self.steps - self._window_steps < self.warmup_steps
        if not warmup:
            self._steady_time += elapsed
            self._steady_steps += self._window_steps
        new_overflows = max(0, self.steps - applied - self._overflow_steps)
        self._overflow_steps = self.steps - applied
        if scale != self._scale and scale is not None and self._scale is not None:
            self.reporter.emit(LossScaleChanged(self.steps, self._scale, scale, new_overflows))
        self._note_scale(scale)

        self.reporter.emit(
            StepMetrics(
                step=self.steps,
                epoch=state.epoch,
                loss=float(loss),
                accuracy=float(accuracy),
                loss_scale=scale,
                overflow_steps=self._overflow_steps,
                examples_per_sec=None
                if warmup
                else self._window_steps * self._batch / elapsed,
                step_time=elapsed / self._window_steps,
                warmup=warmup,
            )
        )
        if not math.isfinite(loss_mean) and self.divergence is None:
            self._diverge(loss_mean, scale, window_start=self.steps - self._window_steps + 1)
        # The next window starts at this sample, so the cost of emitting counts as step time.
        self._window_start = now
        self._window_steps = 0

    def _note_scale(self, scale: float | None) -> None:
        self._scale = scale
        if scale is not None:
            self._scale_min = scale if self._scale_min is None else min(self._scale_min, scale)
            self._scale_max = scale if self._scale_max is None else max(self._scale_max, scale)

    # ------------------------------------------------------------ divergence
    def check_weights(self, loss: float | None = None) -> None:
        """At an epoch's end and at the run's end (once per step count): a non-finite
        weight ends the run as diverged, whatever the loss says. ``loss``: the epoch's
        (None: the last epoch's, at the run's end)."""
        if (self.weights_check is None or self.divergence is not None
                or self._weights_checked_at == self.steps):
            return
        self._weights_checked_at = self.steps
        found = self.weights_check()
        if found is None:
            return
        if loss is None:
            loss = self._epochs[-1].loss if self._epochs else float("nan")
        where = said(N_("at the end of epoch {epoch} (step {step})"), epoch=self._epoch.epoch,
                     step=self.steps)
        weight = (found.weight if found.of_replicas <= 1 else
                  said(N_("{weight}, on {count} of {replicas} replicas"), weight=found.weight,
                       count=found.replicas, replicas=found.of_replicas))
        scale_text = f"{self._scale:g}" if self._scale is not None else said(N_("none"))
        self.divergence = Divergence(
            step=self.steps,
            epoch=self._epoch.epoch,
            loss=loss,
            loss_scale=self._scale,
            weight=found,
            reason=said(
                N_("training diverged: {layer} has non-finite weights ({weight}) {where}, "
                   "although the loss stayed {loss} (loss scale {scale}). Try: {advice}"),
                layer=describe_layer(found), weight=weight, where=where, loss=f"{loss:.4g}",
                scale=scale_text, advice=divergence_advice(self.spec)),
        )

    def _diverge(self, loss: float, scale: float | None, window_start: int | None = None) -> None:
        where = (
            said(N_("at step {step}"), step=self.steps)
            if window_start is None or window_start == self.steps
            else said(N_("between steps {first} and {last}"), first=window_start,
                      last=self.steps)
        )
        scale_text = f"{scale:g}" if scale is not None else said(N_("none"))
        self.divergence = Divergence(
            step=self.steps,
            epoch=self._epoch.epoch,
            loss=loss,
            loss_scale=scale,
            reason=said(
                N_("training diverged: the loss became {loss} {where} (epoch {epoch}, loss "
                   "scale {scale}). Try: {advice}"),
                loss=str(loss), where=where, epoch=self._epoch.epoch, scale=scale_text,
                advice=divergence_advice(self.spec)),
        )

    # -------------------------------------------------------------- summary
    def summary(
        self, status: str, *, xla: bool, device: str, params: int,
        peak_memory: int | None, memory_note: str,
    ) -> RunSummary:
        last = self._epochs[-1] if self._epochs else None
        val_accs = [e.val_accuracy for e in self._epochs if e.val_accuracy is not None]
        steady = self._steady_steps and self._steady_time > 0
        # Full epochs only (a stop or a step budget cuts the last one short), and
        # without the first one, which holds the tracing, when there are others.
        full_epochs = self._full_epoch_times[1:] or self._full_epoch_times
        return RunSummary(
            label=self.label,
            precision=self.spec.precision,
            status=status,
            loop=self.spec.loop,
            xla=xla,
            batch_size=self.spec.batch_size,
            epochs_done=len(self._epochs),
            steps_done=self.steps,
            warmup_steps=min(self.warmup_steps, self.steps),
            time_to_first_step=self._time_to_first_step,
            steady_examples_per_sec=(
                self._steady_steps * self._batch / self._steady_time if steady else None
            ),
            steady_step_time=self._steady_time / self._steady_steps if steady else None,
            mean_epoch_time=sum(full_epochs) / len(full_epochs) if full_epochs else None,
            total_time=self.clock() - self._started if self._started else 0.0,
            final_loss=last.loss if last else None,
            final_accuracy=last.accuracy if last else None,
            final_val_loss=last.val_loss if last else None,
            final_val_accuracy=last.val_accuracy if last else None,
            best_val_accuracy=max(val_accs) if val_accs else None,
            overflow_steps=self._overflow_steps,
            loss_scale_mode=self.spec.loss_scaling_mode,
            loss_scale_min=self._scale_min,
            loss_scale_max=self._scale_max,
            loss_scale_final=self._scale,
            peak_memory_bytes=peak_memory,
            memory_note=memory_note,
            device=device,
            params=params,
        )


def describe_layer(found: NonFiniteWeight) -> Said:
    """The layer holding the weight, as the numerics diagnosis names a layer."""
    return said(N_("layer '{layer}' ({type}, computing in {dtype})"), layer=found.layer,
                type=found.layer_type, dtype=found.dtype)


def divergence_advice(spec: RunSpec) -> Said:
    """What to try after a diverged run (a ``Said``: the failure reason keeps it)."""
    tips = [said(N_("a lower learning rate (now {rate})"), rate=f"{spec.learning_rate:g}")]
    mode = spec.loss_scaling_mode
    if spec.precision == "mixed_float16" and mode == "fixed":
        tips.insert(0, said(N_("dynamic loss scaling, or a smaller fixed factor (a fixed scale "
                               "never skips an overflowing step)")))
    elif spec.precision == "mixed_float16" and mode == "off":
        tips.insert(0, said(N_("dynamic loss scaling")))
    if spec.precision == "mixed_float16":
        tips.append(said(N_("mixed_bfloat16 where the device supports it (float16 overflows "
                            "above 65,504)")))
    tips.append(said(N_("float32, to tell a precision problem from an unstable model")))
    # each tip a message of its own, joined two by two (a translation may join them its way)
    joined = tips[0]
    for tip in tips[1:]:
        joined = said(N_("{first}; {then}"), first=joined, then=tip)
    return said(N_("{tips}."), tips=joined)
