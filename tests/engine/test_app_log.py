"""The logs a user can send: each process's log file in the log folder, the level
`--log-level` sets (inherited by the engine process), an unexpected error logged with
its traceback and shown as one line (the CLI) or one message box (the window), Help >
Open log folder, and About with the folders, versions, license and icon."""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtWidgets import QApplication, QMessageBox

from mpstudio.engine import app_log
from mpstudio.engine.app_log import LEVEL_ENV

cli = importlib.import_module("mpstudio.cli.main")  # mpstudio.cli.main is also its function


@pytest.fixture
def log_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "logs"
    monkeypatch.setenv(app_log.LOG_DIR_ENV, str(folder))
    return folder


class _Opened(QObject):
    """QDesktopServices' handler of file: URLs here, instead of a file manager. (The
    method's name goes as a str: PySide6 6.11 refuses the bytes its signature names.)"""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def opened(qapp):
    receiver = _Opened()
    QDesktopServices.setUrlHandler("file", receiver, "open")
    QDesktopServices.setUrlHandler("https", receiver, "open")
    yield receiver
    QDesktopServices.unsetUrlHandler("file")
    QDesktopServices.unsetUrlHandler("https")


# ------------------------------------------------------------------------ the CLI
def test_a_command_writes_cli_log_and_debug_adds_lines(log_folder, capsys):
    assert cli.main(["runs", "list"]) == 0
    lines = (log_folder / "cli.log").read_text().splitlines()
    start = next(line for line in lines if "cli process started" in line)
    assert f" {os.getpid()} INFO mpstudio.engine.app_log: mpstudio " in start
    assert "log level info" in start and "runs list" in start and "Python 3." in start
    assert lines[-1].endswith("INFO mpstudio.cli: mpstudio runs list ended with exit code 0")
    assert not [line for line in lines if " DEBUG " in line]

    assert cli.main(["--log-level", "debug", "runs", "list"]) == 0
    lines = (log_folder / "cli.log").read_text().splitlines()
    debug = [line for line in lines if " DEBUG mpstudio.cli: " in line]
    assert len(debug) == 1 and "'runs_command': 'list'" in debug[0], lines
    assert os.environ[LEVEL_ENV] == "debug"  # for the processes started from here
    assert "cannot write the log" not in capsys.readouterr().err


def test_the_engine_process_inherits_the_level(log_folder):
    """`mpstudio --log-level debug` opens the window, whose engine process logs at debug
    too: it is started with this process's environment (EngineLink)."""
    from mpstudio.ui.engine_client.engine_link import engine_command

    assert cli.main(["--log-level", "debug", "runs", "list"]) == 0
    engine = subprocess.Popen(engine_command(), stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, env=dict(os.environ))
    log = log_folder / "engine.log"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and " DEBUG " not in _text(log):
            time.sleep(0.1)
    finally:
        engine.kill()
        engine.wait(10)
        engine.stdin.close()
    text = _text(log)
    assert f"{engine.pid} INFO mpstudio.engine.app_log: mpstudio " in text, text
    assert "engine process started" in text and "log level debug" in text
    assert f"{engine.pid} DEBUG mpstudio.engine.service.engine_process: engine process" \
        in text, text


def _text(path: Path) -> str:
    return path.read_text() if path.is_file() else ""


@pytest.mark.parametrize("level", ["info", "debug"])
def test_an_unexpected_error_is_one_line_naming_the_log(log_folder, monkeypatch, capsys,
                                                        level):
    def broken(args):
        return {}["no such key"]  # a bug in a command

    monkeypatch.setitem(cli._RUNNERS, "runs", broken)
    assert cli.main(["--log-level", level, "runs", "list"]) == 1
    err = capsys.readouterr().err
    log = log_folder / "cli.log"
    line = (f"mpstudio runs list: error: unexpected KeyError: 'no such key' (its traceback "
            f"is in {log})")
    if level == "info":
        assert err.strip() == line  # one line, no traceback on the terminal
    else:  # and the traceback above it
        assert err.startswith("Traceback (most recent call last):") and "in broken" in err
        assert err.rstrip().endswith(line)
    text = log.read_text()
    assert "CRITICAL mpstudio.cli.support: mpstudio runs list failed unexpectedly" in text
    assert "Traceback (most recent call last):" in text and "in broken" in text
    assert "KeyError: 'no such key'" in text
    assert text.rstrip().endswith("mpstudio runs list ended with exit code 1")


