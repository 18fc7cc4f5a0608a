"""WorkbenchState and controls(): which actions the window enables, without a window
(and without Qt: the module must not import it)."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from mpstudio.ui.models.workbench_state import WorkbenchState, controls


def _outcome(ok: bool) -> types.SimpleNamespace:
    last = types.SimpleNamespace(ok=ok)
    return types.SimpleNamespace(last=last)


def test_nothing_starts_until_the_engine_is_ready():
    state = WorkbenchState()
    c = controls(state)
    assert not (c.start or c.measure or c.hardware_check or c.stop or c.export_model)
    assert c.open_config and c.import_dataset and c.check_training
    assert state.busy_reason() == "TensorFlow is still loading"
    state.update(engine="failed")
    assert not controls(state).start and state.busy_reason() == "TensorFlow could not load"
    state.update(engine="ready")
    c = controls(state)
    assert c.start and c.measure and c.hardware_check and not c.stop
    assert state.busy_reason() == ""


def test_work_waits_in_an_engine_restarting_after_a_stop_the_user_asked_for():
    """A Stop before the first step ends the engine: Run stays available while the
    fresh one loads (the run waits in it); exports need the model's engine ready."""
    state = WorkbenchState(engine="restarting", last_outcome=_outcome(ok=True))
    c = controls(state)
    assert c.start and c.measure and c.hardware_check and state.busy_reason() == ""
    assert not c.export_model


@pytest.mark.parametrize("busy, reason", [
    ({"run": "running"}, "A run is in progress"),
    ({"measuring": True}, "The hardware measurement is running"),
    ({"checking": True}, "The training check is running"),
])
def test_one_thing_at_a_time_on_the_machine(busy, reason):
    state = WorkbenchState(engine="ready")
    state.update(**busy)
    c = controls(state)
    assert not (c.start or c.measure or c.hardware_check)
    assert state.busy_reason() == reason
    assert c.stop == ("run" in busy)
    assert c.open_config == c.import_dataset == ("run" not in busy)


def test_stop_now_is_offered_only_when_a_stop_is_stuck():
    state = WorkbenchState(engine="ready", run="running")
    assert controls(state).stop and not controls(state).stop_now
    state.update(run="stopping")
    assert controls(state).stop and not controls(state).stop_now
    state.update(run="stuck")
    assert controls(state).stop and controls(state).stop_now
    state.update(run="idle")
    assert not controls(state).stop and not controls(state).stop_now


def test_export_needs_a_trained_last_run_and_no_run_going():
    state = WorkbenchState(engine="ready")
    assert not controls(state).export_model
    state.update(last_outcome=_outcome(ok=False))
    assert not controls(state).export_model  # a failed run kept no model
    state.update(last_outcome=_outcome(ok=True))
    assert controls(state).export_model
    state.update(run="running")
    assert not controls(state).export_model
    state.update(run="idle", engine="starting")  # the engine restarts after a crash
    assert not controls(state).export_model
    assert not controls(state).export_report
    state.update(comparison_shown=True)
    assert controls(state).export_report


def test_observers_hear_each_change_once_and_nothing_when_nothing_changed():
    state = WorkbenchState()
    heard: list[str] = []
    state.observe(lambda s: heard.append(s.engine))
    state.update(engine="ready", measuring=False)
    state.update(engine="ready")
    state.update(measuring=False)
    assert heard == ["ready"]
    with pytest.raises(AttributeError, match="no runnning"):
        state.update(runnning="idle")


def test_the_state_module_imports_no_qt():
    code = ("import sys, mpstudio.ui.models.workbench_state; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
