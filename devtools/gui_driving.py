"""Driving the real window from a script, as a user would: wait for a condition with the
event loop running, pick a combo box entry by its data. Used by the GUI tests, the
click-through script and the window benchmark."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QComboBox


def wait_until(app: QApplication, condition: Callable[[], bool], seconds: float,
               what: str) -> None:
    """Process events until ``condition()``; SystemExit naming ``what`` after ``seconds``.
    Between events it sleeps in the event loop, woken by them or by a 10 ms tick (for a
    condition on the clock): ``processEvents`` with a time limit returns at once when
    nothing is pending, and its loop here had spun a whole core for as long as a
    comparison or a measurement took."""
    deadline = time.monotonic() + seconds
    tick = QTimer()
    tick.start(10)
    try:
        while not condition():
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents
                              | QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    finally:
        tick.stop()


def select(combo: QComboBox, key: str) -> None:
    index = combo.findData(key)
    assert index >= 0, f"{key!r} is not a choice of {combo.objectName()}"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)  # as a user's pick from the list does (a program's not)
