"""SIGTERM, SIGINT and SIGHUP quit the app the way File > Quit does: stop the run (it is
recorded as stopped), save the settings and the window's layout, end the engine.

Qt's event loop runs in C++, where Python's signal handlers never get a turn; a
signal's number is written to a socket (``signal.set_wakeup_fd``) that a
QSocketNotifier watches, so the GUI thread wakes up and handles it at once.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Callable

from PySide6.QtCore import QObject, QSocketNotifier

QUIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP")
                     if hasattr(signal, name))


class QuitSignals(QObject):
    """``quit_now`` is called once, in the GUI thread, for the first quit signal."""

    def __init__(self, quit_now: Callable[[int], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._quit_now = quit_now
        self._reader, self._writer = socket.socketpair()
        for end in (self._reader, self._writer):
            end.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno())
        self._previous = {sig: signal.signal(sig, lambda *_: None) for sig in QUIT_SIGNALS}
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._woken)
        self._handled = False

    def _woken(self) -> None:
        with contextlib.suppress(OSError):
            data = self._reader.recv(64)
            if data and not self._handled:
                self._handled = True
                self._quit_now(data[0])

    def restore(self) -> None:
        """Give the process its previous handlers back (the app has ended)."""
        self._notifier.setEnabled(False)
        signal.set_wakeup_fd(self._previous_fd)
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._reader.close()
        self._writer.close()
