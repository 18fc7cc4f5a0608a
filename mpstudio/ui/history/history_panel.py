"""The History tab: every run in the history file, filterable and sortable, with
Plot, Compare, Re-run, Export and Delete for the selected runs.

The panel reads the RunStore itself (a quick SQLite query) and deletes through it
after asking; what Plot, Compare, Re-run and Export do is the main window's business, so
those go out as signals carrying run ids.
"""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.history.records import RunRow
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.ui.history.history_model import ID, HistoryFilter, HistoryTableModel, status_text
from mpstudio.ui.themed import error_box
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

STATUS_CHOICES = ("finished", "stopped", "diverged", "failed", "interrupted", "running")
FILTER_PLACEHOLDER = QT_TRANSLATE_NOOP("HistoryPanel",
                                       "Filter: dataset, template, precision, status…")
MAX_COLUMN_WIDTH = 280  # a long label is cut rather than pushing the figures off screen
RUNNING_TIP = QT_TRANSLATE_NOOP("HistoryPanel",
                                "A run still being trained cannot be deleted: stop it first")


def tr(text: str) -> str:
    """A HistoryPanel string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("HistoryPanel", text)


def _count(n: int) -> str:
    if n == 1:
        return QCoreApplication.translate("HistoryPanel", "{n} run").format(n=n)
    return QCoreApplication.translate("HistoryPanel", "{n} runs").format(n=n)


def compare_order(a: RunRow, b: RunRow) -> tuple[int, int]:
    """The float32 run first (the card's baseline side); otherwise the older run."""
    if (a.precision == "float32") != (b.precision == "float32"):
        return (a.id, b.id) if a.precision == "float32" else (b.id, a.id)
    return (min(a.id, b.id), max(a.id, b.id))


class HistoryPanel(QWidget):
    plot_requested = Signal(int)  # run id
    compare_requested = Signal(int, int)  # (float32 or older run, the other)
    rerun_requested = Signal(int)  # run id: set the form up from its spec
    export_requested = Signal(int)  # run id: export its kept model
    deleted = Signal(list)  # the ids just deleted from the store

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyPanel")
        self._store: RunStore | None = None
        # the machine whose copy is shown, when not the engine's (its models are there)
        self.elsewhere = ""
        self.model = HistoryTableModel(self)
        self.proxy = HistoryFilter(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("historyFilter")
        self.filter_edit.setPlaceholderText(tr(FILTER_PLACEHOLDER))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip(QCoreApplication.translate(
            "HistoryPanel", "Words to find in the dataset, template, precision or status; a "
            "number finds that run id"))
        self.status_combo = QComboBox()
        self.status_combo.setObjectName("historyStatus")
        self.status_combo.addItem(QCoreApplication.translate("HistoryPanel", "All"), None)
        for status in STATUS_CHOICES:
            self.status_combo.addItem(status_text(status), status)  # the key as data
        self.count_label = secondary(wrapped_label(selectable=False))
        self.count_label.setObjectName("historyCount")
        self.message_label = wrapped_label()
        self.message_label.setObjectName("historyMessage")
        error_box(self.message_label)
        self.message_label.hide()

        self.table = QTableView()
        self.table.setObjectName("historyTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(ID, Qt.SortOrder.DescendingOrder)  # newest first
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setHighlightSections(False)

        self.plot_button = QPushButton(QCoreApplication.translate("HistoryPanel", "Plot"))
        self.compare_button = QPushButton(QCoreApplication.translate("HistoryPanel", "Compare"))
        self.rerun_button = QPushButton(QCoreApplication.translate("HistoryPanel", "Re-run"))
        self.export_button = QPushButton(QCoreApplication.translate("HistoryPanel", "Export…"))
        self.delete_button = QPushButton(QCoreApplication.translate("HistoryPanel", "Delete…"))
        for name, button in (("plotButton", self.plot_button),
                             ("compareButton", self.compare_button),
                             ("rerunButton", self.rerun_button),
                             ("exportButton", self.export_button),
                             ("deleteButton", self.delete_button)):
            button.setObjectName(name)

        self.filters = filters = QHBoxLayout()
        filters.addWidget(self.filter_edit, 1)
        filters.addWidget(self.status_combo)
        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label, 1)
        for button in (self.plot_button, self.compare_button, self.rerun_button,
                       self.export_button):
            buttons.addWidget(button)
        buttons.addSpacing(12)  # the destructive one a little apart
        buttons.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addLayout(filters)
        layout.addWidget(self.message_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

        self.filter_edit.textChanged.connect(self._filter_changed)
        self.status_combo.currentIndexChanged.connect(self._filter_changed)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.table.doubleClicked.connect(self._double_clicked)
        self.plot_button.clicked.connect(self._plot_clicked)
        self.compare_button.clicked.connect(self._compare_clicked)
        self.rerun_button.clicked.connect(self._rerun_clicked)
        self.export_button.clicked.connect(self._export_clicked)
        self.delete_button.clicked.connect(self._delete_clicked)
        self.set_store(None)

    # ------------------------------------------------------------ public API
    @property
    def store(self) -> RunStore | None:
        return self._store

    def set_store(self, store: RunStore | None, error: str = "") -> None:
        """The history to show; None with ``error`` says why there is none (a damaged
        file, a folder without write access)."""
        self._store = store
        usable = store is not None
        self.table.setVisible(usable)
        for widget in (self.filter_edit, self.status_combo):
            widget.setEnabled(usable)
        if usable:
            self._show_message("")
            self.refresh()
        else:
            self.model.set_rows([])
            self._show_message(error or QCoreApplication.translate("HistoryPanel",
                                                                   "No run history."))
            self._update_count()
            self._update_buttons()

    def refresh(self) -> None:
        """Read the runs again, keeping the selected ones selected."""
        if self._store is None:
            return
        keep = self.selected_ids()
        try:
            rows = self._store.runs()
        except (sqlite3.Error, HistoryError) as exc:
            self._show_message(QCoreApplication.translate(
                "HistoryPanel", "Cannot read the run history {path}: {error}").format(
                path=self._store.path, error=exc))
            return
        self._show_message("")
        first = self.model.rowCount() == 0
        self.model.set_rows(rows)
        if first and rows:  # fit the columns once; later refreshes keep the user's widths
            self._fit_columns()
        self.select_ids(keep)
        self._update_count()
        self._update_buttons()

    def select_ids(self, ids: list[int]) -> None:
        """Select the runs with these ids (those the filter hides stay unselected)."""
        wanted = set(ids)
        selection = QItemSelection()
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if self._run_of(index).id in wanted:
                selection.select(index, self.proxy.index(row, self.proxy.columnCount() - 1))
        flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                 | QItemSelectionModel.SelectionFlag.Rows)
        self.table.selectionModel().select(selection, flags)
        if not selection.isEmpty():
            self.table.scrollTo(selection.indexes()[0])

    def selected_ids(self) -> list[int]:
        """Selected run ids, in the order the table shows them."""
        return [run.id for run in self.selected_runs()]

    def selected_runs(self) -> list[RunRow]:
        rows = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [self._run_of(index) for index in rows]

    def visible_ids(self) -> list[int]:
        """Run ids in the order the table shows them (sorted and filtered)."""
        return [self._run_of(self.proxy.index(r, 0)).id for r in range(self.proxy.rowCount())]

    def confirm_delete(self, ids: list[int]) -> bool:
        """Ask before deleting (tests replace this)."""
        title, question = self.delete_question(ids)
        answer = QMessageBox.question(
            self, title, question,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    @staticmethod
    def delete_question(ids: list[int]) -> tuple[str, str]:
        """(title, question) of the box that asks before deleting ``ids``."""
        if len(ids) == 1:
            question = QCoreApplication.translate(
                "HistoryPanel",
                "Delete run #{id}? Its metrics are removed from the history; a saved model "
                "stays on disk.").format(id=ids[0])
        else:
            question = QCoreApplication.translate(
                "HistoryPanel",
                "Delete {n} runs? Their metrics are removed from the history; saved models "
                "stay on disk.").format(n=len(ids))
        return QCoreApplication.translate("HistoryPanel", "Delete runs"), question

    # ------------------------------------------------------------- internals
    def _run_of(self, proxy_index: QModelIndex) -> RunRow:
        return self.model.row_at(self.proxy.mapToSource(proxy_index))

    def _fit_columns(self) -> None:
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        for column in range(header.count() - 1):  # the last one stretches anyway
            width = header.sectionSize(column) + 16  # air, and room for the sort arrow
            header.resizeSection(column, min(width, MAX_COLUMN_WIDTH))

    def _filter_changed(self) -> None:
        self.proxy.set_text(self.filter_edit.text())
        self.proxy.set_status(self.status_combo.currentData())
        self._update_count()
        self._update_buttons()

    def _show_message(self, text: str) -> None:
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))

    def _update_count(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        if self._store is None:
            self.count_label.setText("")
        elif self.proxy.filtering():
            if total == 1:
                text = QCoreApplication.translate("HistoryPanel", "{shown} of {total} run shown")
            else:
                text = QCoreApplication.translate("HistoryPanel", "{shown} of {total} runs shown")
            self.count_label.setText(text.format(shown=shown, total=total))
        else:
            self.count_label.setText(_count(total))

    def _update_buttons(self, *_: object) -> None:
        runs = self.selected_runs()
        n = len(runs)
        one = n == 1
        self.plot_button.setEnabled(one)
        run_id = runs[0].id if one else 0
        self.plot_button.setToolTip(QCoreApplication.translate(
            "HistoryPanel", "Plot run #{id}'s curves on the Charts tab (or double-click it)")
            .format(id=run_id) if one else QCoreApplication.translate(
            "HistoryPanel", "Select one run to plot its curves"))
        self.rerun_button.setEnabled(one)
        self.rerun_button.setToolTip(QCoreApplication.translate(
            "HistoryPanel", "Set up the form from run #{id}'s settings, ready to run again")
            .format(id=run_id) if one else QCoreApplication.translate(
            "HistoryPanel", "Select one run to run it again with its settings"))
        self.export_button.setEnabled(one and not self.elsewhere)
        self.export_button.setToolTip(QCoreApplication.translate(
            "HistoryPanel", "The models of these runs are on {host}: connect to it to "
            "export them").format(host=self.elsewhere) if self.elsewhere else
            QCoreApplication.translate(
                "HistoryPanel",
                "Export run #{id}'s trained model to Keras, SavedModel, TFLite or ONNX")
            .format(id=run_id) if one else QCoreApplication.translate(
            "HistoryPanel", "Select one run to export its trained model"))
        self.compare_button.setEnabled(n == 2)
        self.compare_button.setToolTip(QCoreApplication.translate(
            "HistoryPanel", "Build the comparison card of the two runs (with the other trials "
            "of their comparison, if any)") if n == 2 else QCoreApplication.translate(
            "HistoryPanel", "Select exactly two runs to compare ({n} selected)").format(n=n))
        running = [r.id for r in runs if r.status == "running"]
        self.delete_button.setEnabled(n >= 1 and not running)
        if running:
            self.delete_button.setToolTip(tr(RUNNING_TIP))
        elif n == 1:
            self.delete_button.setToolTip(QCoreApplication.translate(
                "HistoryPanel", "Delete the 1 run selected from the history"))
        elif n:
            self.delete_button.setToolTip(QCoreApplication.translate(
                "HistoryPanel", "Delete the {n} runs selected from the history").format(n=n))
        else:
            self.delete_button.setToolTip(QCoreApplication.translate(
                "HistoryPanel", "Select runs to delete them from the history"))

    def _double_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.plot_requested.emit(self._run_of(index).id)

    def _plot_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.plot_requested.emit(ids[0])

    def _rerun_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.rerun_requested.emit(ids[0])

    def _export_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.export_requested.emit(ids[0])

    def _compare_clicked(self) -> None:
        runs = self.selected_runs()
        if len(runs) == 2:
            self.compare_requested.emit(*compare_order(*runs))

    def _delete_clicked(self) -> None:
        ids = sorted(self.selected_ids())
        if not ids or self._store is None or not self.confirm_delete(ids):
            return
        try:
            self._store.delete_runs(ids)
        except (sqlite3.Error, HistoryError) as exc:
            self._show_message(QCoreApplication.translate(
                "HistoryPanel", "Could not delete the runs: {error}").format(error=exc))
            return
        self.refresh()
        self.deleted.emit(ids)

