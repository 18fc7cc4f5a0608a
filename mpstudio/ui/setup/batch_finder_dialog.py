"""Run > Find the largest batch…: the batch-size finder (``mpstudio find-batch``) in a
dialog. It runs as one job in a fresh engine process (restarted first, so no earlier
run holds device memory), each try a process of its own; tries fill the table as they
end, and "Compare at these batches" starts the comparison NVIDIA's published speedups
are made of: float32 at its largest batch, mixed precision at its own, the learning
rate scaled linearly from the setup's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.batch_search.memory_cap import MIN_CAP_MIB
from mpstudio.engine.service.job_requests import BatchFindRequest, ModelPreviewRequest
from mpstudio.ui.widgets.read_only_table import cell_text

if TYPE_CHECKING:
    from PySide6.QtGui import QAction

    from mpstudio.engine.batch_search.finder import BatchSearch, BatchTried
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.compare_options import CompareOptions
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.setup.setup_panel import SetupPanel

TITLE = QT_TRANSLATE_NOOP("BatchFinderDialog", "Find the largest batch")
COLUMNS = (QT_TRANSLATE_NOOP("BatchFinderDialog", "precision"),
           QT_TRANSLATE_NOOP("BatchFinderDialog", "try"),
           QT_TRANSLATE_NOOP("BatchFinderDialog", "batch"),
           QT_TRANSLATE_NOOP("BatchFinderDialog", "outcome"),
           QT_TRANSLATE_NOOP("BatchFinderDialog", "peak memory"),
           QT_TRANSLATE_NOOP("BatchFinderDialog", "seconds"))


def tr(text: str) -> str:
    return QCoreApplication.translate("BatchFinderDialog", text)


class BatchFinderDialog(QDialog):
    start_requested = Signal(object, int)  # memory cap in MiB (None: the whole device), tries
    stop_requested = Signal()
    compare_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr(TITLE))
        self.setObjectName("batchFinderDialog")
        self.search: BatchSearch | None = None
        intro = QLabel(QCoreApplication.translate(
            "BatchFinderDialog",
            "Mixed precision halves what activations take: spend it on a larger batch. "
            "This tries the setup's run for a few steps at growing batches, float32 first "
            "and then its mixed precision, each try in a fresh process, until one runs out "
            "of memory. Then compare float32 at its largest batch with mixed precision at "
            "its own, the learning rate scaled linearly, as NVIDIA's published speedups "
            "are measured. The same as `mpstudio find-batch`."))
        intro.setWordWrap(True)
        self.cap = QSpinBox()
        self.cap.setObjectName("batchFinderCap")
        # its lowest value reads "the whole device"; above it, a cap the probe accepts (a
        # try needs more than a few MiB: memory_cap.MIN_CAP_MIB)
        self.cap.setRange(MIN_CAP_MIB - 1, 1024 * 1024)
        self.cap.setSingleStep(64)
        self.cap.setSuffix(" MiB")
        self.cap.setSpecialValueText(QCoreApplication.translate(
            "BatchFinderDialog", "the whole device"))
        self.cap.setToolTip(QCoreApplication.translate(
            "BatchFinderDialog",
            "The memory a try may use: on a GPU a limit on its memory, on the CPU a limit "
            "on TensorFlow's allocator (how to try the search without filling the machine)"))
        self.tries = QSpinBox()
        self.tries.setObjectName("batchFinderTries")
        self.tries.setRange(1, 30)
        self.tries.setValue(10)
        self.tries.setToolTip(QCoreApplication.translate(
            "BatchFinderDialog", "Tries per precision; a try that runs out of memory takes "
                                 "about 10 s more (TensorFlow waits for memory first)"))
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.addRow(QCoreApplication.translate("BatchFinderDialog", "Memory cap:"), self.cap)
        form.addRow(QCoreApplication.translate(
            "BatchFinderDialog", "Tries per precision:"), self.tries)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("batchFinderProgress")
        self.status = QLabel(QCoreApplication.translate(
            "BatchFinderDialog", "Press Start to search."))
        self.status.setObjectName("batchFinderStatus")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("batchFinderTable")
        self.table.setHorizontalHeaderLabels([tr(c) for c in COLUMNS])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.summary = QLabel()
        self.summary.setObjectName("batchFinderSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.start_button = QPushButton(QCoreApplication.translate("BatchFinderDialog", "&Start"))
        self.stop_button = QPushButton(QCoreApplication.translate("BatchFinderDialog", "S&top"))
        self.compare_button = QPushButton(QCoreApplication.translate(
            "BatchFinderDialog", "&Compare at these batches"))
        self.close_button = QPushButton(QCoreApplication.translate("BatchFinderDialog", "C&lose"))
        for button, name in ((self.start_button, "batchFinderStart"),
                             (self.stop_button, "batchFinderStop"),
                             (self.compare_button, "batchFinderCompare"),
                             (self.close_button, "batchFinderClose")):
            button.setObjectName(name)
        self.compare_button.setToolTip(QCoreApplication.translate(
            "BatchFinderDialog",
            "float32 at its largest batch against mixed precision at its own, the learning "
            "rate scaled linearly from the setup's; the card shows both batches"))
        self.start_button.clicked.connect(lambda: self.start_requested.emit(
            self.cap_mib(), self.tries.value()))
        self.stop_button.clicked.connect(self._stop_clicked)
        self.compare_button.clicked.connect(self.compare_requested.emit)
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        for button in (self.start_button, self.stop_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in (self.compare_button, self.close_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        self.resize(860, 560)
        self.set_running(False)

    def cap_mib(self) -> int | None:
        """The memory cap asked for (None: the whole device)."""
        value = self.cap.value()
        return None if value < MIN_CAP_MIB else value

    def set_running(self, running: bool) -> None:
        for widget in (self.start_button, self.cap, self.tries):
            widget.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.compare_button.setEnabled(not running and self.search is not None
                                       and self.search.comparable)
        self.progress_bar.setVisible(running)

    def started(self) -> None:
        self.search = None
        self.table.setRowCount(0)
        self.summary.clear()
        self.progress_bar.setRange(0, 0)
        self.status.setText(QCoreApplication.translate(
            "BatchFinderDialog", "Starting a fresh engine process…"))
        self.set_running(True)

    def set_progress(self, done: int, total: int, text: str) -> None:
        if not self.stop_button.isEnabled():
            return  # stopping: a late report does not undo the message
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)
        self.status.setText(text)

    def add_tries(self, tries: list[BatchTried]) -> None:  # a job's events, as they come
        for tried in tries:
            self.add_try(tried)

    def add_try(self, tried: BatchTried) -> None:
        from mpstudio.engine.batch_search.finder_text import outcome_text, peak_text

        outcome = tried.outcome
        cells = (tried.precision, str(tried.index), f"{outcome.batch_size:,}",
                 outcome_text(outcome), peak_text(outcome),
                 f"{outcome.seconds:.1f}")
        row = self.table.rowCount()
        self.table.insertRow(row)
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if outcome.detail:
                item.setToolTip(outcome.detail)
            if column in (1, 2, 4, 5):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, column, item)
        self.table.scrollToBottom()

    def show_search(self, search: BatchSearch) -> None:
        from mpstudio.engine.batch_search.finder_text import search_lines

        self.search = search
        stopped = any(r.stopped for r in search.results)
        self.status.setText(
            QCoreApplication.translate("BatchFinderDialog", "Stopped.") if stopped
            else QCoreApplication.translate("BatchFinderDialog", "Done."))
        self.summary.setText("\n".join(search_lines(search)))
        self.set_running(False)

    def show_error(self, message: str) -> None:
        self.status.setText(QCoreApplication.translate(
            "BatchFinderDialog", "The search could not run: {message}").format(message=message))
        self.set_running(False)

    def outcomes(self) -> list[tuple[str, str, str]]:
        """(precision, batch, outcome) per row, as shown."""
        return [(cell_text(self.table, r, 0), cell_text(self.table, r, 2),
                 cell_text(self.table, r, 3)) for r in range(self.table.rowCount())]

    def _stop_clicked(self) -> None:
        self.stop_button.setEnabled(False)
        self.status.setText(QCoreApplication.translate(
            "BatchFinderDialog", "Stopping: ending the try that runs…"))
        self.stop_requested.emit()

    def closeEvent(self, event: Any) -> None:
        if self.stop_button.isEnabled():
            self._stop_clicked()
        super().closeEvent(event)


class BatchFinderActions(QObject):
    """Opens the dialog from the Run menu, runs the finder as an engine job in a fresh
    engine, and starts the comparison at the batches it found."""

    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 action: QAction, setup: SetupPanel,
                 start_training: Callable[[RunSpec, CompareOptions | None], None],
                 window: QWidget) -> None:
        super().__init__(window)
        self.engine, self.state, self.notices, self.setup = engine, state, notices, setup
        self.start_training = start_training
        self.window = window
        self.dialog: BatchFinderDialog | None = None
        self.job: EngineJob[BatchSearch] | None = None
        action.triggered.connect(self.open)

    def open(self) -> BatchFinderDialog:
        if self.dialog is None:
            self.dialog = BatchFinderDialog(self.window)
            self.dialog.start_requested.connect(self.start)
            self.dialog.stop_requested.connect(self.stop)
            self.dialog.compare_requested.connect(self.compare)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def start(self, cap_mib: float | None, tries: int) -> None:
        from mpstudio.engine.batch_search.finder import FinderOptions, precisions_for

        dialog = self.dialog
        if dialog is None or self.job is not None:
            return
        why = self.state.busy_reason()
        if why:
            dialog.show_error(QCoreApplication.translate(
                "BatchFinderDialog", "{why}: start the search when it has ended.").format(
                why=QCoreApplication.translate("MainWindow", why)))
            return
        # The restart ends what the engine is doing: a model preview is asked again by
        # the fresh engine; anything else (a dataset summary, an export) is waited for.
        working = [job for job in self.engine.active()
                   if not isinstance(job.request, ModelPreviewRequest)]
        if working:
            dialog.show_error(QCoreApplication.translate(
                "BatchFinderDialog", "The engine is still working ({jobs}): start the search "
                "when it has finished.").format(
                    jobs=", ".join(job.shown or job.describe for job in working)))
            return
        spec = self.setup.spec()
        from mpstudio.engine.trainer.compare_options import comparison_problems

        problems = comparison_problems(spec, 1, "auto")
        if problems:  # float32: nothing to compare it with
            dialog.show_error("; ".join(problems))
            return
        self.engine.restart()  # the tries need the device's memory whole
        job = self.engine.submit(
            BatchFindRequest(spec, FinderOptions(cap_mib=cap_mib, max_tries=tries)),
            describe="the batch-size finder", shown=QCoreApplication.translate(
                "BatchFinderDialog", "the batch-size finder"), parent=self)
        job.progress.connect(dialog.set_progress)
        job.events.connect(dialog.add_tries)
        job.on_result(self._finished)
        job.errored.connect(self._failed)
        self.job = job
        dialog.started()
        self.notices.log(QCoreApplication.translate(
            "BatchFinderDialog", "finding the largest batch of {baseline} and {precision} from "
            "batch {batch}").format(baseline=precisions_for(spec)[0], precision=spec.precision,
                                    batch=spec.batch_size))
        self.state.update(finding_batch=True)

    def stop(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def compare(self) -> None:
        """The comparison at the largest batches, started like the setup's own."""
        from mpstudio.engine.batch_search.finder import comparison_at_largest

        dialog = self.dialog
        if dialog is None or dialog.search is None or not dialog.search.comparable:
            return
        import dataclasses

        mixed_spec, base_batch = comparison_at_largest(dialog.search)
        options = dataclasses.replace(self.setup.compare_options(),
                                      baseline_batch_size=base_batch)
        self.start_training(mixed_spec, options)

    def close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.close()

    def _finished(self, search: BatchSearch) -> None:
        from mpstudio.engine.batch_search.finder_text import search_lines

        self.job = None
        self.state.update(finding_batch=False)
        if self.dialog is not None:
            self.dialog.show_search(search)
        for line in search_lines(search):
            self.notices.log(line)

    def _failed(self, message: str) -> None:
        self.job = None
        self.state.update(finding_batch=False)
        if self.dialog is not None:
            self.dialog.show_error(QCoreApplication.translate(
                "BatchFinderDialog", "stopped before it started") if message == "cancelled"
                                   else message)
        if message != "cancelled":
            self.notices.log(QCoreApplication.translate(
                "BatchFinderDialog", "batch-size finder: {message}").format(message=message),
                             "error")
