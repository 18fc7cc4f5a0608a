"""The results page of the Export dialog: a banner with the verdict (failures named
first), then one block per requested format, failed ones on top: its mark (OK, BELOW
THRESHOLD, FAILED), the file and its size, and the verification line (or why nothing
was written)."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from mpstudio.engine.export.results import ExportOutcome
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.ui.export.export_summary import banner_text, format_label
from mpstudio.ui.themed import as_banner, set_role, show_level, themed_sheet
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label


def outcome_mark(outcome: ExportOutcome, cancelled: bool = False) -> tuple[str, Verdict]:
    """(word, the verdict whose colour it takes) for an outcome: OK, BELOW THRESHOLD,
    FAILED (NOT WRITTEN when the user stopped the export before it)."""
    if outcome.result is None:
        if cancelled:
            return (QCoreApplication.translate("ExportResultsView", "NOT WRITTEN"),
                    Verdict.NO_GAIN)
        return QCoreApplication.translate("ExportResultsView", "FAILED"), Verdict.UNSUPPORTED
    if outcome.ok:
        return QCoreApplication.translate("ExportResultsView", "OK"), Verdict.RECOMMENDED
    return QCoreApplication.translate("ExportResultsView", "BELOW THRESHOLD"), Verdict.UNSUPPORTED


def failed(outcome: ExportOutcome, cancelled: bool = False) -> bool:
    """A check that failed (not a format the user's stop left unwritten)."""
    return not outcome.ok and not (cancelled and outcome.result is None)


class OutcomeView(QFrame):
    """One format's outcome. A row is kept and shown again with the next export's
    outcome (``show_outcome``): building and polishing seven rows' widgets at once held
    the window's thread for 80-110 ms when the results arrived."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: ExportOutcome | None = None
        self.failed = False
        self.mark = QLabel()
        self.mark.setObjectName("resultMark")
        self.mark.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # One wrapped label, so a long file name or size note wraps instead of pushing
        # the dialog wider than the screen.
        self.title = wrapped_label(rich=True)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(8)
        top.addWidget(self.mark, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.title, 1)
        self.detail = wrapped_label()
        self.detail.setObjectName("resultDetail")
        self.notes = secondary(wrapped_label())  # one line per note
        self.notes.setObjectName("resultNotes")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.detail)
        layout.addWidget(self.notes)

    def show_outcome(self, outcome: ExportOutcome, cancelled: bool = False) -> None:
        self.outcome = outcome
        self.failed = failed(outcome, cancelled)
        name = f"result-{outcome.request.format_id}"
        self.setObjectName(name)
        word, verdict = outcome_mark(outcome, cancelled)
        self.mark.setText(word)
        themed_sheet(self.mark, lambda c: f"color: {c.verdict[verdict]}; font-weight: 600;")
        result = outcome.result
        path = result.path if result is not None else outcome.request.path
        size = f" · {html.escape(result.size_text())}" if result is not None else ""
        self.title.setText(f"<b>{html.escape(format_label(outcome.request.format_id))}</b>"
                           f" &nbsp;→&nbsp; {html.escape(path.name)}{size}")
        self.title.setToolTip(str(path))
        if result is not None:
            detail = result.verification.line()
            notes = [*result.notes, *outcome.notes]
        else:
            detail = QCoreApplication.translate("ExportResultsView",
                                                "Not exported: {reason}").format(
                reason=outcome.error)
            notes = list(outcome.notes)
        self.detail.setText(detail)
        set_role(self.detail, "error" if self.failed else "")  # the theme's error text
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        # A failed check gets a bar down the left, in its verdict's colour
        self.setFrameShape(QFrame.Shape.StyledPanel if self.failed  # else no border drawn
                           else QFrame.Shape.NoFrame)
        themed_sheet(self, lambda c: f"#{name} {{ border: none; border-left: 3px solid "
                                     f"{c.verdict[verdict]}; }}" if self.failed else "")

    def line(self) -> str:
        """The line the log gets: the outcome's own line, which names file and size."""
        assert self.outcome is not None
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
        # The theme's banner look, coloured by its "level"
        self.banner = wrapped_label()
        as_banner(self.banner)
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
        self._layout.addStretch(1)  # rows stay at the top of a taller area
        self._rows: list[tuple[QFrame, OutcomeView]] = []  # (the rule above it, the row)
        self._wanted = 0  # rows prepare_rows was asked for
        self.views: list[OutcomeView] = []  # the rows showing the last export's outcomes

    def clear(self) -> None:
        """No outcomes shown: the rows are hidden, kept for the next export's."""
        for rule, view in self._rows:
            rule.hide()
            view.hide()
            view.setObjectName("")  # not a result row until it shows one again
        self.views = []
        self.banner.setText("")

    def show_outcomes(self, outcomes: list[ExportOutcome], cancelled: bool = False) -> None:
        """Failed checks first: they are what the user must see without scrolling."""
        self.clear()
        text, level = banner_text(outcomes, cancelled) if outcomes else ("", "info")
        self.banner.setText(text)
        show_level(self.banner, level)
        folders = {(o.result.path if o.result else o.request.path).parent for o in outcomes}
        self.where.setText(QCoreApplication.translate("ExportResultsView", "Files in {folder}")
                           .format(folder=folders.pop()) if len(folders) == 1 else "")
        self.where.setVisible(bool(self.where.text()))
        ordered = sorted(outcomes, key=lambda o: not failed(o, cancelled))  # stable
        while len(self._rows) < len(ordered):
            self._add_row()
        for i, outcome in enumerate(ordered):
            rule, view = self._rows[i]
            rule.setVisible(i > 0)
            view.show_outcome(outcome, cancelled)
            view.show()
            self.views.append(view)
        self.area.verticalScrollBar().setValue(0)

    def prepare_rows(self, count: int) -> None:
        """Have rows for ``count`` outcomes before they arrive: built one per turn of the
        event loop, hidden, so the results cost the window no new widget."""
        self._wanted = max(self._wanted, count)
        if len(self._rows) < self._wanted:
            QTimer.singleShot(0, self, self._prepare_next)

    def _prepare_next(self) -> None:
        if len(self._rows) < self._wanted:
            rule, view = self._add_row()
            rule.hide()
            view.hide()
            view.ensurePolished()  # and its children: the style's work done now too
            QTimer.singleShot(0, self, self._prepare_next)

    def _add_row(self) -> tuple[QFrame, OutcomeView]:
        rule = QFrame()
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)
        view = OutcomeView()
        at = self._layout.count() - 1  # above the stretch: rows stay at the top
        self._layout.insertWidget(at, rule)
        self._layout.insertWidget(at + 1, view)
        self._rows.append((rule, view))
        return rule, view

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

