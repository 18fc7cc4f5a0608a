"""The run history as a Qt table model, and the filter the history panel puts on it.

Display text is formatted ("12,345", "93.31%"); SORT_ROLE holds the raw values so a
click on a header sorts numbers as numbers (900 before 10,000), not as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from mpstudio.engine.history.records import RunRow
from mpstudio.engine.run_labels import shown_label

# The headers, shown translated (``tr``).
COLUMNS = ("#", QT_TRANSLATE_NOOP("HistoryTableModel", "Started"),
           QT_TRANSLATE_NOOP("HistoryTableModel", "Dataset"),
           QT_TRANSLATE_NOOP("HistoryTableModel", "Template"),
           QT_TRANSLATE_NOOP("HistoryTableModel", "Precision"),
           QT_TRANSLATE_NOOP("HistoryTableModel", "Status"),
           QT_TRANSLATE_NOOP("HistoryTableModel", "Examples/s"),
           QT_TRANSLATE_NOOP("HistoryTableModel", "Val accuracy"))
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
# A run's status (stored as the key) in words, and what it means: shown translated.
STATUS_TEXT = {
    "finished": QT_TRANSLATE_NOOP("HistoryTableModel", "finished"),
    "stopped": QT_TRANSLATE_NOOP("HistoryTableModel", "stopped"),
    "diverged": QT_TRANSLATE_NOOP("HistoryTableModel", "diverged"),
    "failed": QT_TRANSLATE_NOOP("HistoryTableModel", "failed"),
    "interrupted": QT_TRANSLATE_NOOP("HistoryTableModel", "interrupted"),
    "running": QT_TRANSLATE_NOOP("HistoryTableModel", "running"),
}
STATUS_TIP = {
    "running": QT_TRANSLATE_NOOP(
        "HistoryTableModel",
        "Being trained now (or by another process sharing this history file)"),
    "interrupted": QT_TRANSLATE_NOOP(
        "HistoryTableModel",
        "The app or process ended during the run; the metrics up to then are kept"),
    "stopped": QT_TRANSLATE_NOOP("HistoryTableModel",
                                 "Stopped by the user; the figures cover the steps it ran"),
    "diverged": QT_TRANSLATE_NOOP("HistoryTableModel", "The loss became NaN or infinite"),
    "failed": QT_TRANSLATE_NOOP("HistoryTableModel", "The run ended with an error"),
}
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_NUMERIC = (ID, SPEED, ACCURACY)

Index = QModelIndex | QPersistentModelIndex


def tr(text: str) -> str:
    """A HistoryTableModel string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("HistoryTableModel", text)


def status_text(status: str) -> str:
    """A stored status ("finished") as shown; one this version does not know, as it is."""
    return tr(STATUS_TEXT[status]) if status in STATUS_TEXT else status


def precision_text(row: RunRow) -> str:
    """The run's label, with its trial when the label does not say it already, as shown."""
    label = row.label
    if row.trials > 1 and "trial" not in row.label:
        label = f"{row.label} · trial {row.trial}/{row.trials}"  # a key: shown_label words it
    return shown_label(label)


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
        return status_text(row.status)
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
        return tr(COLUMNS[section]) if role == Qt.ItemDataRole.DisplayRole else None

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
        lines = [QCoreApplication.translate(
            "HistoryTableModel", "#{id} {label} ({dataset} / {template}), started {when}").format(
            id=row.id, label=precision_text(row), dataset=row.dataset, template=row.template,
            when=row.started_text)]
        if row.status in STATUS_TIP:
            lines.append(QCoreApplication.translate("HistoryTableModel", "{status}: {meaning}")
                         .format(status=status_text(row.status),
                                 meaning=tr(STATUS_TIP[row.status])))
        if row.comparison:
            ids = ", ".join(f"#{i}" for i in self._partners.get(row.comparison, [row.id]))
            lines.append(self._side_text(row).format(
                comparison=row.comparison[:8], trial=row.trial, trials=row.trials, ids=ids))
            lines.append(QCoreApplication.translate(
                "HistoryTableModel", "Select it with a run of the other side and click Compare."))
        else:
            lines.append(QCoreApplication.translate(
                "HistoryTableModel", "A single run (not part of a float32 comparison)"))
        return "\n".join(lines)

    @staticmethod
    def _side_text(row: RunRow) -> str:
        """Which side of its comparison ``row`` ran on, and which trial: one sentence
        each, with {comparison}, {trial}, {trials} and {ids} to fill in."""
        if row.role == "baseline":
            if row.trials > 1:
                return QCoreApplication.translate(
                    "HistoryTableModel", "Comparison {comparison}: the float32 side, trial "
                    "{trial} of {trials}; its runs still in the history: {ids}")
            return QCoreApplication.translate(
                "HistoryTableModel", "Comparison {comparison}: the float32 side; its runs "
                "still in the history: {ids}")
        if row.trials > 1:
            return QCoreApplication.translate(
                "HistoryTableModel", "Comparison {comparison}: the mixed side, trial {trial} "
                "of {trials}; its runs still in the history: {ids}")
        return QCoreApplication.translate(
            "HistoryTableModel", "Comparison {comparison}: the mixed side; its runs still in "
            "the history: {ids}")


def _matches(row: RunRow, needle: str) -> bool:
    if needle.lstrip("#").isdigit() and int(needle.lstrip("#")) == row.id:
        return True
    # the words as stored and as shown: "baseline" and "基线" both find a baseline
    haystack = (row.dataset, row.template, row.label, row.precision, row.status,
                precision_text(row), status_text(row.status))
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
