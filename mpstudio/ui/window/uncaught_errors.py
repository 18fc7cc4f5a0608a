"""An error nobody caught in the window's process (a bug in a slot, a worker thread)
is logged with its traceback (app_log.log_uncaught) and shown once: a message box
naming the error in one line and the log file, with a button that opens the log
folder. A burst of errors (a paint handler failing at every frame) shows one box that
counts the rest, and none for a while after it is closed: the log has them all."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QMessageBox

from mpstudio.engine.app_log import log_dir, log_uncaught, this_process_log
from mpstudio.ui.window.open_folder import open_folder

log = logging.getLogger(__name__)
QUIET_SECONDS = 10.0  # after a box is closed, errors go to the log only for this long
LINE_CHARS = 200
# wide enough for a log's path on one line (QMessageBox wraps at about 400 px)
WIDE = "QLabel#qt_msgbox_informativelabel { min-width: 520px; }"


def one_line(kind: type[BaseException], value: BaseException) -> str:
    """``ValueError: what it says``, its first line, cut to a readable length."""
    text = str(value).strip().splitlines()
    line = f"{kind.__name__}: {text[0]}" if text else kind.__name__
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…"


class UncaughtErrors(QObject):
    """Install once the QApplication exists; ``uninstall`` puts the previous hooks back."""

    caught = Signal(str)  # the error in one line; crosses to the GUI thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.dialog: QMessageBox | None = None
        self.more = 0  # errors since the box opened
        self._quiet_until = 0.0
        self._restore: Callable[[], None] | None = None
        # queued: a worker thread's error reaches the box in the GUI thread, and an
        # error inside a slot is shown once that slot has unwound
        self.caught.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self) -> None:
        self._restore = log_uncaught(self._caught)

    def uninstall(self) -> None:
        if self._restore is not None:
            self._restore()
            self._restore = None

    def _caught(self, kind: type[BaseException], value: BaseException,
                tb: TracebackType | None, thread: str) -> None:
        # RuntimeError: this object is gone (the app is ending); the error is logged
        with contextlib.suppress(RuntimeError):
            self.caught.emit(one_line(kind, value))

    def _show(self, line: str) -> None:
        try:
            self._show_box(line)
        except Exception:  # never an error of its own: that would come back here, forever
            log.exception("could not show the error")

    def _show_box(self, line: str) -> None:
        if self.dialog is not None:
            self.more += 1
            self.dialog.setInformativeText(self._details())
            return
        if time.monotonic() < self._quiet_until:
            return
        self.more = 0
        box = _error_box(QCoreApplication.translate(
            "UncaughtErrors", "Something went wrong inside mpstudio: {error}").format(
                error=line), self._details())
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(self._closed)
        self.dialog = box
        box.show()

    def startup_failed(self, exc: Exception, show_box: bool = True) -> int:
        """The window could not be built: log it and say so in a box that waits (no
        event loop runs yet; ``show_box`` False where no window can be seen, as a box
        nobody sees would wait forever); the exit code."""
        log.critical("the window could not open", exc_info=exc)
        text = QCoreApplication.translate(
            "UncaughtErrors", "The window could not open: {error}").format(
                error=one_line(type(exc), exc))
        details = self._details(goes_on=False)
        print(f"mpstudio: {text}\n{details}", file=sys.stderr)  # when started from a terminal
        if show_box:
            _error_box(text, details).exec()
        return 1

    def _details(self, goes_on: bool = True) -> str:
        where = this_process_log()
        if where is None:
            text = QCoreApplication.translate(
                "UncaughtErrors", "No log file could be written, so its details went to "
                "the terminal that started mpstudio (if any).")
        else:
            text = QCoreApplication.translate(
                "UncaughtErrors", "Its details are in the log: {log}").format(log=where)
        text += "\n"
        if goes_on:
            text += "\n" + QCoreApplication.translate(
                "UncaughtErrors", "mpstudio goes on, but what you were doing may not have "
                "finished.")
        text += "\n" + QCoreApplication.translate(
            "UncaughtErrors", "Sending the log with a bug report helps fix it.")
        if self.more:
            text += "\n" + QCoreApplication.translate(
                "UncaughtErrors", "Errors since then, in the log too: {count}").format(
                    count=self.more)
        return text

    def _closed(self) -> None:
        self.dialog = None
        self._quiet_until = time.monotonic() + QUIET_SECONDS


def _error_box(text: str, details: str) -> QMessageBox:
    """The box both kinds of error use: the error, where its details are, and a button
    that opens the log folder."""
    box = QMessageBox(QMessageBox.Icon.Critical, QCoreApplication.translate(
        "UncaughtErrors", "mpstudio: unexpected error"), text,
        QMessageBox.StandardButton.Close, QApplication.activeWindow())
    box.setObjectName("uncaughtError")
    box.setStyleSheet(WIDE)
    box.setInformativeText(details)
    folder = box.addButton(QCoreApplication.translate("UncaughtErrors", "Open log folder"),
                           QMessageBox.ButtonRole.ActionRole)
    folder.clicked.connect(lambda: open_folder(log_dir()))
    return box
