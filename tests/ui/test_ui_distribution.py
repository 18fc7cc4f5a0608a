"""The Distribution group of the setup panel: which strategies the machine offers, the
note on what the run will use, the spec round trip, and the float32 comparison under
multi-worker. Real widgets, options from hardware reports of machines this is not."""

from __future__ import annotations

import dataclasses
import json
import time
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from devtools.chart_demo import run_started
from mpstudio.engine.distribute.options import strategy_options
from mpstudio.engine.event_text import summary_line
from mpstudio.engine.hardware.report import GpuInfo, HardwareReport, TpuInfo
from mpstudio.engine.spec import Distribution, RunSpec
from mpstudio.ui.models.run_progress import RunProgress
from mpstudio.ui.setup.setup_panel import MULTIWORKER_COMPARE_TIP, SetupPanel

from support.cluster import free_ports, tf_config, worker
from support.gui_helpers import select
from support.machines import CUDA_BUILD, EPYC_ZEN2, cpu_from

TF_CONFIG = json.dumps({
    "cluster": {"worker": ["10.0.0.1:12345", "10.0.0.2:12345"]},
    "task": {"type": "worker", "index": 0},
})


def report(gpus: int, tpu: TpuInfo | None = None) -> HardwareReport:
    return HardwareReport(
        build=CUDA_BUILD,
        gpus=tuple(GpuInfo("NVIDIA A100-SXM4-40GB", (8, 0), i) for i in range(gpus)),
        tpu=tpu or TpuInfo(False, note="not probed"),
        cpu=cpu_from(EPYC_ZEN2),
    )


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel()
    qtbot.addWidget(panel)
    return panel


def item(panel: SetupPanel, name: str):
    combo = panel.distribution.strategy
    index = combo.findData(name)
    assert index >= 0, name
    return combo.model().item(index), combo.itemText(index)


def test_before_the_hardware_check_only_the_default_is_offered(panel):
    panel.set_strategy_options(strategy_options(None, {}), {})
    assert item(panel, "default")[0].isEnabled()
    for name in ("mirrored", "multiworker", "tpu"):
        entry, text = item(panel, name)
        assert not entry.isEnabled() and "unavailable" in text
        assert entry.toolTip() == "waiting for the hardware check"
    assert panel.distribution.selected() == "default"


def test_mirrored_needs_two_gpus_and_says_why_not(panel):
    panel.set_strategy_options(strategy_options(report(2), {}), {})
    entry, text = item(panel, "mirrored")
    assert entry.isEnabled() and text == "Mirrored (local GPUs) - 2 replicas"
    assert entry.toolTip() == "GPU:0, GPU:1"
    for gpus, why in ((1, "one GPU only"), (0, "no GPU")):
        panel.set_strategy_options(strategy_options(report(gpus), {}), {})
        entry, text = item(panel, "mirrored")
        assert not entry.isEnabled() and "unavailable" in text
        assert why in entry.toolTip()


def test_tpu_only_when_found_and_multiworker_only_with_tf_config(panel):
    panel.set_strategy_options(strategy_options(report(0), {}), {})
    assert not item(panel, "tpu")[0].isEnabled()
    assert "no TPU found" in item(panel, "tpu")[0].toolTip()
    assert not item(panel, "multiworker")[0].isEnabled()
    assert "TF_CONFIG is not set" in item(panel, "multiworker")[0].toolTip()

    tpu = TpuInfo(True, accelerator_type="v4-8", cores=8)
    environ = {"TF_CONFIG": TF_CONFIG}
    panel.set_strategy_options(strategy_options(report(0, tpu), environ), environ)
    assert item(panel, "tpu")[0].isEnabled()
    assert item(panel, "tpu")[1] == "TPU - 8 replicas"
    assert item(panel, "multiworker")[0].isEnabled()

    bad = {"TF_CONFIG": "{not json"}
    panel.set_strategy_options(strategy_options(report(2), bad), bad)
    assert not item(panel, "multiworker")[0].isEnabled()
    assert "not valid JSON" in item(panel, "multiworker")[0].toolTip()


def test_an_unavailable_strategy_cannot_be_selected(panel):
    panel.set_strategy_options(strategy_options(report(1), {}), {})
    combo = panel.distribution.strategy
    combo.setCurrentIndex(combo.findData("mirrored"))  # what no click can do
    assert panel.distribution.selected() == "default"
    assert panel.spec().distribute.strategy == "default"
    panel.set_spec(RunSpec(distribute=Distribution(strategy="tpu")))
    assert panel.distribution.selected() == "default"
    assert panel.spec().distribute.strategy == "default"


