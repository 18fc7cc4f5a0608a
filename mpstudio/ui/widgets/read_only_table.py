"""A table that shows figures: not editable, not selectable, no focus, alternating rows,
as tall as its rows (the panel around it scrolls, not the table)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QSizePolicy, QTableWidget


def read_only_table(name: str, columns: int = 0) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.setObjectName(name)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setAlternatingRowColors(True)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return table


def fit_height(table: QTableWidget) -> int:
    """Set ``table`` as tall as its header and rows (and its horizontal scroll bar when
    the columns are wider than the view); returns the height."""
    table.resizeRowsToContents()
    header = table.horizontalHeader()
    # The header's height as the table's next layout makes it (QTableView's
    # updateGeometries): before the first show it has none yet, and after its labels
    # change it keeps the old one until then.
    height = max(header.minimumHeight(), header.sizeHint().height()) + 2 * table.frameWidth()
    height += sum(table.rowHeight(r) for r in range(table.rowCount()))
    if header.length() > table.viewport().width():
        height += table.horizontalScrollBar().sizeHint().height()
    if table.height() != height or table.minimumHeight() != height:
        table.setFixedHeight(height)
    return height


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    """What a cell shows ("" for a cell never filled), row by row for tests and copying."""
    item = table.item(row, column)
    return item.text() if item is not None else ""
