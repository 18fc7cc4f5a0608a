"""Where a run is (epoch, step, ETA, device) and what the log should say about each
engine event. Plain Python: the window shows it, the tests read it."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.events import (
    EpochMetrics,
    LossScaleChanged,
    RunFailed,
    RunFinished,
    RunStarted,
    RunSummary,
    RunWarning,
    StepMetrics,
)


def fmt_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def fmt_rate(value: float | None) -> str:
    return f"{value:,.0f} examples/s" if value else "n/a"


def fmt_pct(value: float | None) -> str:
    return f"{100 * value:.1f}%" if value is not None and math.isfinite(value) else "n/a"


def summary_line(s: RunSummary) -> str:
    """One line a user scans: status, speed, accuracy, loss scaling."""
    parts = [f"{s.label} {s.status}: {s.steps_done} steps in {fmt_duration(s.total_time)}",
             f"steady {fmt_rate(s.steady_examples_per_sec)}"]
    if s.final_val_accuracy is not None:
        parts.append(f"val accuracy {fmt_pct(s.final_val_accuracy)}")
    if s.test_accuracy is not None:
        parts.append(f"test accuracy {fmt_pct(s.test_accuracy)}")
    if s.loss_scale_mode == "dynamic":
        parts.append(f"{s.overflow_steps} overflow steps skipped")
    where = distribution_text(s)
    if where:
        parts.insert(1, where)
    return " · ".join(parts)


def distribution_text(s: RunSummary) -> str:
    """"mirrored, 2 replicas, global batch 256" for a distributed run; "" for the
    default strategy (one device), whose lines stay as they were."""
    if s.strategy == "default":
        return ""
    replicas = s.replicas or 1
    text = f"{s.strategy}, {replicas} replica{'' if replicas == 1 else 's'}"
    if s.global_batch_size:
        text += f", global batch {s.global_batch_size:,}"
    return text


@dataclass
class RunProgress:
    """Follows the events of one training job (one run, or a baseline and a mixed run)."""

    runs_planned: int = 1
    runs_started: int = 0
    label: str = ""
    device: str = ""
    step: int = 0
    epoch: int = 0
    total_steps: int = 0
    steps_per_epoch: int = 0
    loading: str = ""  # "downloading mnist.npz 4.1/11.5 MB" while data loads
    loading_fraction: float | None = None
    summaries: list[RunSummary] = field(default_factory=list)
    failure: RunFailed | None = None
    _started_at: float = 0.0
    _first_step_at: float | None = None
    _first_step: int = 0

    def update(self, event: object, now: float | None = None) -> list[tuple[str, str]]:
        """Take one event; return the (level, text) lines the log should show."""
        now = time.monotonic() if now is None else now
        if isinstance(event, StepMetrics):  # the common case first
            self.step, self.epoch = event.step, event.epoch
            if self._first_step_at is None:
                self._first_step_at, self._first_step = now, event.step
            return []
        if isinstance(event, DataProgress):
            total = f"/{_amount(event.total, event.unit)}" if event.total else ""
            self.loading = f"{event.task} {_amount(event.done, event.unit)}{total}"
            self.loading_fraction = event.done / event.total if event.total else None
            return []
        if isinstance(event, RunStarted):
            return self._started(event, now)
        if isinstance(event, EpochMetrics):
            return [("info", _epoch_line(self.label, event))]
        if isinstance(event, LossScaleChanged):
            if event.new < event.old:
                n = event.overflow_steps
                skipped = f", {n} step(s) skipped" if n else ""
                return [("info", f"step {event.step}: loss scale {event.old:g} -> "
                                 f"{event.new:g} (gradients overflowed{skipped})")]
            return []
        if isinstance(event, RunWarning):
            return [("warning", event.message)]
        if isinstance(event, RunFinished):
            self.summaries.append(event.summary)
            level = "success" if event.summary.status == "finished" else "info"
            return [(level, summary_line(event.summary))]
        if isinstance(event, RunFailed):
            self.failure = event
            if event.summary is not None:
                self.summaries.append(event.summary)
            return [("error", f"{self.label}: {event.reason}")]
        return []

    def _started(self, event: RunStarted, now: float) -> list[tuple[str, str]]:
        self.runs_started += 1
        self.label, self.device = event.label, event.hardware.get("device", "")
        self.total_steps, self.steps_per_epoch = event.total_steps, event.steps_per_epoch
        self.step = self.epoch = 0
        self.loading, self.loading_fraction = "", None
        self._started_at, self._first_step_at = now, None
        model = event.model
        return [
            ("info", f"{event.label}: {event.dataset}"),
            ("info", f"  model {model.name}: {model.params:,} parameters under {model.policy}, "
                     f"output {model.output_dtype}; {event.total_steps} steps "
                     f"({event.steps_per_epoch} per epoch), XLA {'on' if event.xla else 'off'}"),
            ("info", f"  {event.loss_scaling}"),
            ("info", f"  device: {self.device or 'unknown'}"),
        ] + ([("info", f"  {event.distribution}")] if event.distribution else [])

    # ------------------------------------------------------------ for display
    @property
    def fraction(self) -> float:
        """How much of the whole job is done, 0..1 (a comparison is two runs)."""
        if not self.total_steps:
            return 0.0
        done_runs = max(0, self.runs_started - 1)
        return min(1.0, (done_runs + self.step / self.total_steps) / max(1, self.runs_planned))

    def eta_seconds(self, now: float | None = None) -> float | None:
        """Time left in this run from the pace since its first step (warm-up left out)."""
        now = time.monotonic() if now is None else now
        if self._first_step_at is None or self.step <= self._first_step:
            return None
        pace = (now - self._first_step_at) / (self.step - self._first_step)
        left = self.total_steps - self.step
        later_runs = max(0, self.runs_planned - self.runs_started) * self.total_steps
        return pace * (left + later_runs)

    def status_text(self, now: float | None = None) -> str:
        if self.loading:
            return self.loading
        if not self.runs_started:
            return "loading the data…"
        epochs = math.ceil(self.total_steps / self.steps_per_epoch) if self.steps_per_epoch else 0
        run = f" (run {self.runs_started} of {self.runs_planned})" if self.runs_planned > 1 else ""
        eta = self.eta_seconds(now)
        eta_text = f" · ETA {fmt_duration(eta)}" if eta is not None else ""
        return (f"{self.label}{run} · epoch {max(1, self.epoch)}/{epochs} · "
                f"step {self.step}/{self.total_steps}{eta_text}")


def _epoch_line(label: str, e: EpochMetrics) -> str:
    val = ""
    if e.val_loss is not None:
        val = f", val loss {e.val_loss:.4f}, val accuracy {fmt_pct(e.val_accuracy)}"
    return (f"{label} epoch {e.epoch}: loss {e.loss:.4f}, accuracy {fmt_pct(e.accuracy)}"
            f"{val} ({e.epoch_time:.1f} s)")


def _amount(value: int | None, unit: str) -> str:
    if value is None:
        return "?"
    return f"{value / 1e6:.1f} MB" if unit == "B" else f"{value:,}"
