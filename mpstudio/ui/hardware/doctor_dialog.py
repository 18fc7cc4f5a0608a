"""Run > Check training on this machine…: the doctor (``mpstudio doctor``) in a
dialog. The check runs as one job in the window's engine process (TensorFlow never
runs on the GUI thread); lines fill the table as they finish, Stop ends it after the
current check, and the report saves as HTML or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.doctor.checks import STATUS_COLOR
from mpstudio.engine.service.job_requests import DoctorRequest
from mpstudio.ui.widgets.read_only_table import cell_text

if TYPE_CHECKING:

    from PySide6.QtGui import QAction

    from mpstudio.engine.doctor.checks import Check, DoctorReport
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices

# Shown with QCoreApplication.translate("DoctorDialog", ...).
TITLE = QT_TRANSLATE_NOOP("DoctorDialog", "Check training on this machine")
COLUMNS = (QT_TRANSLATE_NOOP("DoctorDialog", "section"),
           QT_TRANSLATE_NOOP("DoctorDialog", "check"),
           QT_TRANSLATE_NOOP("DoctorDialog", "status"),
           QT_TRANSLATE_NOOP("DoctorDialog", "why"))


def tr(text: str) -> str:
    """A DoctorDialog string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("DoctorDialog", text)


class _ReasonDelegate(QStyledItemDelegate):
    """The style measures a wrapped cell a pixel or two shorter than it paints it when
    the lines hold Chinese (their glyphs come from a fallback font with taller lines):
    a two-line reason would then be painted as one cut-off line."""

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        return super().sizeHint(option, index) + QSize(0, 3)


