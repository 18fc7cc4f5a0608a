"""Where a run is (epoch, step, ETA, device) and what the log should say about each
engine event. Plain Python: the window shows it, the tests read it."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.events import (
    AidAction,
    EpochMetrics,
    GradientUnderflow,
    LossScaleChanged,
    NumericsDiagnosis,
    OomRetry,
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


AID_NAMES = {"early_stopping": "early stopping", "reduce_lr": "learning rate",
             "best_checkpoint": "best checkpoint"}


def summary_line(s: RunSummary) -> str:
    """One line a user scans: status, speed, accuracy, loss scaling, and what the
    training aids did."""
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
    return " · ".join(parts + aid_notes(s))


def aid_notes(s: RunSummary) -> list[str]:
    """The training aids' part of a summary line: what they did, out-of-memory retries,
    the last gradient-underflow sample, where the TensorBoard logs went."""
    notes = [s.aids] if s.aids else []
    if s.oom_retries:
        retries = f"{s.oom_retries} out-of-memory retr{'y' if s.oom_retries == 1 else 'ies'}"
        notes.append(f"batch {s.largest_batch_fit:,} fit after {retries}" if s.largest_batch_fit
                     else f"{retries}, down to batch {s.batch_size:,}")
    if s.underflow_unscaled is not None:
        notes.append(f"gradient underflow {fmt_pct(s.underflow_unscaled)} without loss scaling, "
                     f"{fmt_pct(s.underflow_scaled)} at the scale (last sample)")
    if s.tensorboard_dir:
        notes.append(f"TensorBoard logs in {s.tensorboard_dir}")
    return notes


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
    oom_retries: int = 0  # attempts of the current run that ran out of memory and were retried
    batch_size: int | None = None  # the current attempt's
    underflow: GradientUnderflow | None = None  # the current run's latest sample
    _underflow_every: int = 0
    _oom_retry_on: bool = False  # the current run retries at half the batch when out of memory
    _oom_pending: RunFailed | None = None  # out of memory: a retry may follow
    _retrying: bool = False  # the next RunStarted is a retry of the same run
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
        if isinstance(event, GradientUnderflow):  # every few steps: one line for the first
            first = self.underflow is None
            self.underflow = event
            return [("info", self._underflow_line(event))] if first else []
        if isinstance(event, OomRetry):
            return self._retry(event)
        if self._oom_pending is not None:  # no retry came: the attempt's failure is final
            return self.finish() + self.update(event, now)
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
            if event.kind == "out_of_memory" and self._oom_retry_on:
                self._oom_pending = event  # said once we know whether a retry follows
                return []
            return self._failed(event)
        if isinstance(event, AidAction):
            name = AID_NAMES.get(event.aid, event.aid.replace("_", " "))
            run = f" ({self.label})" if self.runs_planned > 1 else ""
            return [("info", f"{name}{run}: {event.message}")]
        if isinstance(event, NumericsDiagnosis):
            return [("error", f"diagnosis: {event.message}")]
        return []

    def finish(self) -> list[tuple[str, str]]:
        """The job ended: an out-of-memory failure still waiting for its retry is final."""
        pending, self._oom_pending = self._oom_pending, None
        return self._failed(pending) if pending is not None else []

    def _failed(self, event: RunFailed) -> list[tuple[str, str]]:
        self.failure = event
        if event.summary is not None:
            self.summaries.append(event.summary)
        return [("error", f"{self.label}: {event.reason}")]

    def _retry(self, event: OomRetry) -> list[tuple[str, str]]:
        """An attempt ran out of memory; the same run starts again at a smaller batch."""
        pending, self._oom_pending = self._oom_pending, None
        self.oom_retries += 1
        self._retrying = True
        lines = []
        if pending is not None:
            lines.append(("warning", f"{self.label}: {pending.reason} (a retry follows)"))
        lines.append(("warning", f"retry {self.oom_retries}: {event.message}"))
        return lines

    def _underflow_line(self, e: GradientUnderflow) -> str:
        n = self._underflow_every
        every = f"every {n} steps" if n else "periodically"
        return (f"gradient-underflow view: sampling {every}, {1000 * e.seconds:.1f} ms for "
                f"the first sample (tracing included); at step {e.step} "
                f"{fmt_pct(e.unscaled)} of the nonzero gradient values round to 0 in float16 "
                f"without loss scaling, {fmt_pct(e.scaled)} at scale {e.scale:g}")

    def _started(self, event: RunStarted, now: float) -> list[tuple[str, str]]:
        retry = self._retrying
        self._retrying = False
        if not retry:  # a retry is the same run again: the job's count stays
            self.runs_started += 1
            self.oom_retries = 0
        spec = event.spec if isinstance(event.spec, dict) else {}
        aids = spec.get("aids") if isinstance(spec.get("aids"), dict) else {}
        batch = spec.get("batch_size")
        self.batch_size = batch if isinstance(batch, int) else None
        self._underflow_every = int(aids.get("underflow_every") or 0)
        # A comparison turns the retry off: both sides must train the same batch.
        self._oom_retry_on = bool(aids.get("oom_retry")) and event.role == "single"
        self.underflow = None
        self.label, self.device = event.label, event.hardware.get("device", "")
        self.total_steps, self.steps_per_epoch = event.total_steps, event.steps_per_epoch
        self.step = self.epoch = 0
        self.loading, self.loading_fraction = "", None
        self._started_at, self._first_step_at = now, None
        model = event.model
        again = f" (retry {self.oom_retries}, batch size {self.batch_size})" if retry else ""
        return [
            ("info", f"{event.label}{again}: {event.dataset}"),
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
        retry = (f" · retry {self.oom_retries} at batch {self.batch_size}"
                 if self.oom_retries else "")
        u = self.underflow
        underflow = (f" · underflow {fmt_pct(u.unscaled)} / {fmt_pct(u.scaled)} scaled"
                     if u is not None else "")
        return (f"{self.label}{run}{retry} · epoch {max(1, self.epoch)}/{epochs} · "
                f"step {self.step}/{self.total_steps}{eta_text}{underflow}")


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