def test_an_uncaught_error_in_a_command_thread_is_logged_and_said(log_folder, monkeypatch,
                                                                  capsys):
    """A thread a command starts dies of a bug: its traceback is in cli.log and the
    terminal gets the same one line as for the main thread; the hooks are put back."""
    import sys
    import threading

    def runner_with_a_thread(args):
        worker = threading.Thread(target=lambda: {}["from the worker"], name="loader")
        worker.start()
        worker.join()
        return 0

    before = sys.excepthook, threading.excepthook
    monkeypatch.setitem(cli._RUNNERS, "runs", runner_with_a_thread)
    assert cli.main(["runs", "list"]) == 0
    log = log_folder / "cli.log"
    assert capsys.readouterr().err.strip() == (
        f"mpstudio runs list: error: unexpected KeyError: 'from the worker' (its traceback "
        f"is in {log})")
    text = log.read_text()
    assert "CRITICAL mpstudio.engine.app_log: uncaught KeyError in thread loader" in text
    assert "Traceback (most recent call last):" in text
    assert (sys.excepthook, threading.excepthook) == before


def test_an_unexpected_error_keeps_json_one_document(log_folder, monkeypatch, capsys):
    import json

    monkeypatch.setitem(cli._RUNNERS, "runs", lambda args: 1 / 0)
    assert cli.main(["runs", "list", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["exit_code"] == 1 and out["error"].startswith(
        "unexpected ZeroDivisionError: division by zero (its traceback is in ")


def test_a_run_that_fails_in_the_cli_names_the_log(log_folder, monkeypatch, capsys):
    """A run that fails while training (the fit raises) ends as a failed run, not a
    crash; its traceback is in cli.log, and the terminal says where."""
    from mpstudio.engine.trainer import training

    def fit_breaks(*args, **kwargs):
        raise RuntimeError("the device fell off the bus")

    monkeypatch.setattr(training, "run_fit", fit_breaks)
    assert cli.main(["train", "--dataset", "digits", "--template", "mlp", "--precision",
                     "float32", "--epochs", "1", "--batch-size", "64"]) == 1
    err = capsys.readouterr().err
    log = log_folder / "cli.log"
    assert "RuntimeError: the device fell off the bus" in err
    assert err.rstrip().endswith(f"mpstudio train: the details are in {log}")
    assert "Traceback" not in err
    text = log.read_text()
    assert "INFO mpstudio.engine.trainer.runner: float32 started: mlp on CPU" in text
    assert "ERROR mpstudio.engine.trainer.runner: float32: training failed at step 0" in text
    assert "in fit_breaks" in text and "RuntimeError: the device fell off the bus" in text
    assert "WARNING mpstudio.engine.trainer.runner: float32 failed (error) at step 0: " \
        "training failed at step 0: RuntimeError: the device fell off the bus" in text


def test_an_unwritable_log_folder_costs_the_file_only(tmp_path, monkeypatch, capsys):
    """A read-only home (here: the folder would be inside a file, which even root cannot
    write): the command runs, says so once, and an unexpected error shows its traceback
    on the terminal, there being no log to keep it."""
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv(app_log.LOG_DIR_ENV, str(blocker / "logs"))
    assert cli.main(["runs", "list"]) == 0
    err = capsys.readouterr().err
    assert err.count("cannot write the log in") == 1 and "keeps no log file" in err
    monkeypatch.setitem(cli._RUNNERS, "runs", lambda args: 1 / 0)
    assert cli.main(["runs", "list"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().endswith(
        "mpstudio runs list: error: unexpected ZeroDivisionError: division by zero")
    assert app_log.this_process_log() is None
    window = app_log.configure("window")  # the window says it in its Log panel too
    assert window.path is None and "cannot write the log in" in window.problem


# ---------------------------------------------------------------- the log files
def test_rotation_keeps_the_newest_backups(log_folder, monkeypatch):
    monkeypatch.setattr(app_log, "MAX_BYTES", 2_000)
    assert app_log.configure("window").path == log_folder / "window.log"
    log = logging.getLogger("mpstudio.test")
    for i in range(400):
        log.info("line %04d %s", i, "x" * 40)
    names = sorted(p.name for p in log_folder.iterdir())
    assert names == ["window.log", "window.log.1", "window.log.2", "window.log.3"]
    assert all(p.stat().st_size <= 2_000 for p in log_folder.iterdir())
    assert "line 0399" in (log_folder / "window.log").read_text()
    assert "line 0000" not in "".join(p.read_text() for p in log_folder.iterdir())

    # The engine's log is rotated once at its start, the same way (quiet_stderr).
    engine = log_folder / "engine.log"
    engine.write_text("old " * 1_000)
    for n in (1, 2, 3):
        (log_folder / f"engine.log.{n}").write_text(f"backup {n}")
    app_log.rotate_if_large(engine)
    assert not engine.exists() and (log_folder / "engine.log.1").read_text().startswith("old")
    assert (log_folder / "engine.log.3").read_text() == "backup 2"
    assert not (log_folder / "engine.log.4").exists()


def test_python_warnings_go_to_the_log(log_folder):
    import warnings

    app_log.configure("cli")
    warnings.warn("a deprecated thing", DeprecationWarning, stacklevel=1)
    text = (log_folder / "cli.log").read_text()
    assert "WARNING py.warnings: " in text and "a deprecated thing" in text


# ------------------------------------------------------------------ the window
def _boxes() -> list[QMessageBox]:
    return [w for w in QApplication.topLevelWidgets()
            if isinstance(w, QMessageBox) and w.isVisible()]


def _raise(error: Exception) -> None:
    raise error


@pytest.mark.qt_no_exception_capture
def test_an_uncaught_error_in_the_window_is_logged_and_shown_once(qtbot, log_folder, opened):
    from mpstudio.ui.window.uncaught_errors import UncaughtErrors

    app_log.configure("window")
    hooks = sys.excepthook, threading.excepthook
    errors = UncaughtErrors()
    errors.install()
    try:
        QTimer.singleShot(0, lambda: _raise(ValueError("the slot broke\nsecond line")))
        qtbot.waitUntil(lambda: len(_boxes()) == 1)
        box = _boxes()[0]
        log = log_folder / "window.log"
        assert box.text().endswith("Something went wrong inside mpstudio: ValueError: the "
                                   "slot broke")
        assert f"Its details are in the log: {log}" in box.informativeText()
        text = log.read_text()
        assert "CRITICAL mpstudio.engine.app_log: uncaught ValueError in thread " \
               "MainThread" in text
        assert "Traceback (most recent call last):" in text and "in _raise" in text

        # More in the same second, from a slot and a worker thread: logged, counted, one box
        QTimer.singleShot(0, lambda: _raise(KeyError("again")))
        worker = threading.Thread(target=_raise, args=(OSError("in a thread"),),
                                  name="worker")
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: errors.more == 2)
        assert _boxes() == [box]
        assert "Errors since then, in the log too: 2" in box.informativeText()
        text = log.read_text()
        assert "uncaught KeyError in thread MainThread" in text
        assert "uncaught OSError in thread worker" in text

        # Its button opens the log folder (and closes the box); what follows soon after
        # is only logged
        folder = next(b for b in box.buttons() if b.text() == "Open log folder")
        folder.click()
        assert [url.toLocalFile() for url in opened.urls] == [str(log_folder)]
        qtbot.waitUntil(lambda: errors.dialog is None)
        QTimer.singleShot(0, lambda: _raise(RuntimeError("a third")))
        qtbot.waitUntil(lambda: "uncaught RuntimeError" in log.read_text())
        qtbot.wait(50)
        assert _boxes() == []
    finally:
        errors.uninstall()
    assert (sys.excepthook, threading.excepthook) == hooks


def test_help_opens_the_log_folder(qtbot, tmp_path, log_folder, opened):
    from support.gui_helpers import bare_window

    window = bare_window(qtbot, tmp_path / "window.ini")
    action = window.window_actions.open_log_folder
    help_menu = next(a.menu() for a in window.menuBar().actions()
                     if a.text() == "&Help")
    assert action in help_menu.actions()
    assert not log_folder.exists()
    action.trigger()
    assert log_folder.is_dir()  # made, so the file manager opens it
    assert [url.toLocalFile() for url in opened.urls] == [str(log_folder)]


def test_about_shows_the_icon_versions_folders_and_license(qtbot, log_folder, opened,
                                                           tmp_path, monkeypatch):
    from mpstudio.ui.app_icon import app_icon
    from mpstudio.ui.window.help_dialogs import ICON_URL, LICENSE_URL, AboutDialog
    from mpstudio.ui.window.versions import ui_versions

    monkeypatch.setenv("MPSTUDIO_HISTORY", str(tmp_path / "data" / "history.sqlite3"))
    monkeypatch.setenv("MPSTUDIO_DATA_DIR", str(tmp_path / "cache" / "datasets"))
    versions = {**ui_versions(), "TensorFlow": "2.99.0", "Keras": "3.99.0"}
    dialog = AboutDialog(versions, tensorflow_loaded=True)
    qtbot.addWidget(dialog)
    dialog.show()
    text = dialog.browser.toPlainText()
    for name in ("mpstudio 0.1.0", "TensorFlow", "2.99.0", "Keras", "Qt", "PySide6", "Python"):
        assert name in text, text
    for name, folder in (("Logs", log_folder), ("Run history", tmp_path / "data"),
                         ("Downloaded datasets", tmp_path / "cache" / "datasets")):
        assert f"{name}\n  {folder}" in text, text
    assert "Licensed under the Apache License 2.0." in text
    assert f'href="{LICENSE_URL}"' in dialog.browser.toHtml()
    icon = dialog.browser.document().resource(QTextDocument.ResourceType.ImageResource,
                                              QUrl(ICON_URL))
    assert not icon.isNull() and icon.width() >= 64
    assert not app_icon().isNull() and not dialog.windowIcon().isNull()

    # Each link, followed from the keyboard: the folders (made if missing), the license
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    dialog.browser.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.browser)
    for _ in range(4):
        qtbot.keyClick(dialog.browser, Qt.Key.Key_Tab)
        qtbot.keyClick(dialog.browser, Qt.Key.Key_Return)
    assert [url.toString() for url in opened.urls] == [
        QUrl.fromLocalFile(str(folder)).toString() for folder in
        (log_folder, tmp_path / "data", tmp_path / "cache" / "datasets")] + [LICENSE_URL]
    assert log_folder.is_dir() and (tmp_path / "cache" / "datasets").is_dir()


# ------------------------------------------------------- a failed run in the window
def test_a_run_that_cannot_start_names_the_engine_log(qtbot, window, tmp_path):
    """The window's banner says where the details of a failed run are; there, the
    failed job's traceback, between the engine's start and the job's own lines."""
    import numpy as np

    bad = tmp_path / "broken.npz"
    np.savez(bad, x=np.zeros((20, 8, 8), np.float32), y=np.zeros(7, np.int64))  # 20 vs 7
    w = window
    w.setup.dataset.set_dataset(str(bad))
    with qtbot.waitSignal(w.run_ended, timeout=120_000) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["failed"]
    log = Path(os.environ[app_log.LOG_DIR_ENV]) / "engine.log"
    assert w.startup.engine_log == str(log)
    assert w.banner.text().endswith(f"Details in the engine's log: {log}"), w.banner.text()
    text = log.read_text()
    assert "engine process started" in text and "TensorFlow" in text
    failed = text.index(" ERROR mpstudio.engine.service.engine_process: job ")
    assert " TrainRequest failed after " in text[failed:]
    assert "Traceback (most recent call last):" in text[failed:]
