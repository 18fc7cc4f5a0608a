"""Where the window's thread was when it stalled: a 10 ms timer on the GUI thread re-arms
``faulthandler.dump_traceback_later``; a tick that does not come within the threshold
lets faulthandler's own C thread write every thread's Python stack to a file (it needs
no GIL, so a stall inside Qt's C++ is caught too). A development aid for
benchmarks/window_responsiveness.py --trace, not a measurement: the dump costs time."""

from __future__ import annotations

import faulthandler
from typing import TextIO

from PySide6.QtCore import QObject, Qt, QTimer


class StallTracer(QObject):
    def __init__(self, out: TextIO, threshold_ms: float = 45,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._out = out
        self._threshold = threshold_ms / 1000
        self._timer = QTimer(self)
        self._timer.setObjectName("stallTracer")
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._arm)

    def start(self) -> None:
        self._arm()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        faulthandler.cancel_dump_traceback_later()

    def note(self, text: str) -> None:
        """A line in the dump file (which phase the next stacks belong to)."""
        self._out.write(f"=== {text}\n")
        self._out.flush()

    def _arm(self) -> None:
        # 10 ms is the tick itself: a dump means the tick came that much late
        faulthandler.dump_traceback_later(self._threshold + 0.010, repeat=False,
                                          file=self._out)
