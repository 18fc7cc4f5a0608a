"""A file dialog for the engine's machine: with the engine on a server, the dataset and
the model file to pick are the server's, so its folders are listed by the engine
(``ListFolderRequest``) and browsed here, as a file dialog browses this computer's.

A path line (Enter goes there), Up and Home, the folder's entries (folders first); a
double-click (or Enter) enters a folder or, picking a file, takes it. Picking a folder, OK takes
the selected sub-folder, else the folder shown. While the engine lists, the status line
says so; a folder that cannot be listed leaves the last one shown and its sentence
there. Opened with ``open()``: ``chosen`` carries the path picked (the server's own,
never resolved on this computer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QDateTime, QEvent, QLocale, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.service.job_requests import ListFolderRequest
from mpstudio.ui.themed import set_role

if TYPE_CHECKING:
    from mpstudio.engine.service.folder_listing import FolderEntry, FolderListing
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob

NAME, SIZE, MODIFIED = range(3)
ENTRY = Qt.ItemDataRole.UserRole  # an item's FolderEntry


def joined(folder: str, name: str) -> str:
    """``name`` in ``folder``, written as the engine's machine writes paths (a server's
    path is not this computer's: no Path here, which would use this one's separator)."""
    separator = "\\" if "\\" in folder and "/" not in folder else "/"
    return folder.rstrip("/\\") + separator + name


class ServerFileDialog(QDialog):
    chosen = Signal(str)  # the path picked, as the engine's machine names it

    def __init__(self, engine: EngineClient, host: str, title: str, *,
                 suffixes: tuple[str, ...] = (), folders_only: bool = False,
                 start: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverFileDialog")
        self.engine = engine
        self.suffixes, self.folders_only = suffixes, folders_only
        self.listing: FolderListing | None = None  # the folder shown
        self.job: EngineJob[FolderListing] | None = None  # the listing asked for now
        self.picked = ""
        self.setWindowTitle(QCoreApplication.translate(
            "ServerFileDialog", "{title} on {host}").format(title=title, host=host))
        self.path_edit = QLineEdit()
        self.path_edit.setObjectName("serverPath")
        self.path_edit.setPlaceholderText(QCoreApplication.translate(
            "ServerFileDialog", "a folder on {host}, e.g. ~/data").format(host=host))
        self.path_edit.installEventFilter(self)  # Enter goes there (eventFilter)
        style = self.style()
        self.up_button = QPushButton(style.standardIcon(QStyle.StandardPixmap.SP_ArrowUp),
                                     QCoreApplication.translate("ServerFileDialog", "&Up"))
        self.up_button.setObjectName("up")
        self.up_button.setAutoDefault(False)  # Enter is OK's, or the path's, never Up's
        self.up_button.setToolTip(QCoreApplication.translate(
            "ServerFileDialog", "The folder this one is in"))
        self.up_button.clicked.connect(self.go_up)
        self.home_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_DirHomeIcon),
            QCoreApplication.translate("ServerFileDialog", "&Home"))
        self.home_button.setObjectName("home")
        self.home_button.setAutoDefault(False)
        self.home_button.setToolTip(QCoreApplication.translate(
            "ServerFileDialog", "Your home folder on {host}").format(host=host))
        self.home_button.clicked.connect(lambda: self.go("~"))
        self.entries = self._entry_list()
        self.status = QLabel()
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.take)
        self.buttons.rejected.connect(self.reject)
        self._folder_icon = style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
        self._file_icon = style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)
        bar = QHBoxLayout()
        bar.addWidget(self.path_edit, 1)
        bar.addWidget(self.up_button)
        bar.addWidget(self.home_button)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.entries, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(720, 460)
        self._enable()
        self.go(start)

    def _entry_list(self) -> QTreeWidget:
        entries = QTreeWidget()
        entries.setObjectName("entries")
        entries.setColumnCount(3)
        entries.setHeaderLabels([
            QCoreApplication.translate("ServerFileDialog", "Name"),
            QCoreApplication.translate("ServerFileDialog", "Size"),
            QCoreApplication.translate("ServerFileDialog", "Modified")])
        entries.setRootIsDecorated(False)
        entries.setUniformRowHeights(True)
        entries.setAllColumnsShowFocus(True)
        entries.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = entries.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(SIZE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(MODIFIED, QHeaderView.ResizeMode.ResizeToContents)
        entries.itemDoubleClicked.connect(lambda item, _column: self.open_entry(item))
        entries.installEventFilter(self)  # Enter opens the entry (eventFilter)
        entries.itemSelectionChanged.connect(self._enable)
        return entries

    # ---------------------------------------------------------------- moving
    def go(self, path: str) -> None:
        """List ``path`` on the engine's machine ("" or "~": the home folder); the
        listing asked for before, if it is still out, is cancelled."""
        if self.job is not None:
            self.job.cancel()
        job = self.engine.submit(ListFolderRequest(path.strip(), self.suffixes,
                                                   self.folders_only), parent=self)
        self.job = job
        job.on_result(lambda listing: self._listed(job, listing))
        job.errored.connect(lambda message: self._failed(job, message))
        self._say(QCoreApplication.translate("ServerFileDialog", "listing…"), "hint")

    def go_up(self) -> None:
        if self.listing is not None and self.listing.parent:
            self.go(self.listing.parent)

    def open_entry(self, item: QTreeWidgetItem) -> None:
        """A folder: go in; a file: take it (a double-click, or Enter)."""
        entry: FolderEntry = item.data(NAME, ENTRY)
        if self.listing is None:
            return
        path = joined(self.listing.path, entry.name)
        if entry.is_dir:
            self.go(path)
        elif not self.folders_only:
            self._take(path)

    def take(self) -> None:
        """OK: the selected file (a selected folder is entered); picking a folder, the
        selected sub-folder, else the folder shown."""
        if self.listing is None:
            return
        item = self.entries.currentItem() if self.entries.selectedItems() else None
        if self.folders_only:
            entry = item.data(NAME, ENTRY) if item is not None else None
            self._take(joined(self.listing.path, entry.name) if entry else self.listing.path)
        elif item is not None:
            self.open_entry(item)

    def _take(self, path: str) -> None:
        self.picked = path
        self.chosen.emit(path)
        self.accept()

    def done(self, result: int) -> None:
        job, self.job = self.job, None
        if job is not None:  # closed while listing: the engine need not go on
            job.cancel()
        super().done(result)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter in the path line goes there, in the list opens the entry; taken here,
        it never reaches the dialog, which would press OK with it too."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if watched is self.path_edit:
                self.go(self.path_edit.text())
                return True
            if watched is self.entries:
                item = self.entries.currentItem()
                if item is not None:
                    self.open_entry(item)
                return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------- listings
    def _listed(self, job: EngineJob[FolderListing], listing: FolderListing) -> None:
        if job is not self.job:
            return  # superseded
        self.job = None
        self.listing = listing
        self.path_edit.setText(listing.path)
        self.entries.clear()
        locale = QLocale()
        for entry in listing.entries:
            item = QTreeWidgetItem([
                entry.name, "" if entry.is_dir else locale.formattedDataSize(entry.size),
                QDateTime.fromSecsSinceEpoch(int(entry.modified)).toString(
                    "yyyy-MM-dd HH:mm")])
            item.setIcon(NAME, self._folder_icon if entry.is_dir else self._file_icon)
            item.setData(NAME, ENTRY, entry)
            item.setTextAlignment(SIZE, Qt.AlignmentFlag.AlignRight
                                  | Qt.AlignmentFlag.AlignVCenter)
            self.entries.addTopLevelItem(item)
        self._say(self._shown_note(listing), "hint")
        self._enable()

    def _shown_note(self, listing: FolderListing) -> str:
        if self.folders_only:
            note = QCoreApplication.translate("ServerFileDialog", "Folders only.")
        elif self.suffixes:
            note = QCoreApplication.translate(
                "ServerFileDialog", "Folders and {suffixes} files.").format(
                    suffixes=", ".join(self.suffixes))
        else:
            note = ""
        if not listing.entries:
            note = " ".join([note, QCoreApplication.translate(
                "ServerFileDialog", "Nothing here to open.")]).strip()
        if listing.truncated:
            note = " ".join([note, QCoreApplication.translate(
                "ServerFileDialog", "Only the first {count} are listed: type a path to go "
                "further.").format(count=len(listing.entries))]).strip()
        return note

    def _failed(self, job: EngineJob[FolderListing], message: str) -> None:
        if job is not self.job:
            return  # superseded (its "cancelled" included)
        self.job = None  # the folder shown stays, and the path typed, to be corrected
        self._say(message, "error")
        self._enable()

    def _say(self, text: str, role: str) -> None:
        self.status.setText(text)
        set_role(self.status, role)

    def _enable(self) -> None:
        shown = self.listing is not None
        self.up_button.setEnabled(shown and bool(self.listing and self.listing.parent))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert ok is not None
        ok.setEnabled(shown and (self.folders_only or bool(self.entries.selectedItems())))
