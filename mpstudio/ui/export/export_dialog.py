"""File > Export model…: pick the formats, the folder and a base name, export in the
background with progress, and read each format's verification line.

Two pages: the form, and once an export has ended its results, which then get the
whole dialog (seven formats' lines do not fit below the form on a laptop screen);
Back returns to the form.

The dialog is only a form: it says what to export (``export_clicked``) and shows what
it is told (progress, outcomes). ExportActions runs the job. It is non-modal, so the
window stays usable while a model converts.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.export.formats import FORMATS, ExportFormat, default_path, export_format
from mpstudio.engine.export.results import ExportOutcome, ExportRequest
from mpstudio.ui.export.export_results_view import ExportResultsView
from mpstudio.ui.export.export_summary import written_note
from mpstudio.ui.export.format_entries import format_entry
from mpstudio.ui.themed import set_role
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

DIALOG_WIDTH = 760  # two columns of formats with their descriptions on 2-3 lines
RESULTS_MIN_HEIGHT = 170  # the rows get at least this, scrolling, on a tiny screen
SCREEN_SHARE = 0.9  # the dialog grows to fit its text up to this much of the screen
EXISTS_NOTE = QT_TRANSLATE_NOOP("ExportDialog", "exists: asks before replacing it")  # tr()
BAD_NAME_CHARS = '/\\:*?"<>|'  # a base name is one file name, valid on every desktop


def tr(text: str) -> str:
    """An ExportDialog string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("ExportDialog", text)


