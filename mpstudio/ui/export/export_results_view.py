"""The results page of the Export dialog: a banner with the verdict (failures named
first), then one block per requested format, failed ones on top: its mark (OK, BELOW
THRESHOLD, FAILED), the file and its size, and the verification line (or why nothing
was written)."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from mpstudio.engine.export.results import ExportOutcome
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.ui.export.export_summary import banner_text, format_label
from mpstudio.ui.hardware.gpu_memory_form import ERROR_COLOR
from mpstudio.ui.setup.verdict_marks import VERDICT_COLOR
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

SUCCESS_COLOR = VERDICT_COLOR[Verdict.RECOMMENDED]
NEUTRAL_COLOR = VERDICT_COLOR[Verdict.NO_GAIN]


def outcome_mark(outcome: ExportOutcome, cancelled: bool = False) -> tuple[str, str]:
    """(word, colour) for an outcome: OK, BELOW THRESHOLD, FAILED (NOT WRITTEN when the
    user stopped the export before it)."""
    if outcome.result is None:
        if cancelled:
            return QCoreApplication.translate("ExportResultsView", "NOT WRITTEN"), NEUTRAL_COLOR
        return QCoreApplication.translate("ExportResultsView", "FAILED"), ERROR_COLOR
    if outcome.ok:
        return QCoreApplication.translate("ExportResultsView", "OK"), SUCCESS_COLOR
    return QCoreApplication.translate("ExportResultsView", "BELOW THRESHOLD"), ERROR_COLOR


def failed(outcome: ExportOutcome, cancelled: bool = False) -> bool:
    """A check that failed (not a format the user's stop left unwritten)."""
    return not outcome.ok and not (cancelled and outcome.result is None)


class OutcomeView(QFrame):
    """One format's outcome."""

    def __init__(self, outcome: ExportOutcome, cancelled: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome = outcome
        self.failed = failed(outcome, cancelled)
        name = f"result-{outcome.request.format_id}"
        self.setObjectName(name)
        word, color = outcome_mark(outcome, cancelled)
        self.mark = QLabel(word)
        self.mark.setObjectName("resultMark")
        self.mark.setStyleSheet(f"color: {color}; font-weight: 600;")
        self.mark.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        result = outcome.result
        path = result.path if result is not None else outcome.request.path
        size = f" · {html.escape(result.size_text())}" if result is not None else ""
        # One wrapped label, so a long file name or size note wraps instead of pushing
        # the dialog wider than the screen.
        self.title = wrapped_label(
            f"<b>{html.escape(format_label(outcome.request.format_id))}</b>"
            f" &nbsp;→&nbsp; {html.escape(path.name)}{size}", rich=True)
        self.title.setToolTip(str(path))
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(8)
        top.addWidget(self.mark, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.title, 1)

        if result is not None:
            detail = result.verification.line()
            notes = [*result.notes, *outcome.notes]
        else:
            detail = QCoreApplication.translate("ExportResultsView",
                                                "Not exported: {reason}").format(
                reason=outcome.error)
            notes = list(outcome.notes)
        self.detail = wrapped_label(detail)
        self.detail.setObjectName("resultDetail")
        if self.failed:
            self.detail.setProperty("role", "error")  # the theme's error text
            # A bar down the left: the verdict colours read on light and dark alike.
            self.setFrameShape(QFrame.Shape.StyledPanel)  # else the border is not drawn
            self.setStyleSheet(f"#{name} {{ border: none; border-left: 3px solid {color}; }}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.detail)
        for note in notes:
            layout.addWidget(secondary(wrapped_label(note)))

    def line(self) -> str:
        """The line the log gets: the outcome's own line, which names file and size."""
        return self.outcome.line()


class RowsArea(QScrollArea):
    """A scroll area that asks for the height its rows were fitted to (a plain one
    guesses from its widget's size hint, which word wrap makes wrong)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows_height = 0

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.rows_height)


class ExportResultsView(QWidget):
    """The outcomes of the last export, newest export only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportResults")
        # objectName "banner": app.STYLE's banner look, coloured by its "level".
        self.banner = wrapped_label()
        self.banner.setObjectName("banner")
        self.where = secondary(wrapped_label())
        self.where.setObjectName("exportWhere")
        self.rows = QWidget()
        self.rows.setObjectName("exportRows")
        self._layout = QVBoxLayout(self.rows)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self._layout.setSpacing(4)
        self.area = RowsArea()
        self.area.setWidget(self.rows)
        self.area.setWidgetResizable(True)
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        layout.addWidget(self.where)
        layout.addWidget(self.area, 1)
        self.views: list[OutcomeView] = []

    def clear(self) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.views = []
        self.banner.setText("")

    def show_outcomes(self, outcomes: list[ExportOutcome], cancelled: bool = False) -> None:
        """Failed checks first: they are what the user must see without scrolling."""
        self.clear()
        text, level = banner_text(outcomes, cancelled) if outcomes else ("", "info")
        self.banner.setText(text)
        self.banner.setProperty("level", level)
        self.banner.style().unpolish(self.banner)
        self.banner.style().polish(self.banner)
        folders = {(o.result.path if o.result else o.request.path).parent for o in outcomes}
        self.where.setText(QCoreApplication.translate("ExportResultsView", "Files in {folder}")
                           .format(folder=folders.pop()) if len(folders) == 1 else "")
        self.where.setVisible(bool(self.where.text()))
        ordered = sorted(outcomes, key=lambda o: not failed(o, cancelled))  # stable
        for i, outcome in enumerate(ordered):
            if i:
                rule = QFrame()
                rule.setFrameShape(QFrame.Shape.HLine)
                rule.setFrameShadow(QFrame.Shadow.Sunken)
                self._layout.addWidget(rule)
            view = OutcomeView(outcome, cancelled)
            self._layout.addWidget(view)
            self.views.append(view)
        self._layout.addStretch(1)  # rows stay at the top of a taller area
        self.area.verticalScrollBar().setValue(0)

    def level(self) -> str:
        return str(self.banner.property("level") or "")

    def rows_height(self, width: int) -> int:
        """The height every row needs at ``width`` (the area's, frame included).
        Measured beside a scroll bar: an area that has shown its bar measures its rows
        at that narrower width, and would keep the bar for a line or two."""
        self.rows.ensurePolished()  # style sheet fonts and borders change the wrapping
        frame = 2 * self.area.frameWidth()
        bar = self.area.verticalScrollBar().sizeHint().width()
        inner = self._layout.totalHeightForWidth(max(1, width - frame - bar))
        return (inner if inner >= 0 else self._layout.totalSizeHint().height()) + frame

    def set_rows_height(self, height: int) -> None:
        self.area.rows_height = height
        self.area.setMinimumHeight(height)
        self.area.updateGeometry()

