"""The card's "why, op by op" table: shown under the card when the comparison took an
op profile (Profile ops), hidden otherwise."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.comparison.card_text import PROFILE_TITLE, ProfileTable
from mpstudio.engine.i18n import _
from mpstudio.ui.widgets.panel_labels import heading, secondary, wrapped_label
from mpstudio.ui.widgets.read_only_table import cell_text, fit_height, read_only_table

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class OpProfileView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("opProfile")
        self.title = heading(_(PROFILE_TITLE))  # the engine's words (its catalog)
        self.title.setWordWrap(True)
        self.note = secondary(wrapped_label(""))
        self.note.setObjectName("opProfileNote")
        # op type names are long (Conv2DBackpropFilter): never cut, scroll sideways
        self.table = read_only_table("opProfileTable")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        self.hide()

    def show_table(self, table: ProfileTable | None) -> None:
        if table is None:
            self.table.setRowCount(0)
            self.hide()
            return
        self.table.setColumnCount(len(table.headers))
        self.table.setHorizontalHeaderLabels(list(table.headers))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setRowCount(len(table.rows))
        for r, row in enumerate(table.rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(_RIGHT)
                self.table.setItem(r, c, item)
        fit_height(self.table)
        self.note.setText(table.note)
        self.show()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.table.rowCount():
            fit_height(self.table)  # the scroll bar comes and goes with the width

    def rows_text(self) -> list[tuple[str, ...]]:
        return [tuple(cell_text(self.table, r, c) for c in range(self.table.columnCount()))
                for r in range(self.table.rowCount())]
