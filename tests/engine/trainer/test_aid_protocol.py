"""The training aids' one protocol (trainer/aids/training_aid.py): an aid registered
in aids/registry.AIDS attaches, adds its callbacks, concludes into the summary and
closes, in both loops, with no line of the runner naming it; and what each of the
registered aids decides when it attaches."""

from __future__ import annotations

import dataclasses

import keras
import pytest

from mpstudio.engine.events import CollectingReporter, RunFinished, RunSummary, RunWarning
from mpstudio.engine.spec import RunSpec, TrainingAids
from mpstudio.engine.tensorboard_log import TensorBoardReporter
from mpstudio.engine.trainer.aids import registry
from mpstudio.engine.trainer.aids.epoch_aids import EpochAids
from mpstudio.engine.trainer.aids.example_hits import ExampleHits
from mpstudio.engine.trainer.aids.held_out import HeldOutTest
from mpstudio.engine.trainer.aids.input_wait import InputWait
from mpstudio.engine.trainer.aids.run_profile import RunProfile
from mpstudio.engine.trainer.aids.tensorboard_logs import TensorBoardLogs
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.aids.underflow import UnderflowProbe
from mpstudio.engine.trainer.run_setup import AttemptRequest, PreparedRun, RunPlace, prepare
from mpstudio.engine.trainer.runner import run

from support.history_fakes import summary as _summary

TINY = RunSpec(precision="float32", batch_size=64, steps=6, log_every_steps=2)