def test_the_note_follows_batch_rate_strategy_scaling_and_warmup(panel):
    note = panel.findChild(type(panel.distribution.note), "distributionNote")
    panel.set_strategy_options(strategy_options(report(2), {}), {})
    panel.batch_size.setValue(128)
    panel.learning_rate.setValue(0.001)
    assert note.text().startswith("One device (GPU:0): batch 128 on 1 replica")

    select(panel.distribution.strategy, "mirrored")
    text = note.text()
    assert text.startswith("Mirrored over 2 replicas (GPU:0, GPU:1)")
    assert "global batch 256 = 128 per replica x 2 replicas" in text
    assert "0.001 -> 0.002" in text

    panel.batch_size.setValue(64)
    assert "global batch 128 = 64 per replica" in note.text()
    panel.learning_rate.setValue(0.01)
    assert "0.01 -> 0.02" in note.text()

    panel.distribution.lr_scaling.setChecked(False)
    assert "not scaled" in note.text()
    assert panel.spec().distribute.lr_scaling == "none"

    panel.distribution.warmup_steps.setValue(100)
    assert "over 100 steps" in note.text()
    assert panel.spec().warmup_steps == 100
    panel.distribution.warmup_steps.setValue(0)
    assert panel.distribution.warmup_steps.text() == "off"
    assert "warmed up" not in note.text()


def test_the_note_names_the_cluster_and_the_worker_process(panel):
    environ = {"TF_CONFIG": TF_CONFIG}
    panel.set_strategy_options(strategy_options(report(1), environ), environ)
    select(panel.distribution.strategy, "multiworker")
    text = panel.distribution.note.text()
    assert "Multi-worker over 2 workers" in text
    assert "this host is worker 0 (10.0.0.1:12345), the chief" in text
    assert "mpstudio train --strategy multiworker" in text
    assert "Multi-worker" in text and "started the same way" in text


def test_spec_round_trip_keeps_what_the_form_does_not_show(panel):
    panel.set_strategy_options(strategy_options(report(2), {}), {})
    given = RunSpec(warmup_steps=50, distribute=Distribution(
        strategy="mirrored", devices=["GPU:1", "GPU:0"], lr_scaling="none", join_timeout=42.0))
    panel.set_spec(given)
    spec = panel.spec()
    assert spec.distribute == given.distribute
    assert spec.warmup_steps == 50
    assert not panel.distribution.lr_scaling.isChecked()
    assert panel.distribution.note.text().startswith("Mirrored over 2 replicas (GPU:1, GPU:0)")


def test_a_spec_strategy_waits_for_the_hardware_check(panel):
    """The last session's mirrored run is restored before the hardware is known: the
    form shows the default meanwhile and picks mirrored once the check offers it."""
    panel.set_spec(RunSpec(distribute=Distribution(strategy="mirrored")))
    assert panel.spec().distribute.strategy == "default"
    panel.set_strategy_options(strategy_options(report(2), {}), {})
    assert panel.spec().distribute.strategy == "mirrored"

    panel.set_spec(RunSpec(distribute=Distribution(strategy="tpu")))
    select(panel.distribution.strategy, "mirrored")  # the user chose: the wish is gone
    tpu = TpuInfo(True, accelerator_type="v4-8", cores=8)
    panel.set_strategy_options(strategy_options(report(0, tpu), {}), {})
    assert panel.spec().distribute.strategy == "default"


def test_no_float32_comparison_under_multiworker(panel):
    environ = {"TF_CONFIG": TF_CONFIG}
    panel.set_strategy_options(strategy_options(report(2), environ), environ)
    panel.baseline.setChecked(True)
    assert panel.comparison() is not None
    select(panel.distribution.strategy, "multiworker")
    assert not panel.baseline.isEnabled()
    assert panel.baseline.toolTip() == MULTIWORKER_COMPARE_TIP
    assert panel.comparison() is None
    select(panel.distribution.strategy, "mirrored")
    assert panel.baseline.isEnabled() and panel.comparison() is not None
    select(panel.distribution.strategy, "default")
    assert panel.baseline.isEnabled()


def test_the_form_freezes_during_a_run(panel):
    panel.set_state(tf_ready=True, running=True)
    assert not panel.distribution.strategy.isEnabled()
    panel.set_state(tf_ready=True, running=False)
    assert panel.distribution.strategy.isEnabled()


def test_run_start_and_summary_lines_say_how_the_run_was_distributed():
    progress = RunProgress()
    plain = progress.update(run_started("mixed_float16", "mixed_float16", 128, 10, 20, 1))
    sentence = "mirrored over 2 replicas (GPU:0, GPU:1): global batch 256"
    started = dataclasses.replace(
        run_started("mixed_float16", "mixed_float16", 128, 10, 20, 1), distribution=sentence)
    lines = progress.update(started)
    assert lines == [*plain, ("info", f"  {sentence}")]

    summary = SimpleNamespace(
        label="mixed_float16", status="finished", steps_done=20, total_time=3.0,
        steady_examples_per_sec=1000.0, final_val_accuracy=None, test_accuracy=None,
        loss_scale_mode="off", overflow_steps=0, strategy="default", replicas=1,
        global_batch_size=128, aids="", oom_retries=0, underflow_unscaled=None,
        tensorboard_dir="")
    assert "replica" not in summary_line(summary)
    summary.strategy, summary.replicas, summary.global_batch_size = "mirrored", 2, 256
    assert summary_line(summary) == ("mixed_float16 finished: 20 steps in 0:03 · mirrored, "
                                     "2 replicas, global batch 256 · steady 1,000 examples/s")


