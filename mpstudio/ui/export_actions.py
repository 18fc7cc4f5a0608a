"""Exporting trained models: File > Export model… for the run just trained, and
History's Export… for a run picked there. Both open the Export dialog; its Export
button becomes one engine job that converts, verifies and (for a history run) notes
in the history where each file went.

Loading a history run's model and converting it are TensorFlow work, so both happen
inside the job on the engine thread; the GUI thread only reads the history (SQLite)
to name the run and to see whether it kept a model. The job touches no Qt object:
its progress goes into a locked box that a GUI timer reads. (With a queued signal
carrying the job, one test run hung: the engine thread waiting for the GIL inside
PySide, the GUI thread holding it while waiting for a Qt lock in a QObject destructor.)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer

from mpstudio.engine.export.formats import export_base_name, export_label
from mpstudio.engine.export.results import ExportOutcome, ExportRequest
from mpstudio.engine.history.store import HistoryError
from mpstudio.ui import engine_jobs
from mpstudio.ui.engine_thread import Job
from mpstudio.ui.export_dialog import ExportDialog, summary_text

if TYPE_CHECKING:
    from mpstudio.engine.spec import RunSpec
    from mpstudio.ui.main_window import MainWindow

NO_MODEL = ("run {id} kept no trained model (it diverged/failed, or was recorded before "
            "mpstudio kept models)")


@dataclass(frozen=True)
class ExportSubject:
    """What the dialog exports: the run just trained (its model in memory) or a
    history run (its kept model, loaded inside the job)."""

    heading: str
    base: str  # the default file name, without a suffix
    run_id: int | None
    model: Any = None  # the last run's keras.Model; None: load run_id's kept model
    spec: RunSpec | None = None


def run_title(run_id: int | None, template: str, precision: str) -> str:
    """"Run 12 · mlp · mixed_float16", the engine's label as a heading."""
    label = export_label(run_id, template, precision)
    return label[:1].upper() + label[1:]


