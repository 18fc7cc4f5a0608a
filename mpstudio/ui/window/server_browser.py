"""Where the window picks the engine's files: with the engine on a server, a dataset
or a model file must be the server's (its engine reads it), so File > Import… and
Open .keras… browse the server's folders (server_file_dialog.py) instead of this
computer's. Each server's last folder is remembered for the session."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from mpstudio.ui.window.server_file_dialog import ServerFileDialog

if TYPE_CHECKING:
    from mpstudio.ui.engine_client.engine_client import EngineClient


class ServerBrowser(QObject):
    def __init__(self, engine: EngineClient, window: QWidget) -> None:
        super().__init__(window)
        self.engine = engine
        self.window = window  # the dialogs' parent
        self.folders: dict[str, str] = {}  # by the engine's address: the last folder there
        self.dialog: ServerFileDialog | None = None  # the one open now

    @property
    def remote(self) -> bool:
        """The engine is not on this computer: its files are not this computer's."""
        return not self.engine.target.is_local

    def open_file(self, title: str, suffixes: tuple[str, ...],
                  then: Callable[[str], object]) -> bool:
        """With the engine on a server, open its file dialog, which calls ``then(path)``
        with the file picked; False (and nothing opened) with the engine on this
        computer: the caller opens this computer's."""
        return self._open(title, then, suffixes=suffixes)

    def open_folder(self, title: str, then: Callable[[str], object]) -> bool:
        """As open_file, for a folder."""
        return self._open(title, then, folders_only=True)

    def _open(self, title: str, then: Callable[[str], object], *,
              suffixes: tuple[str, ...] = (), folders_only: bool = False) -> bool:
        if not self.remote:
            return False
        if self.dialog is not None:
            self.dialog.reject()
        target = self.engine.target
        dialog = ServerFileDialog(self.engine, target.label, title, suffixes=suffixes,
                                  folders_only=folders_only,
                                  start=self.folders.get(target.address, ""),
                                  parent=self.window)
        self.dialog = dialog
        dialog.chosen.connect(then)
        dialog.finished.connect(lambda _result: self._closed(dialog, target.address))
        dialog.open()
        return True

    def _closed(self, dialog: ServerFileDialog, address: str) -> None:
        """Picked or not, the next dialog on this server starts where this one was."""
        if dialog.listing is not None:
            self.folders[address] = dialog.listing.path
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()
