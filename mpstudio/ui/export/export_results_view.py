"""The results part of the Export dialog: one block per requested format with its
mark (OK, BELOW THRESHOLD, FAILED), the file and its size, and the verification line
(or why nothing was written)."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mpstudio.engine.export.formats import FORMAT_IDS, export_format
from mpstudio.engine.export.results import ExportOutcome
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.ui.hardware.gpu_memory_form import ERROR_COLOR
from mpstudio.ui.setup.verdict_marks import VERDICT_COLOR
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

SUCCESS_COLOR = VERDICT_COLOR[Verdict.RECOMMENDED]


def outcome_mark(outcome: ExportOutcome) -> tuple[str, str]:
    """(word, colour) for an outcome: OK, BELOW THRESHOLD or FAILED."""
    if outcome.result is None:
        return "FAILED", ERROR_COLOR
    if outcome.ok:
        return "OK", SUCCESS_COLOR
    return "BELOW THRESHOLD", ERROR_COLOR


def _format_label(format_id: str) -> str:
    return export_format(format_id).label if format_id in FORMAT_IDS else format_id


class OutcomeView(QFrame):
    """One format's outcome."""

    def __init__(self, outcome: ExportOutcome, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome = outcome
        self.setObjectName(f"result-{outcome.request.format_id}")
        word, color = outcome_mark(outcome)
        self.mark = QLabel(word)
        self.mark.setObjectName("resultMark")
        self.mark.setStyleSheet(f"color: {color}; font-weight: 600;")
        title = QLabel(_format_label(outcome.request.format_id))
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        size = outcome.result.size_text() if outcome.result is not None else ""
        self.size = secondary(QLabel(size))
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.mark)
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.size)

        path = outcome.result.path if outcome.result is not None else outcome.request.path
        self.path = secondary(wrapped_label(str(path)))
        if outcome.result is not None:
            detail = outcome.result.verification.line()
            notes = [*outcome.result.notes, *outcome.notes]
        else:
            detail = f"Not exported: {outcome.error}"
            notes = list(outcome.notes)
        self.detail = wrapped_label(detail)
        self.detail.setObjectName("resultDetail")
        if outcome.result is None or not outcome.ok:
            self.detail.setStyleSheet(f"color: {color};")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.path)
        layout.addWidget(self.detail)
        for note in notes:
            layout.addWidget(secondary(wrapped_label(note)))

    def line(self) -> str:
        """The line the log gets: the outcome's own line, which names file and size."""
        return self.outcome.line()


class ExportResultsView(QWidget):
    """The outcomes of the last export, newest export only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportResults")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 4, 8, 4)
        self._layout.setSpacing(4)
        self.views: list[OutcomeView] = []

    def clear(self) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.views = []

    def show_outcomes(self, outcomes: list[ExportOutcome]) -> None:
        self.clear()
        for i, outcome in enumerate(outcomes):
            if i:
                rule = QFrame()
                rule.setFrameShape(QFrame.Shape.HLine)
                rule.setFrameShadow(QFrame.Shadow.Sunken)
                self._layout.addWidget(rule)
            view = OutcomeView(outcome)
            self._layout.addWidget(view)
            self.views.append(view)