class DoctorDialog(QDialog):
    start_requested = Signal(bool)  # quick
    stop_requested = Signal()
    report_ready = Signal(object)  # DoctorReport

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr(TITLE))
        self.setObjectName("doctorDialog")
        self.report: DoctorReport | None = None
        intro = QLabel(QCoreApplication.translate(
            "DoctorDialog",
            "Checks the whole chain on this machine: TensorFlow's build against the driver "
            "and each GPU, the GPU memory settings, a few real training steps for each "
            "template and precision the device supports, a float32-vs-mixed timing, TF32, "
            "and a mirrored step with two GPUs. The same check as `mpstudio doctor`."))
        intro.setWordWrap(True)
        self.quick = QCheckBox(QCoreApplication.translate(
            "DoctorDialog", "Quick: 3 templates, 4 steps each (under a minute on a CPU)"))
        self.quick.setObjectName("doctorQuick")
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("doctorProgress")
        self.status = QLabel(QCoreApplication.translate("DoctorDialog", "Press Start to check."))
        self.status.setObjectName("doctorStatus")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("doctorTable")
        self.table.setHorizontalHeaderLabels([tr(c) for c in COLUMNS])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setItemDelegateForColumn(len(COLUMNS) - 1, _ReasonDelegate(self.table))
        rows = self.table.verticalHeader()
        rows.hide()
        # Each row as tall as its wrapped reason at the table's width, as that changes.
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        # A longer name narrows the reasons' column: the rows above must grow again.
        header.sectionResized.connect(lambda *_: rows.resizeSections())
        self.summary = QLabel()
        self.summary.setObjectName("doctorSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.start_button = QPushButton(QCoreApplication.translate("DoctorDialog", "&Start"))
        self.stop_button = QPushButton(QCoreApplication.translate("DoctorDialog", "S&top"))
        self.save_button = QPushButton(QCoreApplication.translate("DoctorDialog",
                                                                  "Save &report…"))
        self.close_button = QPushButton(QCoreApplication.translate("DoctorDialog", "&Close"))
        for button, name in ((self.start_button, "doctorStart"), (self.stop_button, "doctorStop"),
                             (self.save_button, "doctorSave"), (self.close_button, "doctorClose")):
            button.setObjectName(name)
        self.save_button.setToolTip(QCoreApplication.translate(
            "DoctorDialog", "Save the table, versions and devices as an HTML page or JSON, to "
            "attach to a bug report"))
        self.start_button.clicked.connect(lambda: self.start_requested.emit(
            self.quick.isChecked()))
        self.stop_button.clicked.connect(self._stop_clicked)
        self.save_button.clicked.connect(lambda: self.save_report())
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        for button in (self.start_button, self.stop_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in (self.save_button, self.close_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        for widget in (intro, self.quick, self.progress_bar, self.status):
            layout.addWidget(widget)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        self.resize(980, 620)
        self.set_running(False)

    # ------------------------------------------------------------- states
    def set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.quick.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.save_button.setEnabled(not running and self.report is not None)
        self.progress_bar.setVisible(running)

    def set_unavailable(self, why: str) -> None:
        """Start was refused (TensorFlow still loading, a run in progress): say why;
        Start stays there for when it has ended."""
        self.status.setText(why)

    def started(self) -> None:
        self.report = None
        self.table.setRowCount(0)
        self.summary.clear()
        self.progress_bar.setRange(0, 0)  # busy until the total is known
        self.status.setText(QCoreApplication.translate("DoctorDialog", "Detecting the hardware…"))
        self.set_running(True)

    def set_progress(self, done: int, total: int, text: str) -> None:
        if not self.stop_button.isEnabled() and self.progress_bar.isVisible():
            return  # stopping: a late report does not undo the message
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)
        self.status.setText(QCoreApplication.translate(
            "DoctorDialog", "Checking {what} ({number} of {total})").format(
                what=text, number=done + 1, total=total) if done < total else text)

    def add_checks(self, checks: list[Check]) -> None:  # a job's events, as they come
        for check in checks:
            self.add_check(check)

    def add_check(self, check: Check) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        reason = check.reason_text
        for column, text in enumerate((check.section_text, check.name_text, check.status_text,
                                       reason)):
            item = QTableWidgetItem(text)
            item.setToolTip(reason)
            if column == 2:
                item.setForeground(QBrush(QColor(STATUS_COLOR.get(check.status, "#1f2933"))))
            self.table.setItem(row, column, item)
        self.table.scrollToBottom()

    def show_report(self, report: DoctorReport) -> None:
        self.report = report
        self.status.setText(QCoreApplication.translate("DoctorDialog", "Stopped.")
                            if report.stopped
                            else QCoreApplication.translate("DoctorDialog", "Done."))
        self.summary.setText(report.summary())
        self.set_running(False)
        self.report_ready.emit(report)

    def show_error(self, message: str) -> None:
        self.status.setText(QCoreApplication.translate(
            "DoctorDialog", "The check could not run: {message}").format(message=message))
        self.set_running(False)

    def statuses(self) -> list[tuple[str, str, str]]:
        """(check, status, why) per row, as shown."""
        return [(cell_text(self.table, r, 1), cell_text(self.table, r, 2),
                 cell_text(self.table, r, 3)) for r in range(self.table.rowCount())]

    # ------------------------------------------------------------ actions
    def _stop_clicked(self) -> None:
        self.stop_button.setEnabled(False)
        self.status.setText(QCoreApplication.translate("DoctorDialog",
                                                       "Stopping after the current check…"))
        self.stop_requested.emit()

    def save_report(self, path: str | Path | None = None) -> Path | None:
        """Write the report (HTML or JSON by the name's suffix); None if cancelled or
        it could not be written (the status line says why)."""
        if self.report is None:
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self, QCoreApplication.translate("DoctorDialog", "Save the doctor report"),
                "mpstudio-doctor.html",
                QCoreApplication.translate("DoctorDialog", "HTML page (*.html);;JSON (*.json)"))
            if not chosen:
                return None
            path = chosen
        from mpstudio.engine.doctor.report_files import write_reports
        from mpstudio.engine.report.files import ReportError

        target = Path(path)
        as_json = target.suffix.lower() == ".json"
        try:
            write_reports(self.report, None if as_json else target, target if as_json else None)
        except ReportError as exc:
            self.status.setText(str(exc))
            return None
        self.status.setText(QCoreApplication.translate("DoctorDialog", "Report saved to {path}")
                            .format(path=target))
        return target

    def closeEvent(self, event: Any) -> None:
        if self.stop_button.isEnabled():  # closing while it checks: stop it
            self._stop_clicked()
        super().closeEvent(event)


class DoctorActions(QObject):
    """Opens the dialog from the Run menu and runs the doctor as a job in the engine
    process; each check's row arrives as an event while it runs."""

    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 action: QAction, window: QWidget) -> None:
        super().__init__(window)
        self.engine, self.state, self.notices = engine, state, notices
        self.window = window  # the dialog's parent
        self.dialog: DoctorDialog | None = None
        self.job: EngineJob[DoctorReport] | None = None
        action.triggered.connect(self.open)

    @property
    def busy(self) -> bool:
        return self.job is not None

    def open(self) -> DoctorDialog:
        if self.dialog is None:
            self.dialog = DoctorDialog(self.window)
            self.dialog.start_requested.connect(self.start)
            self.dialog.stop_requested.connect(self.stop)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def start(self, quick: bool) -> None:
        dialog = self.dialog
        if dialog is None or self.busy:
            return
        why = self.state.busy_reason()
        if why:
            dialog.set_unavailable(QCoreApplication.translate(
                "DoctorDialog", "{why}: start the check when it has ended.").format(why=why))
            return
        job = self.engine.submit(
            DoctorRequest(quick), describe="the training check",
            shown=QCoreApplication.translate("DoctorDialog", "the training check"), parent=self)
        job.progress.connect(dialog.set_progress)
        job.events.connect(dialog.add_checks)
        job.on_result(self._finished)
        job.errored.connect(self._failed)
        self.job = job
        dialog.started()
        self.notices.log(
            QCoreApplication.translate("DoctorDialog", "checking training on this machine "
                                       "(quick set)") if quick else
            QCoreApplication.translate("DoctorDialog", "checking training on this machine "
                                       "(full set)"))
        self.state.update(checking=True)

    def stop(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def close_dialog(self) -> None:
        if self.dialog is not None:  # a dialog left open would keep the app running
            self.dialog.close()

    def _finished(self, report: DoctorReport) -> None:
        self.job = None
        if self.dialog is not None:
            self.dialog.show_report(report)
        level = "error" if report.failed else "info"
        self.notices.log(QCoreApplication.translate("DoctorDialog", "training check: {summary}")
                         .format(summary=report.summary()), level)
        self.state.update(checking=False)

    def _failed(self, message: str) -> None:
        self.job = None
        if self.dialog is not None:
            self.dialog.show_error(
                QCoreApplication.translate("DoctorDialog", "stopped before it started")
                if message == "cancelled" else message)
        if message != "cancelled":
            self.notices.log(QCoreApplication.translate("DoctorDialog", "training check: "
                                                        "{summary}").format(summary=message),
                             "error")
        self.state.update(checking=False)
