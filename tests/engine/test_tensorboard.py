"""TensorBoard logs of a run (written by tf.summary, read back), the server started on
them, Run > Open in TensorBoard and ``mpstudio tensorboard``."""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
import types
import urllib.request

import pytest

from mpstudio.engine.events import (
    AidAction,
    CollectingReporter,
    GradientUnderflow,
    LayerUnderflow,
    RunFinished,
    RunWarning,
    StepMetrics,
)
from mpstudio.engine.spec import RunSpec, TrainingAids
from mpstudio.engine.tensorboard_launch import (
    INSTALL_HINT,
    NoTensorBoardLogs,
    TensorBoardMissing,
    start_tensorboard,
    tensorboard_available,
)
from mpstudio.engine.tensorboard_log import TensorBoardReporter, read_scalars

needs_tensorboard = pytest.mark.skipif(not tensorboard_available(),
                                       reason='needs pip install "mpstudio[tensorboard]"')


def _tiny(precision: str = "mixed_float16") -> RunSpec:
    return RunSpec(dataset="digits", template="mlp", precision=precision, epochs=1,
                   batch_size=64, log_every_steps=2)


@pytest.fixture(scope="module")
def logged_run(tmp_path_factory):
    """One real mixed_float16 run with its TensorBoard logs: (logdir, inner reporter)."""
    from mpstudio.engine.trainer.runner import run

    logdir = tmp_path_factory.mktemp("tb") / "tb"
    inner = CollectingReporter()
    reporter = TensorBoardReporter(inner, logdir)
    run(_tiny(), reporter)
    reporter.close()
    return logdir, inner


def _local(url: str, timeout: float = 5):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return opener.open(url, timeout=timeout)


# ------------------------------------------------------------------ writing
def test_real_run_logs_its_scalars(logged_run):
    logdir, inner = logged_run
    assert isinstance(inner.events[-1], RunFinished)
    assert not [w for w in inner.of_type(RunWarning) if "TensorBoard" in w.message]
    steps = inner.of_type(StepMetrics)
    scalars = read_scalars(logdir)
    assert scalars["loss_scale"] == [(e.step, e.loss_scale) for e in steps]
    assert [s for s, _ in scalars["train/loss"]] == [e.step for e in steps]
    assert [v for _, v in scalars["train/loss"]] == pytest.approx([e.loss for e in steps],
                                                                  rel=1e-6)
    timed = [e for e in steps if e.examples_per_sec is not None]
    assert timed and [s for s, _ in scalars["throughput/examples_per_sec"]] == [
        e.step for e in timed]
    assert {"train/accuracy", "throughput/step_time_ms", "loss_scale/overflow_steps",
            "epoch/loss", "epoch/accuracy", "epoch/val_loss", "epoch/val_accuracy"} <= set(
        scalars)


def test_aid_and_underflow_events_become_scalars(tmp_path):
    inner = CollectingReporter()
    reporter = TensorBoardReporter(inner, tmp_path / "tb")
    reporter.emit(AidAction(step=10, epoch=2, aid="reduce_lr", message="lower", value=5e-4))
    reporter.emit(AidAction(step=11, epoch=2, aid="early_stopping", message="stop", value=0.3))
    reporter.emit(GradientUnderflow(
        step=12, epoch=2, scale=1024.0, unscaled=0.25, scaled=0.01, seconds=0.1,
        layers=(LayerUnderflow("dense 1", "float16", 100, 0.5, 0.02),)))
    reporter.close()
    scalars = read_scalars(tmp_path / "tb")
    assert scalars["learning_rate"] == [(10, pytest.approx(5e-4))]
    assert scalars["underflow/unscaled"] == [(12, 0.25)]
    assert scalars["underflow_layers/dense_1/scaled"] == [(12, pytest.approx(0.02))]
    assert len(scalars) == 5 and inner.events[0].aid == "reduce_lr" and len(inner.events) == 3


