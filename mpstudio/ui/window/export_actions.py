"""Exporting trained models: File > Export model… for the run just trained, and
History's Export… for a run picked there. Both open the Export dialog; its Export
button becomes one engine job that converts, verifies and (for a history run) notes
in the history where each file went.

Loading a history run's model and converting it are TensorFlow work, so both happen
in the engine process (a converter that crashes takes only the engine down: the
export fails with what happened, and a fresh engine starts); the GUI only reads the
history (SQLite) to name the run and to see whether it kept a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject

from mpstudio.engine.export.formats import export_base_name
from mpstudio.engine.export.results import ExportOutcome, ExportRequest, human_size
from mpstudio.engine.history.store import HistoryError
from mpstudio.engine.service.job_requests import ExportModelRequest
from mpstudio.ui.export.copy_back import CopyBack
from mpstudio.ui.export.export_dialog import ExportDialog
from mpstudio.ui.export.export_summary import summary_text
from mpstudio.ui.models.workbench_state import controls

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

    from mpstudio.engine.history.store import RunStore
    from mpstudio.engine.spec import RunSpec
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.history.history_panel import HistoryPanel
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.window.file_actions import FileActions



@dataclass(frozen=True)
class ExportSubject:
    """What the dialog exports: the run just trained (its model in the engine's memory)
    or a history run (its kept model, loaded inside the job)."""

    heading: str
    title: str  # the heading without its note: "Run 12 · mlp · mixed_float16"
    base: str  # the default file name, without a suffix
    run_id: int | None
    model_handle: int | None = None  # the last run's model in the engine; None: run_id's
    spec: RunSpec | None = None


def run_title(run_id: int | None, template: str, precision: str) -> str:
    """"Run 12 · mlp · mixed_float16", the dialog's heading (without its note)."""
    parts = [p for p in (template, precision) if p]
    if run_id is not None:
        parts.insert(0, QCoreApplication.translate("ExportActions", "Run {id}").format(
            id=run_id))
    return " · ".join(parts) or QCoreApplication.translate("ExportActions", "Model")


class ExportActions(QObject):
    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 files: FileActions, history: HistoryPanel,
                 history_store: Callable[[], RunStore | None], export_action: QAction,
                 window: QWidget) -> None:
        super().__init__(window)
        self.engine, self.state, self.notices, self.files = engine, state, notices, files
        self.history_store = history_store  # the window's open history (None: unavailable)
        self.window = window  # the dialog's parent
        self.dialog: ExportDialog | None = None
        self.subject: ExportSubject | None = None
        self.job: EngineJob[list[ExportOutcome]] | None = None  # the export running or queued
        self._copy_to: tuple[list[Path], bool] | None = None  # a server's export's targets
        self._copy: CopyBack | None = None  # its files being copied here
        export_action.triggered.connect(self.export_last_run)
        history.export_requested.connect(self.export_history_run)
        state.observe(lambda _state: self.follow_state())

    # ------------------------------------------------------------- state
    def can_export(self) -> bool:
        """File > Export model…: TensorFlow ready, no run active, a trained last run."""
        return controls(self.state).export_model

    def blocked_reason(self) -> str:
        """Why the dialog's Export refuses now ("" when it does not)."""
        state = self.state
        if not state.ready:
            if state.engine in ("starting", "restarting"):
                return QCoreApplication.translate("ExportActions", "TensorFlow is still loading")
            return QCoreApplication.translate("ExportActions", "TensorFlow could not load")
        if state.training:
            return QCoreApplication.translate(
                "ExportActions", "A run is in progress: export when it has ended")
        return ""

    def follow_state(self) -> None:
        if self.dialog is not None:
            self._follow_last_run()
            self.dialog.set_blocked(self.blocked_reason())

    def _follow_last_run(self) -> None:
        """A dialog open on "the run you just trained" moves on to the next run trained
        (or closes when that one left no model), rather than go on offering the old one."""
        subject, dialog = self.subject, self.dialog
        if (subject is None or subject.model_handle is None or dialog is None
                or self.job is not None or self.state.training):
            return
        outcome = self.state.last_outcome
        last = outcome.last if outcome is not None and self.can_export() else None
        if last is not None and last.model_handle == subject.model_handle:
            return
        if last is None:
            self.subject = None
            dialog.close()
        elif dialog.isVisible():
            self.export_last_run()

    # ------------------------------------------------------- opening it
    def export_last_run(self) -> None:
        outcome = self.state.last_outcome
        if not self.can_export() or outcome is None or outcome.last is None:
            return
        result = outcome.last
        run_id = outcome.run_id(result)
        spec = result.spec
        title = run_title(run_id, spec.template, spec.precision)
        heading = QCoreApplication.translate(
            "ExportActions", "{title} (the run you just trained)").format(title=title)
        self.open(ExportSubject(heading, title,
                                export_base_name(run_id, spec.template, spec.precision),
                                run_id, result.model_handle, spec))

    def export_history_run(self, run_id: int) -> None:
        store = self.history_store()
        if store is None:
            self.notices.problem(QCoreApplication.translate(
                "ExportActions", "Cannot export from History: the run history is unavailable"))
            return
        try:
            run = store.run(run_id, metrics=False)
        except HistoryError as exc:
            self.notices.problem(QCoreApplication.translate(
                "ExportActions", "Cannot export run {id}: {reason}").format(id=run_id,
                                                                            reason=exc))
            return
        # A server's run keeps its model there: its engine says so when it exports
        if self.engine.target.is_local and self._kept_model(run_id, store.path) is None:
            self.notices.problem(QCoreApplication.translate(
                "ExportActions", "Run {id} kept no trained model (it diverged/failed, or was "
                "recorded before mpstudio kept models)").format(id=run_id))
            return
        row = run.row
        title = run_title(run_id, row.template, row.precision)
        heading = QCoreApplication.translate(
            "ExportActions", "{title} (from History, trained {started} on {dataset})").format(
                title=title, started=row.started_text, dataset=row.dataset)
        self.open(ExportSubject(heading, title,
                                export_base_name(run_id, row.template, row.precision), run_id))

    def _kept_model(self, run_id: int, history: Path) -> Path | None:
        from mpstudio.engine.history.run_models import model_file

        return model_file(run_id, history)

    def open(self, subject: ExportSubject) -> ExportDialog:
        """Show the dialog for ``subject``; while an export runs it keeps showing that one."""
        if self.dialog is None:
            self.dialog = ExportDialog(self.files.folder, self.window)
            self.dialog.export_clicked.connect(self.start_export)
            self.dialog.cancel_clicked.connect(self.cancel)
        if self.job is None:
            self.subject = subject
            self.dialog.set_source(subject.heading, subject.base)
        self.dialog.set_blocked(self.blocked_reason())
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    # ------------------------------------------------------------ the job
    def start_export(self, requests: list[ExportRequest],
                     overwrite: bool = False) -> EngineJob[list[ExportOutcome]] | None:
        """One job converts every requested format (the dialog asked about existing files)."""
        subject = self.subject
        if subject is None or self.job is not None or self._copy is not None \
                or self.blocked_reason():
            return None
        what = subject.title
        remote = not self.engine.target.is_local
        # A server's engine exports there; the files are then copied to these paths
        self._copy_to = ([r.path for r in requests], overwrite) if remote else None
        job = self.engine.submit(ExportModelRequest(
            tuple(requests), run_id=subject.run_id, model_handle=subject.model_handle,
            spec=subject.spec, overwrite=overwrite, staged=remote),
            describe=f"exporting {what}",
            shown=QCoreApplication.translate("ExportActions", "exporting {what}").format(
                what=what), parent=self)
        job.started.connect(self._job_started)
        job.progress.connect(self._show_progress)
        job.on_result(lambda outcomes: self._job_finished(job, outcomes))
        job.errored.connect(lambda message: self._job_failed(job, message))
        self.job = job
        if self.dialog is not None:
            self.files.folder = str(self.dialog.folder)  # the next file dialog starts there
            self.dialog.set_busy(True)
        self.notices.status(QCoreApplication.translate("ExportActions",
                                                       "exporting {what}…").format(what=what))
        self.state.update(exporting=True)
        return self.job

    def cancel(self) -> None:
        if self.job is not None or self._copy is not None:
            if self.job is not None:
                self.job.cancel()
            if self._copy is not None:
                self._copy.cancel()
            if self.dialog is not None:
                self.dialog.cancelling()

    def _job_started(self) -> None:
        if self.dialog is not None:
            self.dialog.show_progress(0, 0, QCoreApplication.translate(
                "ExportActions", "Loading the model…"))

    def _show_progress(self, done: int, total: int, text: str) -> None:
        if self.job is None or self.job.cancelled:
            return
        if self.dialog is not None:
            self.dialog.show_progress(done, total, text)
        self.notices.status(QCoreApplication.translate("ExportActions",
                                                       "exporting: {step}").format(step=text))

    def _job_finished(self, job: EngineJob[list[ExportOutcome]],
                      outcomes: list[ExportOutcome]) -> None:
        self.job = None
        if self._copy_to is not None and not job.cancelled:  # a server's: copy them here
            targets, overwrite = self._copy_to
            self._copy_to = None
            self._copy = CopyBack(self.engine, list(outcomes), targets, overwrite,
                                  self._show_copy_progress,
                                  lambda copied: self._copied(job, copied), self)
            self._copy.start()
            return
        self._show_finished(job, list(outcomes))

    def _show_copy_progress(self, done: int, total: int, name: str) -> None:
        text = QCoreApplication.translate(
            "ExportActions", "copying {name} from {host}: {done} of {total}").format(
                name=name, host=self.engine.target.label, done=human_size(done),
                total=human_size(total))
        self._show_progress(done, total, text)

    def _copied(self, job: EngineJob[list[ExportOutcome]],
                outcomes: list[ExportOutcome]) -> None:
        cancelled = self._copy is not None and self._copy.cancelled
        self._copy = None
        self._show_finished(job, outcomes, cancelled)

    def _show_finished(self, job: EngineJob[list[ExportOutcome]],
                       outcomes: list[ExportOutcome], cancelled: bool = False) -> None:
        results = list(outcomes)
        cancelled = cancelled or job.cancelled
        for outcome in results:
            if cancelled and outcome.result is None:
                continue  # the summary says the rest was cancelled, once
            self.notices.log(QCoreApplication.translate("ExportActions", "export: {line}")
                             .format(line=outcome.line()), "success" if outcome.ok else "error")
        summary = summary_text(results, cancelled)
        if cancelled:
            self.notices.log(summary)
        if self.dialog is not None:
            self.dialog.show_outcomes(results, cancelled)
        self.notices.status(QCoreApplication.translate("ExportActions", "export: {line}")
                            .format(line=summary))
        self.state.update(exporting=False)

    def _job_failed(self, job: EngineJob[list[ExportOutcome]], message: str) -> None:
        self.job = None
        if message == "cancelled":
            text = QCoreApplication.translate("ExportActions",
                                              "Export cancelled; nothing was written")
            self.notices.log(text)
        else:
            text = QCoreApplication.translate(
                "ExportActions", "Export failed, nothing was written: {reason}").format(
                    reason=message)
            self.notices.problem(text)
        if self.dialog is not None:
            self.dialog.show_failure(text, error=message != "cancelled")
        self.notices.status(text)
        self.state.update(exporting=False)

    def close_dialog(self) -> None:
        """The window closes: a dialog left open would keep the app running."""
        if self.dialog is not None:
            self.dialog.close()
