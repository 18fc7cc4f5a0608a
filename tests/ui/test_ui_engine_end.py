"""The engine process ends under a run: killed from outside (as the system's
out-of-memory killer would), or by Stop now. The window stays, says what happened,
the history keeps the run with its metrics, and the next run works."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import Qt

from mpstudio.engine.history.store import RunStore

from support.gui_helpers import RUN_TIMEOUT_MS, TF_TIMEOUT_MS, select

pytestmark = pytest.mark.slow


def _set_up(w, template: str = "mlp", epochs: int = 500) -> None:
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, template)
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(epochs)
    w.setup.batch_size.setValue(64)
    w.setup.baseline.setChecked(False)


def _run_again(qtbot, w) -> None:
    qtbot.waitUntil(lambda: w.setup.run_button.isEnabled(), timeout=TF_TIMEOUT_MS)
    w.setup.epochs.setValue(1)
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["finished"], w.banner.text()


def test_an_engine_killed_mid_run_fails_the_run_keeps_its_metrics_and_restarts(
        qtbot, window):
    w = window
    _set_up(w)
    first_pid = w.engine.pid
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.runs.progress.step > 30, timeout=RUN_TIMEOUT_MS)
        run_id = w.runs.open_run_id
        os.kill(first_pid, signal.SIGKILL)
    assert ended.args == ["failed"]
    assert w.isVisible()
    text = w.banner.text()
    assert "SIGKILL" in text and "during the mixed_float16 run" in text, text
    assert "marked failed in the history with its metrics" in text
    with RunStore() as store:
        run = store.run(run_id)
    assert run.row.status == "failed" and "SIGKILL" in (run.failure or "")
    assert run.steps and run.row.examples_per_sec is not None  # what it measured is kept
    assert run_id in w.history.visible_ids()  # listed at once, no manual refresh
    assert any("SIGKILL" in line for line in w.log.lines("error"))
    _run_again(qtbot, w)
    assert w.engine.pid != first_pid and w.engine.starts == 2


def test_stop_now_when_a_run_does_not_stop_in_time(qtbot, window):
    """Stop pressed while a comparison's mixed run traces its first step, its float32
    baseline kept: the run cannot stop until that step ends (a Stop before a job's
    first step ends it at once: test_stop_first_step.py). Once Stop has waited
    (shortened here from 3 s), the button says Stop now and ends the engine; the run
    ends as stopped."""
    w = window
    w.runs._stuck_timer.setInterval(50)
    _set_up(w, template="cnn", epochs=1)  # its mixed step traces in over 50 ms
    w.setup.baseline.setChecked(True)
    w.setup.sizing.setChecked(False)
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.runs.progress.runs_started == 2, timeout=RUN_TIMEOUT_MS)
        qtbot.mouseClick(w.setup.stop_button, Qt.MouseButton.LeftButton)
        assert w.state.run == "stopping" and w.setup.stop_button.text() == "Stop"
        qtbot.waitUntil(lambda: w.setup.stop_button.text() == "Stop now", timeout=10_000)
        assert w.window_actions.stop.text() == "Stop &now" and w.state.run == "stuck"
        qtbot.mouseClick(w.setup.stop_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["stopped"]
    assert "Stopped now: the engine process was ended" in w.banner.text()
    assert w.setup.stop_button.text() == "Stop" and not w.setup.stop_button.isEnabled()
    assert not [line for line in w.log.lines("error") if "engine" in line]  # asked for
    _set_up(w, epochs=1)
    _run_again(qtbot, w)


def test_each_hardware_check_writes_one_log_line_also_when_the_engine_ends_under_it(
        qtbot, window):
    """The real check: one line per check; a measurement whose engine is killed is
    logged once (the engine's end), not again by the check that failed with it."""
    w = window

    def recommended() -> list[str]:
        return [line for line in w.log.lines() if line.startswith("recommended here:")]

    assert len(recommended()) == 1  # the check the window ran at start
    with qtbot.waitSignal(w.hardware_jobs.checked, timeout=TF_TIMEOUT_MS):
        qtbot.mouseClick(w.hardware.check_button, Qt.MouseButton.LeftButton)
    assert len(recommended()) == 2
    first_pid = w.engine.pid
    w.hardware.seconds_spin.setValue(2.0)
    with qtbot.waitSignal(w.engine.ready, timeout=TF_TIMEOUT_MS):
        qtbot.mouseClick(w.hardware.measure_button, Qt.MouseButton.LeftButton)
        # the measurement itself, not a job queued before it (the setup's model preview
        # ran first in one suite run, and the engine ended "during building" it)
        qtbot.waitUntil(lambda: (job := w.engine.running_job()) is not None
                        and job.describe == "the measurement", timeout=TF_TIMEOUT_MS)
        os.kill(first_pid, signal.SIGKILL)
    ended = [line for line in w.log.lines() if "SIGKILL" in line]
    assert len(ended) == 1 and "during the measurement" in ended[0], w.log.lines()
    assert "SIGKILL" in w.hardware.error_label.text()  # the panel still says why
    assert len(recommended()) == 2
