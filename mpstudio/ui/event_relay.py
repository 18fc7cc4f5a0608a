"""Engine events from a worker thread to the GUI thread, coalesced.

The engine calls ``emit`` from its thread for every event; a fast run produces
thousands a second. Posting one queued signal per event would flood the GUI's
event loop, so events collect in a locked list and at most one ``ready`` signal
is in flight: the GUI drains everything that arrived since, in one go.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal


class EventRelay(QObject):
    """A reporter (``emit``/``should_stop``) whose events reach the GUI thread in batches.

    Create it in the GUI thread and connect ``ready`` to a slot that calls ``drain()``;
    the connection is queued automatically because ``emit`` runs in another thread.
    """

    ready = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._events: list[Any] = []
        self._pending = False
        self._stop = threading.Event()

    # ---------------------------------------------------- engine (any thread)
    def emit(self, event: Any) -> None:
        with self._lock:
            self._events.append(event)
            notify = not self._pending
            self._pending = True
        if notify:
            self.ready.emit()

    def should_stop(self) -> bool:
        return self._stop.is_set()

    # --------------------------------------------------------- GUI thread
    def drain(self) -> list[Any]:
        """Every event emitted since the last drain, oldest first."""
        with self._lock:
            events, self._events = self._events, []
            self._pending = False
        return events

    def stop(self) -> None:
        """Ask the engine to stop (it polls ``should_stop`` once per batch)."""
        self._stop.set()

    def reset(self) -> None:
        """Ready for the next run: no stop request, nothing queued."""
        self._stop.clear()
        self.drain()
