"""Closing the window while the engine still works: it stops the job, waits for it,
then ends the engine process (the autouse check in conftest.py fails a test that
leaves a QThread running; close_window checks the process is gone)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from mpstudio.engine.service.job_requests import HardwareCheckRequest

from support.paths import ROOT


def _measurement(window, seconds: float):
    return window.engine.submit(HardwareCheckRequest(measure=True, seconds_per_case=seconds),
                                describe="a slow measurement")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_window_closed_with_a_job_in_flight_stops_it_and_ends_the_engine(window, qtbot):
    """As when the model preview is still building after a run: pytest-qt's own close
    at teardown must not delete the window before its engine has ended."""
    slow = _measurement(window, 1.0)
    qtbot.waitUntil(lambda: slow.state == "running", timeout=10_000)
    pid = window.engine.pid
    window.close()
    assert not window._closed and window.isHidden()  # waiting for the job, not gone
    qtbot.waitUntil(lambda: window._closed, timeout=20_000)
    assert slow.state == "done" and window.engine.pid is None
    deadline = time.monotonic() + 10
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), "the engine process outlived the window"


def test_teardown_closes_a_window_left_busy(window):
    """The test ends with a job running; the fixture's close must still end it cleanly."""
    _measurement(window, 2.0)


# The app as `mpstudio` starts it (cli.main, launch, app.exec), driven from inside:
# once the engine is ready, a digits mlp run of many epochs; a few epochs in, File >
# Quit, and "Stop it and quit mpstudio?" answered Yes (the box's static call answers
# without waiting for a click, as a user's Yes would).
QUIT_DURING_A_RUN = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from devtools.gui_driving import select
from mpstudio.cli.main import main

def yes(*args, **kwargs):
    print("asked:", args[2], flush=True)
    return QMessageBox.StandardButton.Yes

QMessageBox.question = staticmethod(yes)
app = QApplication(sys.argv[:1])

def when(condition, then):
    QTimer.singleShot(100, lambda: then() if condition() else when(condition, then))

def drive():
    window = next(w for w in app.topLevelWidgets() if type(w).__name__ == "MainWindow")
    epochs = []
    window.runs.events.connect(lambda batch: epochs.extend(
        e for e in batch if type(e).__name__ == "EpochMetrics"))

    def run():
        select(window.setup.dataset.combo, "digits")
        select(window.setup.template, "mlp")
        window.setup.epochs.setValue(500)
        window.setup.run_button.click()
        when(lambda: len(epochs) >= 3, quit)

    def quit():
        print("run active:", window.runs.active, flush=True)
        window.window_actions.quit.trigger()

    when(lambda: window.setup.run_button.isEnabled(), run)

QTimer.singleShot(0, drive)
raise SystemExit(main([]))
"""


def test_quitting_during_a_run_is_a_success(isolated_datasets):
    """File > Quit with a run in progress, answered Yes: the run stops, the engine ends
    and the app exits 0, as a quit with nothing running does."""
    proc = subprocess.run([sys.executable, "-c", QUIT_DURING_A_RUN], cwd=ROOT,
                          capture_output=True, text=True, timeout=240)
    assert "asked: A run is in progress. Stop it and quit mpstudio?" in proc.stdout, (
        proc.stdout + proc.stderr[-2000:])
    assert "run active: True" in proc.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    log = (isolated_datasets / "log" / "window.log").read_text()
    assert "window process ended with exit code 0" in log
