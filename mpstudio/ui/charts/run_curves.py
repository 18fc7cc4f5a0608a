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

from mpstudio.engine.charts.chart_specs import SERIES as SPECS
from mpstudio.engine.charts.chart_specs import SeriesSpec
from mpstudio.engine.charts.series_points import EventKind, columns, points
from mpstudio.engine.events import (
    EpochMetrics,
    GradientUnderflow,
    LossScaleChanged,
    RunStarted,
    StepMetrics,
)
from mpstudio.ui.charts.chart_buffer import DEFAULT_CAP, ChartBuffer, MarkerList

_EMPTY = np.empty(0)

SERIES = tuple(SPECS)  # series names, in the chart table's order
_FED = {kind: [(name, spec.feed) for name, spec in SPECS.items() if spec.feed.event == kind]
        for kind in ("step", "epoch", "underflow")}  # event kind -> the series it feeds
_MARKERS = [name for name, spec in SPECS.items() if spec.feed.select == "overflow"]


def chart_label(label: str) -> str:
    """A repeated comparison's trials share their side's curves: "mixed_float16 · trial
    2/3" draws as "mixed_float16", replacing trial 1 (one legend entry per side)."""
    return label.split(" · trial ")[0]


def is_baseline(label: str) -> bool:
    """A comparison's float32 reference: "float32 baseline", "TF32 baseline · trial 2/3"."""
    return "baseline" in label.lower()


def new_buffer(spec: SeriesSpec, cap: int) -> ChartBuffer:
    """Sparse markers keep a small bounded list; every other series a growing buffer."""
    return MarkerList() if spec.feed.select == "overflow" else ChartBuffer(spec.combine, cap)


class RunCurves:
    """The chart points of one run (one engine label): a buffer per series of the
    chart table, ``run.buffers[name]`` (or ``run.<name>``)."""

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
        self.buffers = {name: new_buffer(spec, cap) for name, spec in SPECS.items()}
        self.warmup_span: tuple[float, float] | None = None  # steps covered by warm-up
        self.underflow_last: GradientUnderflow | None = None  # its per-layer breakdown
        self.samples = 0  # StepMetrics seen
        self.last_step = 0.0  # the latest step any event of this run reported
        self._overflow_steps = 0.0
        self._last_marker_step = -math.inf

    def __getattr__(self, name: str) -> ChartBuffer:
        buffers = self.__dict__.get("buffers", {})  # run.loss: the "loss" series' buffer
        if name in buffers:
            return buffers[name]
        raise AttributeError(name)

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
        if len(self.buffers["loss_scale"]):
            return True
        return False if self.samples else None

    def series(self) -> dict[str, ChartBuffer]:
        return self.buffers

    def points_held(self) -> int:
        return sum(len(buffer) for buffer in self.buffers.values())

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
            self.underflow_last = underflow[-1]
            self.last_step = max(self.last_step, float(underflow[-1].step))
        step_table = columns(steps, "step") if steps else None
        feeds: tuple[tuple[EventKind, Sequence[object]], ...] = (
            ("step", steps), ("epoch", epochs), ("underflow", underflow))
        for kind, events in feeds:
            if not events:
                continue
            table = (step_table if kind == "step" and step_table is not None
                     else columns(events, kind))
            for name, feed in _FED[kind]:
                if feed.select == "overflow":
                    self._add_markers(name, *points(feed, table, None, self._overflow_steps),
                                      scale_changes)
                else:
                    self.buffers[name].extend(*points(feed, table, self.batch_size))
        if scale_changes and not steps:  # markers come from scale changes too
            for name in _MARKERS:
                self._add_markers(name, _EMPTY, _EMPTY, scale_changes)
        if step_table is not None:
            self._after_steps(step_table)
        if epochs:  # at the global step of each epoch's end, so epochs share the step axis
            self.last_step = max(self.last_step, float(epochs[-1].steps))

    def _after_steps(self, table: dict[str, np.ndarray]) -> None:
        step = table["step"]
        warm = table["warmup"] > 0
        if warm.any():
            first_warm = int(np.argmax(warm))
            # A window covers the steps since the previous sample.
            start = float(step[first_warm - 1]) if first_warm else self.last_step
            end = float(step[warm].max())
            if self.warmup_span is not None:
                start, end = min(start, self.warmup_span[0]), max(end, self.warmup_span[1])
            self.warmup_span = (start, end)
        self._overflow_steps = float(table["overflow_steps"][-1])
        self.last_step = max(self.last_step, float(step[-1]))
        self.samples += len(step)

    # -------------------------------------------------------------- helpers
    def _add_markers(self, name: str, step: np.ndarray, scale: np.ndarray,
                     scale_changes: Sequence[LossScaleChanged]) -> None:
        """One marker per step, in step order: a LossScaleChanged and the StepMetrics
        after it report the same overflow (maybe in different batches)."""
        overflowed = [(e.step, e.new) for e in scale_changes if e.overflow_steps > 0]
        if overflowed:
            changes = np.array(overflowed, dtype=float)
            step = np.concatenate([step, changes[:, 0]])
            scale = np.concatenate([scale, changes[:, 1]])
        if not len(step):
            return
        order = np.argsort(step, kind="stable")
        step, scale = step[order], scale[order]
        keep = np.diff(step, prepend=self._last_marker_step) > 0
        if keep.any():
            self.buffers[name].extend(step[keep], scale[keep])
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
