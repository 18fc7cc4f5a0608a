"""Engine events turned into chart points: one ``RunCurves`` per run, no Qt.

A comparison sends two runs one after the other (the float32 baseline, then the
mixed run); each ``RunStarted`` opens a new ``RunCurves`` and later events go to
it. Events arrive in batches (thousands at once from a fast run): a batch is
sorted by kind, and each kind becomes arrays appended to the buffers in one
vectorised call each.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from mpstudio.engine.events import (
    EpochMetrics,
    GradientUnderflow,
    LossScaleChanged,
    RunStarted,
    StepMetrics,
)
from mpstudio.ui.charts.chart_buffer import DEFAULT_CAP, ChartBuffer, MarkerList

_EMPTY = np.empty(0)

# Series names, as ``LiveCharts.point_counts`` reports them.
SERIES = (
    "loss", "val_loss", "accuracy", "val_accuracy", "loss_scale", "overflow", "throughput",
    "warmup", "underflow_unscaled", "underflow_scaled",
)


def chart_label(label: str) -> str:
    """A repeated comparison's trials share their side's curves: "mixed_float16 · trial
    2/3" draws as "mixed_float16", replacing trial 1 (one legend entry per side)."""
    return label.split(" · trial ")[0]


def is_baseline(label: str) -> bool:
    """A comparison's float32 reference: "float32 baseline", "TF32 baseline · trial 2/3"."""
    return "baseline" in label.lower()