def test_unwritable_logdir_warns_once_and_the_run_finishes(tmp_path):
    from mpstudio.engine.trainer.runner import run

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    inner = CollectingReporter()
    reporter = TensorBoardReporter(inner, blocker / "tb")
    run(_tiny("float32"), reporter)
    warnings = inner.of_type(RunWarning)
    assert len(warnings) == 1 and warnings[0].message.startswith("TensorBoard logs stopped")
    assert isinstance(inner.events[-1], RunFinished)
    assert inner.events[-1].summary.status == "finished"


# ------------------------------------------------------------------ viewing
@needs_tensorboard
def test_server_answers_and_knows_the_scalars(logged_run):
    logdir, _ = logged_run
    server = start_tensorboard(logdir, timeout=90)
    try:
        assert server.url.startswith("http://127.0.0.1:")
        with _local(server.url) as response:
            assert response.status == 200
        deadline, tags = time.monotonic() + 30, set()
        while time.monotonic() < deadline and "loss_scale" not in tags:
            with _local(server.url + "data/plugin/scalars/tags") as response:
                runs = json.load(response)
            tags = {tag for run_tags in runs.values() for tag in run_tags}
            time.sleep(0.2)
        assert {"loss_scale", "train/loss", "throughput/examples_per_sec"} <= tags
    finally:
        server.stop()
    assert server.process.poll() is not None
    assert not server.log_path.exists()


def test_missing_tensorboard_and_missing_logs(tmp_path, monkeypatch):
    if tensorboard_available():
        with pytest.raises(NoTensorBoardLogs, match="turn on 'Write TensorBoard logs'"):
            start_tensorboard(tmp_path / "nothing-here")
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "tensorboard" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert not tensorboard_available()
    with pytest.raises(TensorBoardMissing, match=r"mpstudio\[tensorboard\]"):
        start_tensorboard(tmp_path)
    assert INSTALL_HINT in str(TensorBoardMissing())


# ---------------------------------------------------------------------- GUI
def test_open_in_tensorboard_messages_and_server(window, qtbot, monkeypatch, logged_run):
    from PySide6.QtWidgets import QMessageBox

    from mpstudio.engine.history.run_models import run_folder
    from mpstudio.engine.run_session import TrainingOutcome
    from mpstudio.ui.window import tensorboard_actions

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "information",
                        lambda parent, title, text, *a, **k: shown.append(text))
    menu_texts = [a.text() for m in window.menuBar().actions() for a in m.menu().actions()]
    assert "Open in Tensor&Board" in menu_texts
    action = window.window_actions.open_tensorboard

    action.trigger()  # no run yet
    assert "select one in History" in shown[-1]

    window.state.update(last_outcome=TrainingOutcome(results=[],
                                                     stored=[types.SimpleNamespace(id=41)]))
    monkeypatch.setattr(tensorboard_actions, "tensorboard_available", lambda: False)
    action.trigger()
    assert INSTALL_HINT in shown[-1] and "not installed" in shown[-1]

    monkeypatch.setattr(tensorboard_actions, "tensorboard_available", lambda: True)
    action.trigger()
    assert "Run #41 has no TensorBoard logs" in shown[-1]
    assert "'Write TensorBoard logs'" in shown[-1]
    assert len(shown) == 3 and window.tensorboard.server is None

    if not tensorboard_available():
        return
    import shutil

    logdir = run_folder(41) / "tensorboard"
    shutil.copytree(logged_run[0], logdir)
    opened: list[str] = []
    monkeypatch.setattr(window.tensorboard, "open_url", opened.append)
    action.trigger()
    assert window.status_text.text() == "starting TensorBoard…"  # the GUI did not wait
    qtbot.waitUntil(lambda: bool(opened), timeout=90_000)
    server = window.tensorboard.server
    assert server is not None and opened == [server.url]
    assert window.status_text.text() == (f"TensorBoard at {server.url.rstrip('/')} "
                                         f"(logs: {logdir})")
    action.trigger()  # the same logs: the same server, opened again
    assert window.tensorboard.server is server and len(opened) == 2
    window.close()
    qtbot.waitUntil(lambda: window._closed, timeout=30_000)
    assert server.process.poll() is not None


