"""A settings group that folds away: a header button with an arrow, and its contents.

The setup form was three screens tall; the groups most runs never touch (distribution,
training aids) fold to one line and remember whether they were open.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSizePolicy, QToolButton, QVBoxLayout, QWidget


class FoldingGroup(QWidget):
    toggled = Signal(bool)  # open

    def __init__(self, title: str, *widgets: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QToolButton()
        self.header.setObjectName("foldingHeader")
        self.header.setText(title)
        self.header.setCheckable(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.header.setStyleSheet("QToolButton { border: none; font-weight: bold; "
                                  "text-align: left; padding: 4px 2px; }")
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(14, 0, 0, 6)
        for widget in widgets:
            body.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.body)
        self.header.toggled.connect(self._toggled)
        self._toggled(False)

    @property
    def is_open(self) -> bool:
        return self.header.isChecked()

    def set_open(self, open_: bool) -> None:
        self.header.setChecked(open_)
        self._toggled(open_)

    def _toggled(self, open_: bool) -> None:
        self.header.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)
        self.toggled.emit(open_)