class RunCurves:
    """The chart points of one run (one engine label)."""

    def __init__(
        self,
        label: str,
        batch_size: int | None = None,
        total_steps: int | None = None,
        cap: int = DEFAULT_CAP,
    ) -> None:
        self.label = label
        self.batch_size = batch_size  # to turn warm-up step times into examples/s
        self.total_steps = total_steps  # the run's planned length, where known
        self.loss = ChartBuffer("mean", cap)
        self.accuracy = ChartBuffer("mean", cap)
        self.val_loss = ChartBuffer("mean", cap)
        self.val_accuracy = ChartBuffer("mean", cap)
        self.loss_scale = ChartBuffer("last", cap)  # a step function: never averaged
        self.overflow = MarkerList()  # (step, loss scale) where steps were skipped
        self.throughput = ChartBuffer("mean", cap)  # steady state
        self.warmup = ChartBuffer("mean", cap)  # warm-up windows (tracing, compilation)
        self.warmup_span: tuple[float, float] | None = None  # steps covered by warm-up
        # Gradient underflow (mixed_float16 runs that sample it), in percent of the
        # nonzero gradient values: without loss scaling, and at the scale in force.
        self.underflow_unscaled = ChartBuffer("mean", cap)
        self.underflow_scaled = ChartBuffer("mean", cap)
        self.underflow_last: GradientUnderflow | None = None  # its per-layer breakdown
        self.samples = 0  # StepMetrics seen
        self.last_step = 0.0  # the latest step any event of this run reported
        self._overflow_steps = 0.0
        self._last_marker_step = -math.inf

    @classmethod
    def from_started(cls, event: RunStarted, cap: int = DEFAULT_CAP) -> RunCurves:
        batch = event.spec.get("batch_size") if isinstance(event.spec, dict) else None
        total = event.total_steps if event.total_steps and event.total_steps > 0 else None
        return cls(chart_label(event.label), batch if isinstance(batch, int) and batch > 0
                   else None, total, cap)

    @property
    def baseline(self) -> bool:
        return is_baseline(self.label)

    @property
    def loss_scaling(self) -> bool | None:
        """Whether this run scales its loss: None until its first sample says."""
        if len(self.loss_scale):
            return True
        return False if self.samples else None

    def series(self) -> dict[str, ChartBuffer]:
        return {name: getattr(self, name) for name in SERIES}

    def points_held(self) -> int:
        return sum(len(buffer) for buffer in self.series().values())

    # ---------------------------------------------------------------- events
    def add(
        self,
        steps: Sequence[StepMetrics] = (),
        epochs: Sequence[EpochMetrics] = (),
        scale_changes: Sequence[LossScaleChanged] = (),
        underflow: Sequence[GradientUnderflow] = (),
    ) -> None:
        """A batch of this run's events, each kind oldest first. Their kinds do not
        interleave in any way that matters, so each kind is added in one go."""
        if underflow:
            self._add_underflow(underflow)
        marker_x, marker_y = self._add_steps(steps) if steps else (_EMPTY, _EMPTY)
        overflowed = [(e.step, e.new) for e in scale_changes if e.overflow_steps > 0]
        if overflowed:
            changes = np.array(overflowed, dtype=float)
            marker_x = np.concatenate([marker_x, changes[:, 0]])
            marker_y = np.concatenate([marker_y, changes[:, 1]])
        if len(marker_x):
            self._add_markers(marker_x, marker_y)
        if epochs:
            self._add_epochs(epochs)

    def _add_steps(self, metrics: Sequence[StepMetrics]) -> tuple[np.ndarray, np.ndarray]:
        """Returns (step, scale) of the samples that saw new overflows."""
        # None (no loss scale, no steady speed yet) becomes NaN here.
        table = np.array(
            [
                (m.step, m.loss, m.accuracy, m.loss_scale, m.overflow_steps,
                 m.examples_per_sec, m.step_time, m.warmup)
                for m in metrics
            ],
            dtype=float,
        )
        step, loss, accuracy, scale, overflow, speed, step_time, warm = table.T
        self.loss.extend(step, loss)  # NaN kept: a diverged loss shows as a gap
        self.accuracy.extend(step, accuracy)
        has_scale = ~np.isnan(scale)
        self.loss_scale.extend(step[has_scale], scale[has_scale])
        self._add_throughput(step, speed, step_time, warm > 0)
        grew = (np.diff(overflow, prepend=self._overflow_steps) > 0) & has_scale
        self._overflow_steps = float(overflow[-1])
        self.last_step = max(self.last_step, float(step[-1]))
        self.samples += len(metrics)
        return step[grew], scale[grew]

    def _add_epochs(self, epochs: Sequence[EpochMetrics]) -> None:
        # At the global step of each epoch's end, so epochs share the step axis.
        self.last_step = max(self.last_step, float(epochs[-1].steps))
        for name in ("val_loss", "val_accuracy"):
            points = [(e.steps, getattr(e, name)) for e in epochs if getattr(e, name) is not None]
            if points:
                table = np.array(points, dtype=float)
                getattr(self, name).extend(table[:, 0], table[:, 1])

    def _add_underflow(self, samples: Sequence[GradientUnderflow]) -> None:
        table = np.array([(u.step, u.unscaled, u.scaled) for u in samples], dtype=float)
        step, unscaled, scaled = table.T
        self.underflow_unscaled.extend(step, 100.0 * unscaled)
        self.underflow_scaled.extend(step, 100.0 * scaled)
        self.underflow_last = samples[-1]
        self.last_step = max(self.last_step, float(step[-1]))

    # -------------------------------------------------------------- helpers
    def _add_throughput(
        self, step: np.ndarray, speed: np.ndarray, step_time: np.ndarray, warm: np.ndarray
    ) -> None:
        missing = np.isnan(speed)
        if missing.any() and self.batch_size:
            with np.errstate(divide="ignore", invalid="ignore"):
                speed[missing] = self.batch_size / step_time[missing]  # warm-up: no steady figure
        usable = np.isfinite(speed) & (speed > 0)
        steady, warming = usable & ~warm, usable & warm
        self.throughput.extend(step[steady], speed[steady])
        self.warmup.extend(step[warming], speed[warming])
        if warm.any():
            first_warm = int(np.argmax(warm))
            # A window covers the steps since the previous sample.
            start = float(step[first_warm - 1]) if first_warm else self.last_step
            end = float(step[warm].max())
            if self.warmup_span is not None:
                start, end = min(start, self.warmup_span[0]), max(end, self.warmup_span[1])
            self.warmup_span = (start, end)

    def _add_markers(self, step: np.ndarray, scale: np.ndarray) -> None:
        """One marker per step, in step order: a LossScaleChanged and the StepMetrics
        after it report the same overflow (maybe in different batches)."""
        order = np.argsort(step, kind="stable")
        step, scale = step[order], scale[order]
        keep = np.diff(step, prepend=self._last_marker_step) > 0
        if keep.any():
            self.overflow.extend(step[keep], scale[keep])
            self._last_marker_step = float(step[keep][-1])