class _CountsBatches(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.batches = 0

    def on_train_batch_begin(self, batch, logs=None):
        self.batches += 1


HOOKS: list[tuple[str, int]] = []  # (hook, events the reporter had by then)


class BatchCount(TrainingAid):
    """A new aid as a contributor writes one: a callback, a part of the summary, and
    a note of when each hook ran."""

    def __init__(self, run: PreparedRun) -> None:
        self.run, self.counter = run, _CountsBatches()

    @classmethod
    def attach(cls, run: PreparedRun) -> BatchCount:
        return cls(run)

    def _note(self, hook: str) -> None:
        HOOKS.append((hook, len(self.run.reporter.events)))

    def callbacks(self):
        return (self.counter,)

    def training_ended(self) -> None:
        self._note("training_ended")

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        self._note(f"conclude {status}")
        return dataclasses.replace(summary, aids=f"counted {self.counter.batches} batches")

    def close(self) -> None:
        self._note("close")


@pytest.fixture
def registered(monkeypatch):
    HOOKS.clear()
    monkeypatch.setattr(registry, "AIDS", (*registry.AIDS, BatchCount))


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_a_registered_aid_adds_its_callback_and_its_part_of_the_summary(registered, loop):
    reporter = CollectingReporter()
    result = run(TINY.replace(loop=loop), reporter)
    assert result.ok and result.summary.aids == "counted 6 batches"
    assert reporter.events[-1] == RunFinished(result.summary)
    last = len(reporter.events)
    assert [hook for hook, _ in HOOKS] == [
        "training_ended", "conclude finished", "close"]
    assert HOOKS[-1][1] == last  # closed after the last event
    assert HOOKS[1][1] == last - 1  # concluded before it


def test_a_registered_aid_concludes_a_failed_run_too(registered):
    class Breaks(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            if batch == 3:
                raise RuntimeError("broken on purpose")

    result = run(TINY, CollectingReporter(), callbacks=lambda _: [Breaks()])
    # the caller's callbacks come first: the fourth batch broke before the aid saw it
    assert result.summary.status == "failed" and result.summary.aids == "counted 3 batches"
    assert [hook for hook, _ in HOOKS] == [
        "training_ended", "conclude failed", "close"]


# ------------------------------------------------------------ each aid's attach
def _prepared(spec: RunSpec = TINY, reporter=None, **request) -> PreparedRun:
    return prepare(spec, reporter or CollectingReporter(), AttemptRequest(**request))


class _Recorded(CollectingReporter):
    def __init__(self, folder):
        super().__init__()
        self.folder = folder

    def run_folder(self):
        return self.folder


def test_tensorboard_logs_need_a_recorded_run_and_see_every_later_event(tmp_path):
    assert TensorBoardLogs.attach(_prepared()) is None  # off
    spec = TINY.replace(aids=TrainingAids(tensorboard=True))
    unrecorded = _prepared(spec)
    assert TensorBoardLogs.attach(unrecorded) is None
    [warning] = unrecorded.reporter.events
    assert isinstance(warning, RunWarning) and "not recorded here" in warning.message
    recorded = _prepared(spec, _Recorded(tmp_path))
    logs = TensorBoardLogs.attach(recorded)
    assert logs is not None
    assert isinstance(recorded.reporter, TensorBoardReporter)
    assert recorded.monitor.reporter is recorded.reporter
    summary = logs.conclude(_summary(), "finished")
    assert summary.tensorboard_dir == str(tmp_path / "tensorboard")
    logs.close()


def test_the_profile_traces_steady_steps_only_when_asked():
    assert RunProfile.attach(_prepared()) is None
    assert RunProfile.attach(_prepared(TINY.replace(steps=2), profile_steps=5)) is None
    profile = RunProfile.attach(_prepared(profile_steps=5))
    assert profile is not None and profile.callbacks() == (profile.callback,)
    assert (profile.callback.start_step, profile.callback.steps) == (5, 2)  # of 6 steps
    profile.training_ended()
    reporter = CollectingReporter()
    profile.reporter = reporter
    assert profile.conclude(_summary(), "finished").op_profile is None
    [warning] = reporter.events
    assert warning.message.startswith("no op profile:")
    assert not profile.folder.exists()


def test_the_epoch_aids_hook_into_every_run():
    plain = _prepared()
    aids = EpochAids.attach(plain)
    assert plain.monitor.epoch_hooks == [aids.epoch_end] and plain.monitor.before_step_hooks == []
    assert not plain.monitor.aid_stopped
    cut = _prepared(TINY.replace(aids=TrainingAids(reduce_lr_on_plateau=True)))
    assert EpochAids.attach(cut).lr is not None and len(cut.monitor.before_step_hooks) == 1
    summary = aids.conclude(_summary(), "finished")
    assert (summary.aids, summary.kept_epoch) == ("", None)


def test_the_underflow_probe_watches_float16_runs_only():
    watched = TrainingAids(underflow_every=3)
    assert UnderflowProbe.attach(_prepared(TINY.replace(aids=watched))) is None  # float32
    run16 = _prepared(TINY.replace(precision="mixed_float16", aids=watched))
    probe = UnderflowProbe.attach(run16)
    assert probe is not None and run16.monitor.after_step_hooks == [probe.after_step]
    assert probe.conclude(_summary(), "finished").underflow_scaled is None  # not sampled
    sample = probe.sample(3, 1)
    summary = probe.conclude(_summary(), "finished")
    assert (summary.underflow_unscaled, summary.underflow_scaled) == (sample.unscaled,
                                                                       sample.scaled)


def test_the_test_split_the_input_wait_and_the_example_hits_conclude_finished_runs():
    prepared = _prepared()
    assert HeldOutTest.attach(prepared) is None  # digits has no test split
    wait = InputWait.attach(prepared)
    assert wait.conclude(_summary(), "failed").data_time_fraction is None
    assert wait.conclude(_summary(steady_step_time=1.0), "finished").data_time_fraction > 0
    hits = ExampleHits.attach(prepared)
    assert hits.callbacks() == ()  # a single run keeps no best epoch's flags
    assert hits.conclude(_summary(), "diverged").val_hits == ""
    assert hits.conclude(_summary(), "finished").val_hits != ""
    side = ExampleHits.attach(_prepared(place=RunPlace(role="baseline")))
    assert len(side.callbacks()) == 1
    custom = ExampleHits.attach(_prepared(TINY.replace(loop="custom"),
                                          place=RunPlace(role="baseline")))
    assert custom.callbacks() == ()  # the custom loop has no epoch-end callbacks


def test_the_runner_names_no_aid():
    """The point of the protocol: a new aid is a module and a line in the registry."""
    from pathlib import Path

    from mpstudio.engine.trainer import conclusion, runner, training

    names = {kind.__name__ for kind in registry.AIDS}
    for module in (runner, training, conclusion):
        text = Path(module.__file__).read_text(encoding="utf-8")
        assert not [name for name in names if name in text], module.__name__
