"""Driving the real window from a script, as a user would: wait for a condition with the
event loop running, pick a combo box entry by its data. Used by the GUI tests, the
click-through script and the window benchmark."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication, QComboBox


def wait_until(app: QApplication, condition: Callable[[], bool], seconds: float,
               what: str) -> None:
    """Process events until ``condition()``; SystemExit naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)


def select(combo: QComboBox, key: str) -> None:
    index = combo.findData(key)
    assert index >= 0, f"{key!r} is not a choice of {combo.objectName()}"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)  # as a user's pick from the list does (a program's not)
