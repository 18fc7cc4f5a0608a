"""Messages from a reader thread to the GUI thread, coalesced.

A fast run sends thousands of events a second. Posting one queued signal per message
would flood the GUI's event loop, so messages collect in a locked list and at most one
``arrived`` signal is in flight: the GUI drains everything that came since, in one go.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal


class Inbox(QObject):
    """Create it in the GUI thread and connect ``arrived`` to a slot that calls
    ``drain()``; the connection is queued because ``put`` runs in another thread."""

    arrived = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._messages: list[Any] = []
        self._notified = False

    def put(self, message: Any) -> None:
        """Any thread."""
        with self._lock:
            self._messages.append(message)
            notify = not self._notified
            self._notified = True
        if notify:
            self.arrived.emit()

    def drain(self) -> list[Any]:
        """GUI thread: every message since the last drain, oldest first."""
        with self._lock:
            messages, self._messages = self._messages, []
            self._notified = False
        return messages
