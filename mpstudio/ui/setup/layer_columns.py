"""How the layer table's columns share the setup panel's width (about 330 px at 1280x720
and 1366x768): every header whole, the narrow dtype columns as wide as their text, the
layer names and the Tensor Core notes taking what is left (elided, whole in their tips),
and the table scrolling sideways only when even that does not fit.

The type and parameter columns are details: hidden unless the user shows them from the
header's context menu (every row's tip has them). Six columns side by side needed 500-700
px for a resnet and cut "variables" and "params" off at the panel's edge.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QPoint, Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QMenu,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
)

NAME, TYPE, COMPUTE, VARIABLES, PARAMS, TENSOR_CORES = range(6)
DETAILS = (TYPE, PARAMS)  # hidden until asked for; the rows' tips say them
CAN_HIDE = (TYPE, COMPUTE, VARIABLES, PARAMS)  # Tensor Cores: shown when a layer has a note
TENSOR_CORES_MAX_WIDTH = 230  # a longer note is elided (its tip has it whole)
NAME_MIN_CHARS = 12  # below this a name says too little: the table scrolls instead


class _ElideRight(QStyledItemDelegate):
    """A Tensor Core note keeps its start ("no: units 10 → …"); names keep both ends."""

    def initStyleOption(self, option: QStyleOptionViewItem,
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight


class LayerColumns(QObject):
    """Sizes ``table``'s columns to the width it has, again whenever that changes."""

    def __init__(self, table: QTableWidget) -> None:
        super().__init__(table)
        self.table = table
        self._needs: dict[int, int] = {}  # each column's widest cell
        header = table.horizontalHeader()
        header.setStretchLastSection(False)  # the name column takes what is left
        for column in range(table.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        table.setItemDelegateForColumn(TENSOR_CORES, _ElideRight(table))
        for column in DETAILS:
            table.setColumnHidden(column, True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._menu)
        table.viewport().installEventFilter(self)

    # --------------------------------------------------------------- sizing
    def measure(self) -> None:
        """The widest cell of every column, once per model shown (over all rows: not
        on every resize)."""
        self._needs = {column: self.table.sizeHintForColumn(column)
                       for column in range(self.table.columnCount())}
        self._needs[TENSOR_CORES] = min(self._needs[TENSOR_CORES], TENSOR_CORES_MAX_WIDTH)
        self.fit()

    def fit(self) -> None:
        """Widths for the room there is: each column its text; too little room takes
        it from the Tensor Core notes, then the names, never below their headers."""
        table, header = self.table, self.table.horizontalHeader()
        shown = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
        if not self._needs or not shown:
            return
        # (a hidden section's header hint is 0: taken now, while shown)
        floors = {c: header.sectionSizeHint(c) for c in shown}
        widths = {c: max(self._needs[c], floors[c]) for c in shown}
        floors[NAME] = max(floors[NAME], min(widths[NAME], self._name_floor()))
        over = sum(widths.values()) - table.viewport().width()
        for column in (TENSOR_CORES, NAME):
            if over > 0 and column in widths:
                give = min(over, widths[column] - floors[column])
                widths[column] -= max(give, 0)
                over -= max(give, 0)
        if over < 0 and NAME in widths:
            widths[NAME] -= over  # room to spare: the names have it
        for column, width in widths.items():
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)

    def _name_floor(self) -> int:
        return self.table.fontMetrics().horizontalAdvance("x" * NAME_MIN_CHARS) + 8

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    # ----------------------------------------------------------------- menu
    def set_shown(self, column: int, shown: bool) -> None:
        """Show or hide a column the user may hide (the header's context menu)."""
        self.table.setColumnHidden(column, not shown)
        self.fit()

    def _menu(self, at: QPoint) -> None:
        menu = QMenu(self.table)
        menu.setObjectName("layerColumnsMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        for column in CAN_HIDE:
            item = self.table.horizontalHeaderItem(column)
            action = menu.addAction(item.text() if item is not None else str(column))
            action.setCheckable(True)
            action.setChecked(not self.table.isColumnHidden(column))
            action.toggled.connect(lambda shown, column=column: self.set_shown(column, shown))
        menu.popup(self.table.horizontalHeader().mapToGlobal(at))