class ProgressBox:
    """The latest (done, total, text) of an export: put by the engine thread, taken
    by the GUI thread's timer; reports in between are dropped (only the latest shows)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: tuple[int, int, str] | None = None

    def put(self, done: int, total: int, text: str) -> None:
        with self._lock:
            self._latest = (done, total, text)

    def take(self) -> tuple[int, int, str] | None:
        with self._lock:
            latest, self._latest = self._latest, None
        return latest


POLL_MS = 100  # progress refresh while an export runs


class ExportActions(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.dialog: ExportDialog | None = None
        self.subject: ExportSubject | None = None
        self.job: Job | None = None  # the export running or queued
        self._box = ProgressBox()
        self._poll = QTimer(self)
        self._poll.setObjectName("exportProgressPoll")
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._show_progress)
        window.actions.export_model.triggered.connect(self.export_last_run)
        window.history.export_requested.connect(self.export_history_run)
        window.engine.job_started.connect(self._job_started)
        window.engine.job_finished.connect(self._job_finished)
        window.engine.job_failed.connect(self._job_failed)

    # ------------------------------------------------------------- state
    def can_export(self) -> bool:
        """File > Export model…: TensorFlow ready, no run active, a trained last run."""
        outcome = self.w.last_outcome
        return (self.w.background.tf_ready and not self.w.runs.active and outcome is not None
                and outcome.last is not None and outcome.last.failure is None)

    def blocked_reason(self) -> str:
        """Why the dialog's Export refuses now ("" when it does not)."""
        if not self.w.background.tf_ready:
            return "TensorFlow is still loading"
        if self.w.runs.active:
            return "A run is in progress: export when it has ended"
        return ""

    def update_state(self) -> None:
        self.w.actions.export_model.setEnabled(self.can_export())
        if self.dialog is not None:
            self._follow_last_run()
            self.dialog.set_blocked(self.blocked_reason())

    def _follow_last_run(self) -> None:
        """A dialog open on "the run you just trained" moves on to the next run trained
        (or closes when that one left no model), rather than go on offering the old one."""
        subject, dialog = self.subject, self.dialog
        if (subject is None or subject.model is None or dialog is None or self.job is not None
                or self.w.runs.active):
            return
        outcome = self.w.last_outcome
        last = outcome.last if outcome is not None and self.can_export() else None
        if last is not None and last.model is subject.model:
            return
        if last is None:
            self.subject = None
            dialog.close()
        elif dialog.isVisible():
            self.export_last_run()

    # ------------------------------------------------------- opening it
    def export_last_run(self) -> None:
        outcome = self.w.last_outcome
        if not self.can_export() or outcome is None or outcome.last is None:
            return
        result = outcome.last
        run_id = outcome.run_id(result)
        spec = result.spec
        title = run_title(run_id, spec.template, spec.precision)
        self.open(ExportSubject(f"{title} (the run you just trained)",
                                export_base_name(run_id, spec.template, spec.precision),
                                run_id, result.model, spec))

    def export_history_run(self, run_id: int) -> None:
        store = self.w.history_actions.store
        if store is None:
            self._problem("Cannot export from History: the run history is unavailable")
            return
        try:
            run = store.run(run_id, metrics=False)
        except HistoryError as exc:
            self._problem(f"Cannot export run {run_id}: {exc}")
            return
        if self._kept_model(run_id, store.path) is None:
            text = NO_MODEL.format(id=run_id)
            self._problem(text[:1].upper() + text[1:])
            return
        row = run.row
        title = run_title(run_id, row.template, row.precision)
        self.open(ExportSubject(f"{title} (from History, trained {row.started_text} on "
                                f"{row.dataset})",
                                export_base_name(run_id, row.template, row.precision), run_id))

    def _kept_model(self, run_id: int, history: Path) -> Path | None:
        from mpstudio.engine.history.run_models import model_file

        return model_file(run_id, history)

    def open(self, subject: ExportSubject) -> ExportDialog:
        """Show the dialog for ``subject``; while an export runs it keeps showing that one."""
        if self.dialog is None:
            self.dialog = ExportDialog(self.w.files.folder, self.w)
            self.dialog.export_clicked.connect(self.start_export)
            self.dialog.cancel_clicked.connect(self.cancel)
            self.w.closed.connect(self.dialog.close)
        if self.job is None:
            self.subject = subject
            self.dialog.set_source(subject.heading, subject.base)
        self.dialog.set_blocked(self.blocked_reason())
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    # ------------------------------------------------------------ the job
    def start_export(self, requests: list[ExportRequest], overwrite: bool = False) -> Job | None:
        """One job converts every requested format (the dialog asked about existing files)."""
        subject = self.subject
        if subject is None or self.job is not None or self.blocked_reason():
            return None
        box = self._box = ProgressBox()  # a fresh box: nothing left from an earlier job

        def work(job: Job) -> list[ExportOutcome]:
            return engine_jobs.export_run(
                requests, run_id=subject.run_id, model=subject.model, spec=subject.spec,
                overwrite=overwrite, progress=box.put, should_stop=lambda: job.cancelled)

        what = subject.heading.split(" (", 1)[0]
        self.job = self.w.engine.submit(Job("export", work, describe=f"exporting {what}"))
        if self.dialog is not None:
            self.w.files.folder = str(self.dialog.folder)  # the next file dialog starts there
            self.dialog.set_busy(True)
        self._poll.start()
        self.w.status_text.setText(f"exporting {what}…")
        self.w._update_state()
        return self.job

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            if self.dialog is not None:
                self.dialog.cancelling()

    def _job_started(self, job: Job) -> None:
        if job is self.job and self.dialog is not None:
            self.dialog.show_progress(0, 0, "Loading the model…")

    def _show_progress(self) -> None:
        latest = self._box.take()
        if latest is None or self.job is None or self.job.cancelled:
            return
        done, total, text = latest
        if self.dialog is not None:
            self.dialog.show_progress(done, total, text)
        self.w.status_text.setText(f"exporting: {text}")

    def _job_finished(self, job: Job, outcomes: object) -> None:
        if job is not self.job:
            return
        self.job = None
        self._poll.stop()
        results: list[ExportOutcome] = list(outcomes)  # type: ignore[call-overload]
        for outcome in results:
            if job.cancelled and outcome.result is None:
                continue  # the summary says the rest was cancelled, once
            self.w.log.add(f"export: {outcome.line()}", "success" if outcome.ok else "error")
        summary = summary_text(results, job.cancelled)
        if job.cancelled:
            self.w.log.add(summary)
        if self.dialog is not None:
            self.dialog.show_outcomes(results, job.cancelled)
        self.w.status_text.setText(f"export: {summary}")
        self.w._update_state()

    def _job_failed(self, job: Job, message: str) -> None:
        if job is not self.job:
            return
        self.job = None
        self._poll.stop()
        if message == "cancelled":
            text = "Export cancelled; nothing was written"
            self.w.log.add(text)
        else:
            text = f"Export failed, nothing was written: {message}"
            self._problem(text)
        if self.dialog is not None:
            self.dialog.show_failure(text, error=message != "cancelled")
        self.w.status_text.setText(text)
        self.w._update_state()

    def _problem(self, text: str) -> None:
        self.w.show_banner(text, "error")
        self.w.log.add(text, "error")
