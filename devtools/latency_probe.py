"""How long the GUI thread's event loop was blocked: a short timer that records how
much later than due each tick ran. The responsiveness tests and the chart
benchmark both measure with it."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer


class LatencyProbe(QObject):
    def __init__(self, interval_ms: int = 10, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.worst = 0.0  # seconds: the longest a tick came late
        self.lates: list[float] = []  # every tick's lateness, seconds
        self.ticks = 0
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setObjectName("latencyProbe")
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        late = max(0.0, now - self._last - self.interval_ms / 1000)
        self.lates.append(late)
        self.worst = max(self.worst, late)
        self._last = now
        self.ticks += 1
