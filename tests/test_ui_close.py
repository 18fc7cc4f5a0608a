"""Closing the window while the engine still works: it stops the job, waits for it,
then ends the engine process (the autouse check in conftest.py fails a test that
leaves a QThread running; close_window checks the process is gone)."""

from __future__ import annotations

import os
import time

from mpstudio.ui.engine_client.engine_job import EngineJob


def _measurement(seconds: float) -> EngineJob:
    return EngineJob("hardware_check", {"measure": True, "seconds_per_case": seconds},
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
    slow = window.engine.submit(_measurement(1.0))
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
    window.engine.submit(_measurement(2.0))