class ChartData:
    """Every run on the charts, in arrival order: label -> RunCurves."""

    def __init__(self, cap: int = DEFAULT_CAP) -> None:
        self.cap = cap
        self.runs: dict[str, RunCurves] = {}
        self.current: RunCurves | None = None
        self.dirty = False  # something changed since the last redraw

    def add_events(self, events: Iterable[object]) -> None:
        # Sorted by kind and added per run in one go: a batch of thousands of samples
        # costs a handful of NumPy calls, not thousands of small ones.
        steps: list[StepMetrics] = []
        epochs: list[EpochMetrics] = []
        changes: list[LossScaleChanged] = []
        underflow: list[GradientUnderflow] = []
        for event in events:
            kind = type(event)
            if kind is StepMetrics:
                steps.append(event)  # type: ignore[arg-type]
            elif kind is EpochMetrics:
                epochs.append(event)  # type: ignore[arg-type]
            elif kind is LossScaleChanged:
                changes.append(event)  # type: ignore[arg-type]
            elif kind is GradientUnderflow:
                underflow.append(event)  # type: ignore[arg-type]
            elif kind is RunStarted:  # the next run: what came before belongs to the last one
                self._add(steps, epochs, changes, underflow)
                steps, epochs, changes, underflow = [], [], [], []
                self._start(event)  # type: ignore[arg-type]
            # DataProgress, warnings, the end of a run: not chart data
        self._add(steps, epochs, changes, underflow)

    def clear(self) -> None:
        self.runs.clear()
        self.current = None
        self.dirty = True

    def points_held(self) -> int:
        return sum(run.points_held() for run in self.runs.values())

    def last_step(self) -> float | None:
        """The latest step of any run: how far the step axis must reach."""
        return max((run.last_step for run in self.runs.values() if run.last_step), default=None)

    def total_steps(self) -> int | None:
        """The longest planned run, where the runs said."""
        return max((run.total_steps or 0 for run in self.runs.values()), default=0) or None

    def has_underflow(self) -> bool:
        """Whether any run on the charts has sent a gradient-underflow sample."""
        return any(run.underflow_last is not None for run in self.runs.values())

    def latest_underflow(self) -> tuple[str, GradientUnderflow] | None:
        """(run label, sample) of the last run that sent one: its layers are shown."""
        for run in reversed(list(self.runs.values())):
            if run.underflow_last is not None:
                return run.label, run.underflow_last
        return None

    def warmup_span(self) -> tuple[float, float] | None:
        """The steps any run spent warming up (the runs of a comparison overlap)."""
        spans = [run.warmup_span for run in self.runs.values() if run.warmup_span]
        if not spans:
            return None
        return min(s[0] for s in spans), max(s[1] for s in spans)

    def _start(self, event: RunStarted) -> None:
        self.current = RunCurves.from_started(event, self.cap)
        self.runs.pop(self.current.label, None)  # the same label again: a fresh run replaces it
        self.runs[self.current.label] = self.current
        self.dirty = True

    def _run(self) -> RunCurves:
        if self.current is None:  # samples with no RunStarted (a replayed log): still shown
            self.current = self.runs["run"] = RunCurves("run", cap=self.cap)
        return self.current

    def _add(self, steps: list, epochs: list, changes: list, underflow: list) -> None:
        if steps or epochs or changes or underflow:
            self._run().add(steps, epochs, changes, underflow)
            self.dirty = True
