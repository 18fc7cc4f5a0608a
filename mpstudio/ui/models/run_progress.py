"""Where a run is (epoch, step, ETA, device) and which lines, at which level, the log
shows for each engine event (worded by mpstudio.engine.event_text, as in the terminal).
Plain Python: the window shows it, the tests read it."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.event_text import (
    aid_line,
    data_progress_text,
    diagnosis_line,
    epoch_line,
    failed_line,
    first_underflow_line,
    fmt_duration,
    loss_scale_line,
    retry_line,
    started_lines,
    summary_line,
    topic_text,
    underflow_brief,
)
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
from mpstudio.engine.i18n import _
from mpstudio.engine.run_labels import shown_label

# The run-start topics whose text is a sentence that names itself: the log shows it bare.
_SELF_NAMED = ("scaling", "spread")


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
    loading: str = ""  # "downloading mnist.npz 4.1 MB/11.5 MB" while data loads
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
            if not first:
                return []
            return [("info", first_underflow_line(event, self._underflow_every))]
        if isinstance(event, OomRetry):
            return self._retry(event)
        if self._oom_pending is not None:  # no retry came: the attempt's failure is final
            return self.finish() + self.update(event, now)
        if isinstance(event, DataProgress):
            self.loading = data_progress_text(event)
            self.loading_fraction = event.done / event.total if event.total else None
            return []
        if isinstance(event, RunStarted):
            return self._started(event, now)
        if isinstance(event, EpochMetrics):
            return [("info", epoch_line(self.label, event))]
        if isinstance(event, LossScaleChanged):
            line = loss_scale_line(event)
            return [("info", line)] if line else []
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
            label = self.label if self.runs_planned > 1 else ""
            return [("info", aid_line(event, label))]
        if isinstance(event, NumericsDiagnosis):
            return [("error", diagnosis_line(event))]
        return []

    def finish(self) -> list[tuple[str, str]]:
        """The job ended: an out-of-memory failure still waiting for its retry is final."""
        pending, self._oom_pending = self._oom_pending, None
        return self._failed(pending) if pending is not None else []

    def _failed(self, event: RunFailed) -> list[tuple[str, str]]:
        self.failure = event
        if event.summary is not None:
            self.summaries.append(event.summary)
        return [("error", failed_line(self.label, event))]

    def _retry(self, event: OomRetry) -> list[tuple[str, str]]:
        """An attempt ran out of memory; the same run starts again at a smaller batch."""
        pending, self._oom_pending = self._oom_pending, None
        self.oom_retries += 1
        self._retrying = True
        lines = []
        if pending is not None:
            lines.append(("warning", failed_line(self.label, pending, retry_follows=True)))
        lines.append(("warning", retry_line(self.oom_retries, event)))
        return lines

    def _started(self, event: RunStarted, now: float) -> list[tuple[str, str]]:
        retry = self._retrying
        self._retrying = False
        if not retry:  # a retry is the same run again: the job's count stays
            self.runs_started += 1
            self.oom_retries = 0
        spec = event.spec if isinstance(event.spec, dict) else {}
        aids = spec.get("aids")
        if not isinstance(aids, dict):
            aids = {}
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
        again = _(" (retry {retry}, batch size {batch})").format(
            retry=self.oom_retries, batch=self.batch_size) if retry else ""
        (_topic, data), *rest = started_lines(event)
        return [("info", _("{label}{again}: {data}").format(
            label=shown_label(event.label), again=again, data=data))] + [
            ("info", f"  {text}" if topic in _SELF_NAMED else f"  {topic_text(topic)} {text}")
            for topic, text in rest
        ]

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
            return _("loading the data…")
        epochs = math.ceil(self.total_steps / self.steps_per_epoch) if self.steps_per_epoch else 0
        run = _(" (run {run} of {runs})").format(
            run=self.runs_started, runs=self.runs_planned) if self.runs_planned > 1 else ""
        eta = self.eta_seconds(now)
        eta_text = _(" · ETA {time}").format(time=fmt_duration(eta)) if eta is not None else ""
        retry = _(" · retry {retry} at batch {batch}").format(
            retry=self.oom_retries, batch=self.batch_size) if self.oom_retries else ""
        u = self.underflow
        underflow = f" · {underflow_brief(u)}" if u is not None else ""
        return _("{label}{run}{retry} · epoch {epoch}/{epochs} · step {step}/{steps}{eta}"
                 "{underflow}").format(
            label=shown_label(self.label), run=run, retry=retry, epoch=max(1, self.epoch),
            epochs=epochs,
            step=self.step, steps=self.total_steps, eta=eta_text, underflow=underflow)