class ExportDialog(QDialog):
    export_clicked = Signal(list, bool)  # [ExportRequest], overwrite
    cancel_clicked = Signal()

    def __init__(self, folder: str | Path = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle(QCoreApplication.translate("ExportDialog", "Export model"))
        self.setModal(False)
        self._blocked = ""  # why the owner refuses an export now ("" = it does not)
        self._busy = False
        self._existed: set[Path] = set()  # the targets already there when Export was pressed
        self._written: dict[Path, str] = {}  # what the last export wrote, for the file list

        self.heading = wrapped_label()
        self.heading.setObjectName("exportHeading")
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.heading.setFont(font)

        self.checks: dict[str, QCheckBox] = {}
        formats = QGroupBox(QCoreApplication.translate("ExportDialog", "Formats"))
        grid = QGridLayout(formats)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(8)
        for i, fmt in enumerate(FORMATS):
            entry, self.checks[fmt.id] = format_entry(fmt)
            grid.addWidget(entry, i // 2, i % 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)

        self.folder_edit = QLineEdit(str(folder))
        self.folder_edit.setObjectName("exportFolder")
        self.browse_button = QPushButton(QCoreApplication.translate("ExportDialog", "Browse…"))
        self.browse_button.setObjectName("exportBrowse")
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("exportName")
        self.name_edit.setToolTip(QCoreApplication.translate(
            "ExportDialog", "The file name without a suffix; each format adds its own"))
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(self.browse_button)
        self.targets_label = secondary(wrapped_label())
        self.targets_label.setObjectName("exportTargets")
        # A grid, not a QFormLayout: that one sizes a wrapped label by its sizeHint and
        # squeezes the format descriptions above to make room.
        form = QGridLayout()
        form.addWidget(QLabel(QCoreApplication.translate("ExportDialog", "Save to")), 0, 0)
        form.addLayout(folder_row, 0, 1)
        form.addWidget(QLabel(QCoreApplication.translate("ExportDialog", "File name")), 1, 0)
        form.addWidget(self.name_edit, 1, 1)
        form.addWidget(self.targets_label, 2, 1)
        form.setColumnStretch(1, 1)
        self.hint = wrapped_label()
        self.hint.setObjectName("exportHint")
        set_role(self.hint, "error")

        self.progress = QProgressBar()
        self.progress.setObjectName("exportProgress")
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = secondary(wrapped_label())
        self.status.setObjectName("exportStatus")

        self.results = ExportResultsView()
        self.results.hide()
        self.results.prepare_rows(len(FORMATS))  # in the background: none built at once

        self.export_button = QPushButton(QCoreApplication.translate("ExportDialog", "Export"))
        self.export_button.setObjectName("exportButton")
        self.export_button.setDefault(True)
        self.export_button.setAutoDefault(True)
        self.cancel_button = QPushButton(QCoreApplication.translate("ExportDialog",
                                                                    "Cancel export"))
        self.cancel_button.setObjectName("cancelExportButton")
        self.cancel_button.hide()
        self.back_button = QPushButton(QCoreApplication.translate("ExportDialog", "Back"))
        self.back_button.setObjectName("exportBackButton")
        self.back_button.setToolTip(QCoreApplication.translate(
            "ExportDialog", "Back to the formats and the folder, to export again"))
        self.back_button.setAutoDefault(False)
        self.back_button.hide()
        self.close_button = QPushButton(QCoreApplication.translate("ExportDialog", "Close"))
        self.close_button.setObjectName("closeButton")
        self.close_button.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.close_button)

        intro = secondary(wrapped_label(QCoreApplication.translate(
            "ExportDialog", "Each format is loaded back in its own runtime and compared with "
            "the trained model on held-out examples; a file is only put in place once it "
            "converted.")))
        self.form_page = QWidget()
        self.form_page.setObjectName("exportForm")
        page = QVBoxLayout(self.form_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(intro)
        page.addWidget(formats)
        page.addLayout(form)
        page.addWidget(self.hint)
        page.addWidget(self.progress)
        page.addStretch(1)  # the slack goes below the form, not between its parts
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.form_page, 1)
        layout.addWidget(self.results, 1)
        layout.addLayout(buttons)

        for check in self.checks.values():
            check.toggled.connect(self._refresh)
        self.folder_edit.textChanged.connect(self._refresh)
        self.name_edit.textChanged.connect(self._refresh)
        self.browse_button.clicked.connect(self._browse)
        self.export_button.clicked.connect(self._export)
        self.cancel_button.clicked.connect(self.cancel_clicked)
        self.back_button.clicked.connect(self.show_form)
        self.close_button.clicked.connect(self.close)
        self.resize(DIALOG_WIDTH, 560)
        self._refresh()

    # ------------------------------------------------------------ set up
    def set_source(self, heading: str, base: str) -> None:
        """What is exported (a heading) and the base name its files get."""
        self.heading.setText(heading)
        self.name_edit.setText(base)
        self.results.clear()
        self._written = {}
        self.status.setText("")
        self.show_form()

    def set_blocked(self, reason: str) -> None:
        """Refuse an export while ``reason`` (a run in progress...); "" allows it again."""
        self._blocked = reason
        self._refresh()

    # ------------------------------------------------------------ the form
    @property
    def folder(self) -> Path:
        return Path(self.folder_edit.text().strip()).expanduser()

    @property
    def base_name(self) -> str:
        return self.name_edit.text().strip()

    def selected_formats(self) -> list[ExportFormat]:
        checks = self.checks
        return [f for f in FORMATS if checks[f.id].isChecked() and checks[f.id].isEnabled()]

    def requests(self) -> list[ExportRequest]:
        return [ExportRequest(f.id, default_path(self.folder, self.base_name, f))
                for f in self.selected_formats()]

    def problem(self) -> str:
        """Why Export cannot be pressed now; "" when it can."""
        if self._busy:
            return QCoreApplication.translate("ExportDialog",
                                              "An export is running: wait for it or cancel it")
        if self._blocked:
            return self._blocked
        if not self.selected_formats():
            return QCoreApplication.translate("ExportDialog", "Tick at least one format")
        if not self.base_name:
            return QCoreApplication.translate("ExportDialog", "Type a file name")
        if any(c in self.base_name for c in BAD_NAME_CHARS) or self.base_name in (".", ".."):
            return QCoreApplication.translate(
                "ExportDialog", "The file name cannot contain any of {characters}").format(
                    characters=BAD_NAME_CHARS)
        if not self.folder_edit.text().strip():
            return QCoreApplication.translate("ExportDialog", "Choose the folder to save to")
        if not self.folder.is_dir():
            return QCoreApplication.translate(
                "ExportDialog", "The folder {folder} does not exist: choose one that "
                "does").format(folder=self.folder)
        return ""

    def _refresh(self) -> None:
        problem = self.problem()
        self.export_button.setEnabled(not problem)
        self.export_button.setToolTip(problem or QCoreApplication.translate(
            "ExportDialog", "Export the ticked formats and verify each"))
        # The hint says what to fix; "an export is running" is already on screen.
        self.hint.setText(problem if problem and not self._busy else "")
        self.hint.setVisible(bool(self.hint.text()))
        lines = []
        if self.base_name and self.folder_edit.text().strip():
            for request in self.requests():
                lines.append(request.path.name + self._target_note(request))
        self.targets_label.setText(QCoreApplication.translate(
            "ExportDialog", "Writes into that folder:") + "\n" + "\n".join(lines)
                                   if lines else "")
        self.targets_label.setVisible(bool(lines))
        self._fit_height()  # more ticked formats, more lines

    def _target_note(self, request: ExportRequest) -> str:
        """A file the last export wrote says so; one that was there before is replaced
        only after asking; a folder where a file goes (or the reverse) never is."""
        path = request.path
        if not path.exists():
            return ""
        if path.is_dir() != export_format(request.format_id).is_folder:
            if path.is_dir():
                note = QCoreApplication.translate(
                    "ExportDialog", "a folder of that name is in the way: pick another name")
            else:
                note = QCoreApplication.translate(
                    "ExportDialog", "a file of that name is in the way: pick another name")
        else:
            note = self._written.get(path) or tr(EXISTS_NOTE)
        return QCoreApplication.translate("ExportDialog", "   ({note})").format(note=note)

    # ---------------------------------------------------------------- seams
    def ask_folder(self) -> str:
        """The folder picker (tests replace this); "" when the user cancels."""
        return QFileDialog.getExistingDirectory(
            self, QCoreApplication.translate("ExportDialog", "Export to the folder"),
            str(self.folder))

    def confirm_overwrite(self, paths: list[Path]) -> bool:
        """Ask before replacing files (tests replace this)."""
        names = "\n".join(str(p) for p in paths)
        if len(paths) == 1:
            text = QCoreApplication.translate(
                "ExportDialog", "This file exists:\n\n{names}\n\nReplace them?")
        else:
            text = QCoreApplication.translate(
                "ExportDialog", "These {count} files exist:\n\n{names}\n\nReplace them?")
        answer = QMessageBox.question(
            self, QCoreApplication.translate("ExportDialog", "Replace existing files?"),
            text.format(names=names, count=len(paths)),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _browse(self) -> None:
        folder = self.ask_folder()
        if folder:
            self.folder_edit.setText(folder)

    def _export(self) -> None:
        if self.problem():
            return
        requests = self.requests()
        existing = [r.path for r in requests if r.path.exists()]
        if existing and not self.confirm_overwrite(existing):
            self.status.setText(QCoreApplication.translate(
                "ExportDialog", "Nothing exported: the existing files were kept"))
            return
        self._existed = set(existing)
        self.export_clicked.emit(requests, bool(existing))

    # ------------------------------------------------------------ progress
    def set_busy(self, busy: bool) -> None:
        """An export is running (Cancel export shows) or has ended."""
        self._busy = busy
        self.cancel_button.setVisible(busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)  # busy until the first progress report
            self.status.setText(QCoreApplication.translate("ExportDialog",
                                                           "Starting the export…"))
            self.results.clear()
            self._written = {}
            self.show_form()  # the progress bar is on the form
        self._refresh()

    def show_progress(self, done: int, total: int, text: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.status.setText(text)

    def cancelling(self) -> None:
        self.cancel_button.setEnabled(False)
        self.status.setText(QCoreApplication.translate(
            "ExportDialog", "Cancelling: the export stops after the current step…"))

    def show_outcomes(self, outcomes: list[ExportOutcome], cancelled: bool = False) -> None:
        """The results page: the banner says the verdict, so the status line is free."""
        self.set_busy(False)
        self._written = {o.request.path: note for o in outcomes
                         if (note := written_note(o, o.request.path in self._existed))}
        self._existed = set()
        self.status.setText("")
        self.results.hide()  # rows are measured before they are shown (see _fit_height)
        self.results.show_outcomes(outcomes, cancelled)
        if outcomes:
            self.show_results()
        else:
            self._refresh()

    def show_failure(self, text: str, error: bool = True) -> None:
        """The job ended without outcomes: an error (in red, above) or a cancel."""
        self.set_busy(False)
        self.status.setText("" if error else text)
        if error:
            self.hint.setText(text)
            self.hint.show()

    # --------------------------------------------------------------- pages
    def show_results(self) -> None:
        self.form_page.hide()
        self.export_button.hide()
        self.back_button.show()
        self.results.show()
        self._fit_height()

    def show_form(self) -> None:
        self.results.hide()
        self.back_button.hide()
        self.export_button.show()
        self.form_page.show()
        self._refresh()

    def _fit_height(self) -> None:
        """Grow to fit every wrapped line at this width, and every result row up to what
        the screen leaves: Qt does not make a window's minimum height follow word wrap,
        so a short dialog would clip the format descriptions or scroll the results."""
        layout = self.layout()
        if layout is None:  # set in __init__
            return
        width = self.width()
        screen = self.screen()
        cap = int(screen.availableGeometry().height() * SCREEN_SHARE) if screen else 1 << 20
        if not self.results.isHidden():
            area = self.results.area
            rest = _height_for(layout, width) - max(area.sizeHint().height(),
                                                    area.minimumSizeHint().height())
            margins = layout.contentsMargins()
            rows = self.results.rows_height(width - margins.left() - margins.right())
            self.results.set_rows_height(min(rows, max(cap - rest, RESULTS_MIN_HEIGHT)))
        needed = _height_for(layout, width)
        self.resize(width, min(max(needed, self.height()), cap))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_height()  # text measured before the first show can come out short

    def result_lines(self) -> list[str]:
        """The verification line (or the error) of each format shown, failed ones first."""
        return [view.detail.text() for view in self.results.views]


def _height_for(layout: QLayout, width: int) -> int:
    needed = layout.totalHeightForWidth(width)
    return needed if needed >= 0 else layout.totalSizeHint().height()

