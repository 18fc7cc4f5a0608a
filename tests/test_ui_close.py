"""Closing the window while the engine still works: it waits for the job, then ends
its threads (the autouse check in conftest.py fails a test that leaves one running)."""

from __future__ import annotations

import time

from mpstudio.ui.engine_thread import Job


def test_a_window_closed_with_a_job_in_flight_ends_its_threads(window, qtbot):
    """As after a run, when the model preview is still building: pytest-qt's own close
    at teardown must not delete the window before its threads have ended (CI hung
    180 s here and every later GUI test failed)."""
    slow = window.engine.submit(Job("preview", lambda job: time.sleep(2), describe="slow"))
    qtbot.waitUntil(lambda: window.engine.current is slow, timeout=10_000)
    started = time.monotonic()
    window.close()
    assert not window._closed and window.isHidden()  # waiting for the job, not gone
    qtbot.waitUntil(lambda: window._closed, timeout=20_000)
    assert time.monotonic() - started >= 1  # it waited for the running job
    assert not window.engine.running and not window.data_thread.running


def test_teardown_closes_a_window_left_busy(window):
    """The test ends with a job running; the fixture's close must still end it cleanly."""
    window.engine.submit(Job("preview", lambda job: time.sleep(2), describe="a slow job"))
