"""How long the GUI thread's event loop was blocked: a short timer that records how
much later than due each tick ran. The responsiveness tests and the chart
benchmark both measure with it.

Beside each tick's lateness it records the GUI thread's own CPU time since the tick
before: on a loaded machine a tick also comes late while the thread waits for a core,
and that part is no code of the window's (``work`` tells the two apart)."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer


class LatencyProbe(QObject):
    def __init__(self, interval_ms: int = 10, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.worst = 0.0  # seconds: the longest a tick came late
        self.lates: list[float] = []  # every tick's lateness, seconds
        self.times: list[float] = []  # when each tick ran (perf_counter), beside ``lates``
        self.works: list[float] = []  # the thread's CPU seconds since the tick before
        self.ticks = 0
        self._last = 0.0
        self._last_cpu = 0.0
        self._timer = QTimer(self)
        self._timer.setObjectName("latencyProbe")
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        late = max(0.0, now - self._last - self.interval_ms / 1000)
        self.lates.append(late)
        self.times.append(now)
        self.works.append(cpu - self._last_cpu)
        self.worst = max(self.worst, late)
        self._last, self._last_cpu = now, cpu
        self.ticks += 1

    @property
    def worst_work(self) -> float:
        """The longest the thread itself computed between two ticks, seconds."""
        return max(self.works, default=0.0)

    def worst_between(self, start: float, end: float) -> tuple[float, float]:
        """(worst lateness, worst own work) of the ticks that ran from ``start`` to ``end``
        (perf_counter seconds): a stall that began then is seen by the first tick after."""
        span = [(late, work) for when, late, work
                in zip(self.times, self.lates, self.works, strict=True) if start <= when <= end]
        return (max((late for late, _ in span), default=0.0),
                max((work for _, work in span), default=0.0))
