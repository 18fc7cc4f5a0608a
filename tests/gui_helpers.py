"""Shared pieces of the GUI tests: a window with its engine ready."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from mpstudio.ui.main_window import MainWindow

TF_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 180_000


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

