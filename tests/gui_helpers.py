"""Shared pieces of the GUI tests: a window with its engine ready, and an event-loop
latency probe."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QSettings, QTimer

from mpstudio.ui.main_window import MainWindow

TF_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 180_000


class LatencyProbe(QObject):
    """A 10 ms timer in the GUI thread: how late it fires is how long the event loop
    was blocked."""

    def __init__(self, interval_ms: int = 10) -> None:
        super().__init__()
        self.interval = interval_ms / 1000
        self.worst = 0.0
        self.ticks = 0
        self._timer = QTimer(self)
        self._timer.setObjectName("latencyProbe")
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self._last - self.interval)
        self._last = now
        self.ticks += 1


def open_window(qtbot, settings_file) -> MainWindow:
    """A shown window whose TensorFlow has loaded and whose hardware check is done."""
    window = MainWindow(QSettings(str(settings_file), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.confirm_close = lambda: True
    window.show()
    with qtbot.waitSignal(window.background.hardware_checked, timeout=TF_TIMEOUT_MS):
        window.start_background()
    qtbot.waitUntil(lambda: window.setup.run_button.isEnabled(), timeout=10_000)
    return window


def close_window(qtbot, window: MainWindow) -> None:
    """Close as a user would and wait until the threads have ended."""
    window.close()
    qtbot.waitUntil(lambda: window._closed, timeout=RUN_TIMEOUT_MS)
    assert not window.engine.running and not window.data_thread.running


def select(combo, key: str) -> None:
    index = combo.findData(key)
    assert index >= 0, f"{key!r} is not a choice of {combo.objectName()}"
    combo.setCurrentIndex(index)
