"""Shared pieces of the GUI tests: a window with its engine ready."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu

from devtools.gui_driving import select, wait_until
from mpstudio.engine.spec import RunSpec
from mpstudio.ui.window.main_window import MainWindow

TF_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 180_000


def open_window(qtbot, settings_file, first_launch: bool = False) -> MainWindow:
    """A shown window whose TensorFlow has loaded and whose hardware check is done.
    A returning user's (the default setup saved) unless ``first_launch``: a fresh
    install's first Run is a comparison of the best half precision with float32."""
    window = MainWindow(_settings(settings_file, first_launch))
    # pytest-qt closes and deletes its widgets before the fixtures' own teardown: a
    # window still finishing a job (a model preview after a run) would ignore that
    # close and be deleted with its threads running. Close it our way first.
    qtbot.addWidget(window, before_close_func=lambda w: w._closed or close_window(qtbot, w))
    window.confirm_close = lambda: True
    window.confirm_leave = lambda: "stop"  # a server's work: never a modal question
    window.engine_menu.ask_switch = lambda _target: "stop"
    window.show()
    with qtbot.waitSignal(window.hardware_jobs.checked, timeout=TF_TIMEOUT_MS):
        window.start_background()
    qtbot.waitUntil(lambda: window.setup.run_button.isEnabled(), timeout=10_000)
    return window


def _settings(settings_file, first_launch: bool = False) -> QSettings:
    settings = QSettings(str(settings_file), QSettings.Format.IniFormat)
    if not first_launch and not settings.contains("run/spec"):
        settings.setValue("run/spec", RunSpec().to_toml())
        settings.sync()
    return settings


def start_window(settings_file) -> MainWindow:
    """open_window for a module-scoped fixture, where there is no qtbot: a returning
    user's window, shown, its engine ready. End it with end_window before any test runs
    (a test fails on a process or a timer left behind)."""
    window = MainWindow(_settings(settings_file))
    window.confirm_close = lambda: True
    window.confirm_leave = lambda: "stop"  # a server's work: never a modal question
    window.engine_menu.ask_switch = lambda _target: "stop"
    window.show()
    window.start_background()
    wait_for(lambda: window.hardware_jobs.check is not None
             and window.setup.run_button.isEnabled(), TF_TIMEOUT_MS, "the hardware check")
    return window


def end_window(window: MainWindow) -> None:
    """close_window for start_window's window; then it is deleted, timers and all."""
    window.close()
    try:
        wait_for(lambda: window._closed, RUN_TIMEOUT_MS, "the window to close")
        assert window.engine.pid is None, "the engine process outlived the window"
    except AssertionError:
        window.engine.shutdown(wait_ms=30_000)
        raise
    finally:
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def wait_for(condition: Callable[[], bool], timeout_ms: int, what: str) -> None:
    """qtbot.waitUntil where there is no qtbot: AssertionError naming ``what``."""
    try:
        wait_until(QApplication.instance(), condition, timeout_ms / 1000, what)
    except SystemExit as exc:
        raise AssertionError(str(exc)) from None


def bare_window(qtbot, settings_file, size: tuple[int, int] = (1280, 720)) -> MainWindow:
    """A shown window that never starts its engine: for what the window itself does."""
    window = MainWindow(QSettings(str(settings_file), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.confirm_close = lambda: True
    window.confirm_leave = lambda: "stop"  # a server's work: never a modal question
    window.engine_menu.ask_switch = lambda _target: "stop"
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window


def menu_actions(menu: QMenu) -> Iterator[QAction]:
    """Every action of ``menu`` and its submenus, separators left out."""
    for action in menu.actions():
        if action.isSeparator():
            continue
        yield action
        if action.menu() is not None:
            yield from menu_actions(action.menu())


def close_window(qtbot, window: MainWindow) -> None:
    """Close as a user would and wait until the threads have ended. A window that does
    not close fails with what it was waiting for, and its threads are ended anyway, so
    one stuck test does not leave threads behind for every test after it."""
    window.close()
    try:
        qtbot.waitUntil(lambda: window._closed, timeout=RUN_TIMEOUT_MS)
    except Exception:
        state = _close_state(window)
        window.engine.shutdown(wait_ms=30_000)
        raise AssertionError(f"the window did not close: {state}") from None
    assert window.engine.pid is None, "the engine process outlived the window"


def _close_state(window: MainWindow) -> str:
    if not shiboken6.isValid(window):
        return "the window was deleted before it closed"
    parts = [f"closing={window._closing}", f"hidden={window.isHidden()}",
             f"run active={window.runs.active}"]
    parts.append(f"engine jobs={window.engine.active()!r} pid={window.engine.pid}")
    return "; ".join(parts)


def run_tiny_comparison(qtbot, window: MainWindow) -> None:
    """A one-epoch mixed_float16 comparison of the mlp on digits, clicked as a user
    would; it must finish."""
    from PySide6.QtCore import Qt

    setup = window.setup
    select(setup.dataset.combo, "digits")
    select(setup.template, "mlp")
    select(setup.precision, "mixed_float16")
    setup.epochs.setValue(1)
    setup.batch_size.setValue(64)
    setup.baseline.setChecked(True)
    setup.sizing.setChecked(False)  # a short comparison: its speed is not the point
    with qtbot.waitSignal(window.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["finished"], window.banner.text()
