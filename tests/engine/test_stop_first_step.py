"""A Stop before a run's first step ends it at once: nothing is kept yet, and tracing a
resnet's first step takes seconds TensorFlow will not cut short. The window ends its
engine process and starts a fresh one; the command line's Ctrl-C ends the run where it
is. Either way the history lists the run as stopped, with no step, and why.

Real runs: the window's resnet on digits under mixed_float16, the command line's resnet
on 32x32x3 synthetic images at batch 256 (a first step of tens of seconds here)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import psutil
import pytest
from PySide6.QtCore import Qt

from mpstudio.engine.first_step import STOPPED_BEFORE_FIRST_STEP, FirstStepWatch
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.said import english

from support.gui_helpers import RUN_TIMEOUT_MS, TF_TIMEOUT_MS, select

# From the click to the run's end: the engine process is killed, not waited for. Far
# below the first step's tracing (5-30 s for these runs on a 2-core CPU).
STOP_BOUND_MS = 5_000


def _set_up(w, epochs: int = 3) -> None:
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "resnet")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(epochs)
    w.setup.batch_size.setValue(64)
    w.setup.baseline.setChecked(False)


def _stored(run_id: int):
    with RunStore() as store:
        return store.run(run_id)


def _run_again(qtbot, w) -> None:
    qtbot.waitUntil(lambda: w.setup.run_button.isEnabled(), timeout=TF_TIMEOUT_MS)
    select(w.setup.template, "mlp")
    w.setup.epochs.setValue(1)
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["finished"], w.banner.text()


def test_the_watch_says_when_a_stop_can_end_a_job_at_once():
    from mpstudio.engine.events import RunWarning, StepMetrics

    from support.history_fakes import started

    watch = FirstStepWatch()
    assert not watch.nothing_to_keep  # the data is loading: its own flag stops it
    watch.see(started())
    watch.see(RunWarning("slow"))
    assert watch.nothing_to_keep
    watch.see(StepMetrics(1, 1, 2.3, 0.1, None, 0, None, 4.2, True))
    assert not watch.nothing_to_keep  # a step to keep: Stop waits for the next batch


@pytest.mark.slow
def test_a_stop_while_the_first_step_is_traced_ends_the_run_at_once(qtbot, window):
    w = window
    _set_up(w)
    # The run must start at once, not queue behind a model preview.
    qtbot.waitUntil(lambda: not w.preview.preview_pending, timeout=TF_TIMEOUT_MS)
    first_pid = w.engine.pid
    qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    # The data is loaded and the model built: the first step is being traced.
    qtbot.waitUntil(lambda: w.runs.progress.runs_started > 0, timeout=RUN_TIMEOUT_MS)
    run_id = w.runs.open_run_id
    assert run_id is not None
    with qtbot.waitSignal(w.run_ended, timeout=STOP_BOUND_MS) as ended:
        qtbot.mouseClick(w.setup.stop_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["stopped"]
    assert w.runs.progress.step == 0  # it did not wait for the first step
    assert w.state.run == "idle" and not w.runs.active
    assert w.setup.stop_button.text() == "Stop" and not w.setup.stop_button.isEnabled()
    assert "Stopped before the first step" in w.banner.text()
    assert not [line for line in w.log.lines("error") if "engine" in line]  # asked for
    assert not psutil.pid_exists(first_pid)  # no engine left behind
    run = _stored(run_id)
    assert run.row.status == "stopped" and not run.steps and not run.epochs
    assert english(run.failure) == STOPPED_BEFORE_FIRST_STEP
    assert run_id in w.history.visible_ids()  # listed at once
    # Run is available at once, while the fresh engine still loads TensorFlow: the
    # run waits in it and begins once it is ready
    assert w.setup.run_button.isEnabled() and w.window_actions.start.isEnabled()
    assert w.state.engine == "restarting" and not w.engine.ready_now
    _run_again(qtbot, w)
    assert w.engine.pid != first_pid


@pytest.mark.slow
def test_a_stop_pressed_before_the_run_began_ends_it_as_it_begins(qtbot, window):
    """Stop right after Run, while the data loads and the model is built: the run ends
    when it begins (or before, when the stop reached it first), never after a step;
    also when Stop now is on offer by then (its wait shortened here from 3 s)."""
    w = window
    w.runs._stuck_timer.setInterval(50)
    _set_up(w)
    qtbot.waitUntil(lambda: not w.preview.preview_pending, timeout=TF_TIMEOUT_MS)
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
        qtbot.mouseClick(w.setup.stop_button, Qt.MouseButton.LeftButton)
        assert w.state.run in ("stopping", "idle")
        qtbot.waitUntil(lambda: w.state.run in ("stuck", "idle"))
    assert ended.args == ["stopped"]
    assert w.runs.progress.step == 0 and w.state.run == "idle"
    with RunStore() as store:
        rows = store.runs()
    assert all(row.status == "stopped" for row in rows)
    _run_again(qtbot, w)


@pytest.mark.slow
def test_ctrl_c_while_the_first_step_is_traced_ends_the_run_at_once(tmp_path):
    """The command line: the first Ctrl-C ends a run that has no step yet where it is
    (a stop after the current step would wait for the whole trace), exits 0 as a stop
    does, and the history keeps the run as stopped."""
    history = tmp_path / "h.sqlite3"
    env = dict(os.environ, MPSTUDIO_HISTORY=str(history))
    # float32: a first step of tens of seconds here (mixed_float16 takes far longer)
    slow = ["--dataset", "synthetic", "--synthetic-shape", "32,32,3", "--template",
            "resnet", "--batch-size", "256", "--precision", "float32", "--epochs", "3"]
    proc = subprocess.Popen([sys.executable, "-m", "mpstudio", "train", "--events", *slow],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    events = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            events.append(json.loads(line)["event"])
            if events[-1] == "RunStarted":
                proc.send_signal(signal.SIGINT)
                break
        out, err = proc.communicate(timeout=240)  # the interpreter's own exit: seconds
    finally:
        proc.kill()
    events += [json.loads(line)["event"] for line in out.splitlines()]
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert "StepMetrics" not in events and "RunFinished" not in events, events
    assert err.strip().splitlines()[-1] == (
        f"mpstudio train: {STOPPED_BEFORE_FIRST_STEP}; the run is in the history as stopped")
    with RunStore(history) as store:
        (row,) = store.runs()
        run = store.run(row.id)
    assert run.row.status == "stopped" and not run.steps
    assert english(run.failure) == STOPPED_BEFORE_FIRST_STEP
