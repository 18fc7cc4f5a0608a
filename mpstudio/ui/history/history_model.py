"""The run history as a Qt table model, and the filter the history panel puts on it.

Display text is formatted ("12,345", "93.31%"); SORT_ROLE holds the raw values so a
click on a header sorts numbers as numbers (900 before 10,000), not as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from mpstudio.engine.history.records import RunRow

COLUMNS = ("#", "Started", "Dataset", "Template", "Precision", "Status", "Examples/s",
           "Val accuracy")
ID, STARTED, DATASET, TEMPLATE, PRECISION, STATUS, SPEED, ACCURACY = range(len(COLUMNS))
SORT_ROLE = Qt.ItemDataRole.UserRole
MISSING = "—"
STATUS_COLOR = {
    "failed": "#b91c1c",
    "diverged": "#b91c1c",
    "interrupted": "#b45309",
    "stopped": "#b45309",
    "running": "#2563eb",
}
STATUS_TIP = {
    "running": "Being trained now (or by another process sharing this history file)",
    "interrupted": "The app or process ended during the run; the metrics up to then are kept",
    "stopped": "Stopped by the user; the figures cover the steps it ran",
    "diverged": "The loss became NaN or infinite",
    "failed": "The run ended with an error",
}
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_NUMERIC = (ID, SPEED, ACCURACY)

Index = QModelIndex | QPersistentModelIndex


def precision_text(row: RunRow) -> str:
    """The run's label, with its trial when the label does not say it already."""
    if row.trials > 1 and "trial" not in row.label:
        return f"{row.label} · trial {row.trial}/{row.trials}"
    return row.label


def speed_text(value: float | None) -> str:
    return MISSING if value is None else f"{value:,.0f}"


def accuracy_text(value: float | None) -> str:
    return MISSING if value is None else f"{100 * value:.2f}%"


def cell_text(row: RunRow, column: int) -> str:
    """What a cell of ``column`` shows for ``row``."""
    if column == ID:
        return str(row.id)
    if column == STARTED:
        return row.started_text
    if column == DATASET:
        return row.dataset
    if column == TEMPLATE:
        return row.template
    if column == PRECISION:
        return precision_text(row)
    if column == STATUS:
        return row.status
    if column == SPEED:
        return speed_text(row.examples_per_sec)
    return accuracy_text(row.val_accuracy)


class HistoryTableModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[RunRow] = []
        self._partners: dict[str, list[int]] = {}  # comparison id -> its run ids

    # ------------------------------------------------------------ public API
    @property
    def rows(self) -> list[RunRow]:
        return self._rows

    def set_rows(self, rows: Sequence[RunRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._partners = {}
        for row in sorted(self._rows, key=lambda r: r.id):
            if row.comparison:
                self._partners.setdefault(row.comparison, []).append(row.id)
        self.endResetModel()

    def row_at(self, index: Index) -> RunRow:
        """The run of a source-model index (map a proxy index first)."""
        return self._rows[index.row()]

    # ------------------------------------------------------------ Qt model API
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        # Header text stays centred: right-aligned, it runs into the sort arrow.
        return COLUMNS[section] if role == Qt.ItemDataRole.DisplayRole else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(row, column)
        if role == SORT_ROLE:
            return self._sort_key(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMERIC:
            return int(_RIGHT.value)
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS:
            color = STATUS_COLOR.get(row.status)
            return QBrush(QColor(color)) if color else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(row)
        return None

    # ------------------------------------------------------------- internals
    @staticmethod
    def _sort_key(row: RunRow, column: int) -> Any:
        # Missing figures sort below every real one (a None would not compare).
        if column == ID:
            return row.id
        if column == STARTED:
            return row.created
        if column == SPEED:
            return -1.0 if row.examples_per_sec is None else float(row.examples_per_sec)
        if column == ACCURACY:
            return -1.0 if row.val_accuracy is None else float(row.val_accuracy)
        if column == PRECISION:  # the trials of one label in trial order
            return f"{row.label.split(' · trial')[0].lower()}\x00{row.trial:04d}"
        return cell_text(row, column).lower()

    def tooltip(self, row: RunRow) -> str:
        lines = [f"#{row.id} {precision_text(row)} ({row.dataset} / {row.template}), "
                 f"started {row.started_text}"]
        if row.status in STATUS_TIP:
            lines.append(f"{row.status}: {STATUS_TIP[row.status]}")
        if row.comparison:
            side = "float32 side" if row.role == "baseline" else f"{row.role} side"
            ids = ", ".join(f"#{i}" for i in self._partners.get(row.comparison, [row.id]))
            trial = f", trial {row.trial} of {row.trials}" if row.trials > 1 else ""
            lines.append(f"Comparison {row.comparison[:8]}: the {side}{trial}; its runs "
                         f"still in the history: {ids}")
            lines.append("Select it with a run of the other side and click Compare.")
        else:
            lines.append("A single run (not part of a float32 comparison)")
        return "\n".join(lines)


def _matches(row: RunRow, needle: str) -> bool:
    if needle.lstrip("#").isdigit() and int(needle.lstrip("#")) == row.id:
        return True
    haystack = (row.dataset, row.template, row.label, row.precision, row.status)
    return any(needle in text.lower() for text in haystack)


class HistoryFilter(QSortFilterProxyModel):
    """Free text (dataset, template, precision label, status or run id) and a status."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._status: str | None = None
        self.setSortRole(SORT_ROLE)

    @property
    def status(self) -> str | None:
        return self._status

    def set_text(self, text: str) -> None:
        self._begin_change()
        self._text = text.strip().lower()
        self._end_change()

    def set_status(self, status: str | None) -> None:
        self._begin_change()
        self._status = status or None
        self._end_change()

    def filtering(self) -> bool:
        return bool(self._text or self._status)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        if not isinstance(model, HistoryTableModel) or source_row >= len(model.rows):
            return True
        row = model.rows[source_row]
        if self._status is not None and row.status != self._status:
            return False
        return all(_matches(row, word) for word in self._text.split())

    # Qt 6.10 replaced invalidateFilter() with begin/endFilterChange(); 6.6 has only
    # the former.
    def _begin_change(self) -> None:
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()

    def _end_change(self) -> None:
        if hasattr(self, "endFilterChange"):
            self.endFilterChange()
        else:
            self.invalidateFilter()
