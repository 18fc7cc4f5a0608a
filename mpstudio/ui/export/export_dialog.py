"""File > Export model…: pick the formats, the folder and a base name, export in the
background with progress, and read each format's verification line.

The dialog is only a form: it says what to export (``export_clicked``) and shows what
it is told (progress, outcomes). ExportActions runs the job. It is non-modal, so the
window stays usable while a model converts.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.export.formats import FORMATS, ExportFormat, default_path, unavailable_reason
from mpstudio.engine.export.results import ExportOutcome, ExportRequest
from mpstudio.ui.export.export_results_view import ExportResultsView
from mpstudio.ui.hardware.gpu_memory_form import ERROR_COLOR
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

DEFAULT_FORMATS = ("keras",)
DIALOG_WIDTH = 760  # two columns of formats with their descriptions on 2-3 lines
RESULTS_MIN_HEIGHT = 170
RESULTS_MAX_HEIGHT = 420  # beyond this the results scroll
BAD_NAME_CHARS = '/\\:*?"<>|'  # a base name is one file name, valid on every desktop


class ExportDialog(QDialog):
    export_clicked = Signal(list, bool)  # [ExportRequest], overwrite
    cancel_clicked = Signal()

    def __init__(self, folder: str | Path = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export model")
        self.setModal(False)
        self._blocked = ""  # why the owner refuses an export now ("" = it does not)
        self._busy = False

        self.heading = wrapped_label()
        self.heading.setObjectName("exportHeading")
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.heading.setFont(font)

        self.checks: dict[str, QCheckBox] = {}
        formats = QGroupBox("Formats")
        grid = QGridLayout(formats)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(8)
        for i, fmt in enumerate(FORMATS):
            grid.addWidget(self._format_entry(fmt), i // 2, i % 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)

        self.folder_edit = QLineEdit(str(folder))
        self.folder_edit.setObjectName("exportFolder")
        self.browse_button = QPushButton("Browse…")
        self.browse_button.setObjectName("exportBrowse")
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("exportName")
        self.name_edit.setToolTip("The file name without a suffix; each format adds its own")
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(self.browse_button)
        self.targets_label = secondary(wrapped_label())
        self.targets_label.setObjectName("exportTargets")
        # A grid, not a QFormLayout: that one sizes a wrapped label by its sizeHint and
        # squeezes the format descriptions above to make room.
        form = QGridLayout()
        form.addWidget(QLabel("Save to"), 0, 0)
        form.addLayout(folder_row, 0, 1)
        form.addWidget(QLabel("File name"), 1, 0)
        form.addWidget(self.name_edit, 1, 1)
        form.addWidget(self.targets_label, 2, 1)
        form.setColumnStretch(1, 1)
        self.hint = wrapped_label()
        self.hint.setObjectName("exportHint")
        self.hint.setStyleSheet(f"color: {ERROR_COLOR};")

        self.progress = QProgressBar()
        self.progress.setObjectName("exportProgress")
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = secondary(wrapped_label())
        self.status.setObjectName("exportStatus")

        self.results = ExportResultsView()
        self.results_area = QScrollArea()
        self.results_area.setWidget(self.results)
        self.results_area.setWidgetResizable(True)
        self.results_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results_area.setMinimumHeight(RESULTS_MIN_HEIGHT)
        # Ignored: the results get what is left once every wrapped line has its room.
        self.results_area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.results_area.hide()

        self.export_button = QPushButton("Export")
        self.export_button.setObjectName("exportButton")
        self.export_button.setDefault(True)
        self.export_button.setAutoDefault(True)
        self.cancel_button = QPushButton("Cancel export")
        self.cancel_button.setObjectName("cancelExportButton")
        self.cancel_button.hide()
        self.close_button = QPushButton("Close")
        self.close_button.setObjectName("closeButton")
        self.close_button.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.close_button)

        intro = secondary(wrapped_label(
            "Each format is loaded back in its own runtime and compared with the trained "
            "model on held-out examples; a file is only put in place once it converted."))
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(intro)
        layout.addWidget(formats)
        layout.addLayout(form)
        layout.addWidget(self.hint)
        layout.addWidget(self.progress)
        layout.addWidget(self.results_area, 1)
        layout.addStretch(0)  # takes the slack while there are no results
        layout.addLayout(buttons)

        for check in self.checks.values():
            check.toggled.connect(self._refresh)
        self.folder_edit.textChanged.connect(self._refresh)
        self.name_edit.textChanged.connect(self._refresh)
        self.browse_button.clicked.connect(self._browse)
        self.export_button.clicked.connect(self._export)
        self.cancel_button.clicked.connect(self.cancel_clicked)
        self.close_button.clicked.connect(self.close)
        self.resize(DIALOG_WIDTH, 560)
        self._refresh()

    def _format_entry(self, fmt: ExportFormat) -> QWidget:
        """A format's check box with its description (and why it is off) below."""
        check = QCheckBox(fmt.label)
        check.setObjectName(f"format-{fmt.id}")
        reason = unavailable_reason(fmt)
        check.setChecked(reason is None and fmt.id in DEFAULT_FORMATS)
        check.setEnabled(reason is None)
        self.checks[fmt.id] = check
        indent = check.style().pixelMetric(check.style().PixelMetric.PM_IndicatorWidth) + 6
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(check)
        texts = [_sentence(fmt.description)]
        if reason is not None:
            check.setToolTip(reason)
            texts.append(f"Not installed: {fmt.install_hint}")
        for i, text in enumerate(texts):
            label = secondary(wrapped_label(text))
            label.setContentsMargins(indent, 0, 0, 0)
            if i:  # the install note
                label.setObjectName(f"format-{fmt.id}-note")
                label.setStyleSheet(f"color: {ERROR_COLOR};")
                label.setToolTip(reason)
            layout.addWidget(label)
        layout.addStretch(1)  # entries side by side start level, however long their text
        return box

    # ------------------------------------------------------------ set up
    def set_source(self, heading: str, base: str) -> None:
        """What is exported (a heading) and the base name its files get."""
        self.heading.setText(heading)
        self.name_edit.setText(base)
        self.results.clear()
        self.results_area.hide()
        self.status.setText("")
        self._refresh()

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
            return "An export is running: wait for it or cancel it"
        if self._blocked:
            return self._blocked
        if not self.selected_formats():
            return "Tick at least one format"
        if not self.base_name:
            return "Type a file name"
        if any(c in self.base_name for c in BAD_NAME_CHARS) or self.base_name in (".", ".."):
            return f"The file name cannot contain any of {BAD_NAME_CHARS}"
        if not self.folder_edit.text().strip():
            return "Choose the folder to save to"
        if not self.folder.is_dir():
            return f"The folder {self.folder} does not exist: choose one that does"
        return ""

    def _refresh(self) -> None:
        problem = self.problem()
        self.export_button.setEnabled(not problem)
        self.export_button.setToolTip(problem or "Export the ticked formats and verify each")
        # The hint says what to fix; "an export is running" is already on screen.
        self.hint.setText(problem if problem and not self._busy else "")
        self.hint.setVisible(bool(self.hint.text()))
        lines = []
        if self.base_name and self.folder_edit.text().strip():
            for request in self.requests():
                exists = "   (exists: asks before replacing it)" if request.path.exists() else ""
                lines.append(f"{request.path.name}{exists}")
        self.targets_label.setText("Writes into that folder:\n" + "\n".join(lines)
                                   if lines else "")
        self.targets_label.setVisible(bool(lines))
        self._fit_height()  # more ticked formats, more lines

    # ---------------------------------------------------------------- seams
    def ask_folder(self) -> str:
        """The folder picker (tests replace this); "" when the user cancels."""
        return QFileDialog.getExistingDirectory(self, "Export to the folder", str(self.folder))

    def confirm_overwrite(self, paths: list[Path]) -> bool:
        """Ask before replacing files (tests replace this)."""
        names = "\n".join(str(p) for p in paths)
        what = "This file exists" if len(paths) == 1 else f"These {len(paths)} files exist"
        answer = QMessageBox.question(
            self, "Replace existing files?", f"{what}:\n\n{names}\n\nReplace them?",
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
            self.status.setText("Nothing exported: the existing files were kept")
            return
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
            self.status.setText("Starting the export…")
            self.results.clear()
            self.results_area.hide()
        self._refresh()

    def show_progress(self, done: int, total: int, text: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.status.setText(text)

    def cancelling(self) -> None:
        self.cancel_button.setEnabled(False)
        self.status.setText("Cancelling: the export stops after the current step…")

    def show_outcomes(self, outcomes: list[ExportOutcome], cancelled: bool = False) -> None:
        self.set_busy(False)
        self.results.show_outcomes(outcomes)
        self.results_area.setVisible(bool(outcomes))
        self._fit_height(min(self.results.sizeHint().height() + 8, RESULTS_MAX_HEIGHT))
        self.status.setText(summary_text(outcomes, cancelled))
        self._refresh()  # targets now exist

    def show_failure(self, text: str, error: bool = True) -> None:
        """The job ended without outcomes: an error (in red, above) or a cancel."""
        self.set_busy(False)
        self.status.setText("" if error else text)
        if error:
            self.hint.setText(text)
            self.hint.show()

    def _fit_height(self, results: int = 0) -> None:
        """Grow to fit every wrapped line at this width, plus ``results`` pixels of
        results: Qt does not make a window's minimum height follow word wrap, so a short
        dialog would clip the format descriptions instead."""
        layout = self.layout()
        needed = layout.totalHeightForWidth(self.width())
        if needed < 0:
            needed = layout.totalSizeHint().height()
        needed += max(0, results - RESULTS_MIN_HEIGHT) if self.results_area.isVisible() else 0
        screen = self.screen()
        cap = int(screen.availableGeometry().height() * 0.9) if screen else needed
        self.resize(self.width(), min(max(needed, self.height()), cap))

    def result_lines(self) -> list[str]:
        """The verification line (or the error) of each format shown, in order."""
        return [view.detail.text() for view in self.results.views]


def _sentence(text: str) -> str:
    """Capitalized, except a leading type name ("int8 weights…" stays as it is)."""
    first = text.split(" ", 1)[0]
    return text if any(c.isdigit() for c in first) else text[:1].upper() + text[1:]


def summary_text(outcomes: list[ExportOutcome], cancelled: bool = False) -> str:
    """"3 of 4 exported and verified; 1 not exported" for the status line."""
    written = sum(o.result is not None for o in outcomes)
    if cancelled:
        return (f"Export cancelled: {written} of {len(outcomes)} written before the stop, "
                "nothing else")
    ok = sum(o.ok for o in outcomes)
    below = sum(o.result is not None and not o.ok for o in outcomes)
    failed = sum(o.result is None for o in outcomes)
    text = f"{ok} of {len(outcomes)} exported and verified"
    if below:
        text += f"; {below} below the agreement threshold"
    if failed:
        text += f"; {failed} not exported"
    return text