def test_screenshot_of_the_distribution_group(panel, tmp_path):
    environ = {"TF_CONFIG": TF_CONFIG}
    panel.set_strategy_options(strategy_options(report(2), environ), environ)
    select(panel.distribution.strategy, "mirrored")
    panel.distribution.warmup_steps.setValue(100)
    folded = panel.folding["distribution"]
    assert not panel.distribution.isVisibleTo(panel)  # folded away until opened
    folded.header.click()  # as a user opens it
    assert folded.is_open
    panel.resize(380, 1400)
    panel.show()
    QApplication.processEvents()
    image = panel.grab()
    assert image.save(str(tmp_path / "setup_distribution.png"))
    assert panel.distribution.note.isVisible()
    assert panel.distribution.note.height() >= panel.distribution.note.heightForWidth(
        panel.distribution.note.width())


def test_the_window_offers_what_the_hardware_check_found(window):
    """After the check the choices come from this machine's report, not the waiting list."""
    setup = window.setup
    tips = [setup.distribution.strategy.itemData(i, Qt.ItemDataRole.ToolTipRole)
            for i in range(setup.distribution.strategy.count())]
    assert "waiting for the hardware check" not in tips
    assert setup.distribution.selected() == "default"
    assert setup.distribution.note.text().startswith("One device (")


@pytest.fixture
def two_worker_cluster(monkeypatch):
    """TF_CONFIG for worker 0 of a two-worker cluster on 127.0.0.1, set before the
    window opens (the app reads it like a user's shell would have set it)."""
    ports = free_ports(2)
    monkeypatch.setenv("TF_CONFIG", tf_config(ports, 0))
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # the workers must bypass it
    monkeypatch.delenv("no_grpc_proxy", raising=False)
    return ports


@pytest.mark.slow
def test_a_multiworker_run_from_the_window(two_worker_cluster, window, qtbot):
    """Run in the GUI starts this host's worker process; a second worker joins from the
    command line; the charts, log and history get the run as for any other."""
    from mpstudio.engine.history.store import RunStore

    from support.gui_helpers import RUN_TIMEOUT_MS

    w = window
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(2)
    w.setup.batch_size.setValue(32)
    w.setup.baseline.setChecked(False)
    assert item(w.setup, "multiworker")[0].isEnabled()
    select(w.setup.distribution.strategy, "multiworker")
    assert not w.setup.baseline.isEnabled()
    other = worker(two_worker_cluster, 1, "--precision", "mixed_float16", "--epochs", "2",
                   "--batch-size", "32", "--json", "--join-timeout", "120")
    ended = None
    try:
        with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
            qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    finally:
        if ended is None or not ended.signal_triggered:
            w.runs.stop()  # end this host's worker too, so the window can close
        out, err = other.finish(timeout=60)
    assert ended.args == ["finished"], (
        f"{w.banner.text()}\nlog: {w.log.toPlainText()[-1500:]}\nother worker: {err[-1500:]}")
    theirs = json.loads(out)
    log = w.log.toPlainText()
    assert "Multi-worker over 2 workers" in log
    with RunStore() as store:
        rows = store.runs()
        assert len(rows) == 1 and rows[0].status == "finished"
        stored = store.run(rows[0].id)
    assert [e.loss for e in stored.epochs] == pytest.approx(
        [e["loss"] for e in theirs["epochs"]], rel=1e-6)
    assert w.window_actions.export_model.isEnabled()  # the chief's kept model came back


@pytest.mark.slow
def test_stop_while_waiting_for_the_other_workers_ends_at_once(two_worker_cluster, window,
                                                                qtbot):
    """No other worker ever joins: Stop ends this host's worker at once (it holds its
    interpreter while it waits, so Ctrl-C cannot reach it), says why, and records nothing."""
    from mpstudio.engine.history.store import RunStore

    w = window
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    w.setup.baseline.setChecked(False)
    select(w.setup.distribution.strategy, "multiworker")
    qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.setup.stop_button.isEnabled(), timeout=10_000)
    qtbot.wait(3000)  # the worker process is up and waiting for worker 1
    clicked = time.monotonic()
    with qtbot.waitSignal(w.run_ended, timeout=20_000) as ended:
        qtbot.mouseClick(w.setup.stop_button, Qt.MouseButton.LeftButton)
    assert time.monotonic() - clicked < 15
    assert ended.args == ["stopped"]
    assert "before every worker had joined" in w.banner.text()
    with RunStore() as store:
        assert store.runs() == []
