"""The log: what each run did, warnings, the advisor's notes, errors, in time order."""

from __future__ import annotations

import html
import time

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit, QWidget

LEVEL_COLOR = {"info": "", "note": "#1d4ed8", "warning": "#b45309", "error": "#b91c1c",
               "success": "#15803d"}
MAX_LINES = 5000  # a long session keeps its recent history, not all of it
# what a warning's or an error's line starts with, translated where shown
LEVEL_LABEL = {"warning": QT_TRANSLATE_NOOP("LogPanel", "warning: "),
               "error": QT_TRANSLATE_NOOP("LogPanel", "error: ")}


class LogPanel(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("log")
        self.setReadOnly(True)
        self.setMaximumBlockCount(MAX_LINES)
        self.setFont(QFont("monospace", 9))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self._lines: list[tuple[str, str]] = []  # (level, text), for tests and copy

    def add(self, text: str, level: str = "info") -> None:
        stamp = time.strftime("%H:%M:%S")
        color = LEVEL_COLOR.get(level, "")
        label = (QCoreApplication.translate("LogPanel", LEVEL_LABEL[level])
                 if level in LEVEL_LABEL else "")
        body = html.escape(f"{label}{text}").replace("\n", "<br>&nbsp;&nbsp;")
        styled = f'<span style="color:{color}">{body}</span>' if color else body
        self.appendHtml(f'<span style="color:#6b7280">{stamp}</span>&nbsp; {styled}')
        self._lines.append((level, text))
        del self._lines[:-MAX_LINES]

    def lines(self, level: str | None = None) -> list[str]:
        return [text for lvl, text in self._lines if level is None or lvl == level]