# ---------------------------------------------------------------------- CLI
def test_cli_prints_the_last_scalars_of_a_recorded_run(capsys):
    from mpstudio.cli import tensorboard_command
    from mpstudio.engine.history.recorder import RecordingReporter
    from mpstudio.engine.history.run_models import run_folder
    from mpstudio.engine.trainer.runner import run

    inner = CollectingReporter()
    recorder = RecordingReporter(inner)
    result = run(_tiny().replace(aids=TrainingAids(tensorboard=True)), recorder)
    recorder.close()
    run_id = recorder.run_ids[-1]
    assert result.summary.tensorboard_dir == str(run_folder(run_id) / "tensorboard")

    parser = argparse.ArgumentParser(prog="mpstudio")
    tensorboard_command.add_tensorboard_command(parser.add_subparsers(dest="command"))
    last_scale = inner.of_type(StepMetrics)[-1].loss_scale
    assert tensorboard_command.run_tensorboard_command(parser.parse_args(
        ["tensorboard", str(run_id), "--print-scalars"])) == 0
    out = capsys.readouterr().out
    assert "loss_scale" in out and "train/loss" in out and "epoch/val_accuracy" in out
    assert tensorboard_command.run_tensorboard_command(parser.parse_args(
        ["tensorboard", str(run_id), "--print-scalars", "--json"])) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scalars"]["loss_scale"]["value"] == last_scale

    assert tensorboard_command.run_tensorboard_command(
        parser.parse_args(["tensorboard", "999"])) == 2
    assert "no run #999" in capsys.readouterr().err


def test_cli_run_without_logs_says_how_to_get_them(capsys):
    from mpstudio.cli import tensorboard_command
    from mpstudio.engine.history.recorder import RecordingReporter

    from support.history_fakes import started, step, summary

    recorder = RecordingReporter(CollectingReporter())
    for event in (started(), step(1), RunFinished(summary())):
        recorder.emit(event)
    recorder.close()
    parser = argparse.ArgumentParser(prog="mpstudio")
    tensorboard_command.add_tensorboard_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["tensorboard", str(recorder.run_ids[-1])])
    assert tensorboard_command.run_tensorboard_command(args) == 2
    err = capsys.readouterr().err
    assert f"run #{recorder.run_ids[-1]} has no TensorBoard logs" in err
    assert "--tensorboard" in err


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_the_cli_server_ends_with_the_command(how):
    """`mpstudio tensorboard ID` ended by SIGTERM (or killed outright) left TensorBoard
    and its data server listening."""
    import signal
    import subprocess
    import sys

    import psutil

    from mpstudio.engine.history.recorder import RecordingReporter
    from mpstudio.engine.tensorboard_launch import tensorboard_available
    from mpstudio.engine.trainer.runner import run

    if not tensorboard_available():
        pytest.skip("TensorBoard is not installed")
    recorder = RecordingReporter(CollectingReporter())
    run(_tiny().replace(aids=TrainingAids(tensorboard=True)), recorder)
    recorder.close()
    proc = subprocess.Popen([sys.executable, "-m", "mpstudio", "tensorboard",
                             str(recorder.run_ids[-1])], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("TensorBoard at http://"), proc.stderr.read()
        children = psutil.Process(proc.pid).children(recursive=True)
        assert children  # the server (and its data server)
        proc.send_signal(getattr(signal, how))
        proc.wait(timeout=30)
        _gone, alive = psutil.wait_procs(children, timeout=20)
        assert not alive, f"left running after {how}: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == (128 + signal.SIGTERM if how == "SIGTERM" else -signal.SIGKILL)
