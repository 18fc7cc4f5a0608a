"""The workbench's pieces without a full window: run progress, remembered settings,
the start-up path (the engine process has tests/ui/test_engine_client.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from PySide6.QtCore import QSettings

from mpstudio.engine.event_text import fmt_duration
from mpstudio.engine.events import EpochMetrics, RunWarning, StepMetrics
from mpstudio.engine.spec import RunSpec
from mpstudio.ui.models.run_progress import RunProgress
from mpstudio.ui.window.gui_settings import GuiSettings


def _step(step: int, warmup: bool = False) -> StepMetrics:
    return StepMetrics(step=step, epoch=1, loss=1.0, accuracy=0.5, loss_scale=32768.0,
                       overflow_steps=0, examples_per_sec=None if warmup else 1000.0,
                       step_time=0.01, warmup=warmup)


def test_run_progress_status_eta_and_log_lines():
    progress = RunProgress(runs_planned=2)
    assert progress.status_text() == "loading the data…"
    progress.total_steps, progress.steps_per_epoch, progress.runs_started = 100, 50, 1
    progress.label = "float32 baseline"
    progress.update(_step(1, warmup=True), now=0.0)
    progress.update(_step(11), now=1.0)
    assert progress.eta_seconds(now=1.0) == pytest.approx((89 + 100) * 0.1)
    assert progress.fraction == pytest.approx(0.055)
    text = progress.status_text(now=1.0)
    assert "run 1 of 2" in text and "step 11/100" in text and "epoch 1/2" in text and "ETA" in text
    lines = progress.update(EpochMetrics(1, 50, 0.5, 0.9, 0.6, 0.85, 2.0, 1.5))
    assert lines == [("info", "float32 baseline epoch 1: loss 0.5000, accuracy 90.0%, "
                              "val loss 0.6000, val accuracy 85.0% (2.0 s)")]
    assert progress.update(RunWarning("careful")) == [("warning", "careful")]
    assert fmt_duration(3725) == "1:02:05" and fmt_duration(65) == "1:05"


def test_settings_remember_the_run_and_forget_what_is_gone(tmp_path):
    store = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    data = tmp_path / "mine.csv"
    data.write_text("a,label\n1,0\n2,1\n")
    spec = RunSpec(dataset=str(data), precision="mixed_bfloat16", epochs=9)
    GuiSettings(store).save_run(spec, True, {str(data): {}})
    loaded, baseline, paths, notes = GuiSettings(store).load_run()
    assert (loaded.dataset, loaded.precision, loaded.epochs, baseline) == (
        str(data), "mixed_bfloat16", 9, True)
    assert paths == {str(data): {}} and notes == []
    data.unlink()
    # the engine on a server: the dataset is the server's, not checked here
    loaded, _, paths, notes = GuiSettings(store).load_run(files_here=False)
    assert loaded.dataset == str(data) and paths == {str(data): {}} and notes == []
    loaded, _, paths, notes = GuiSettings(store).load_run()
    assert loaded.dataset == "digits" and loaded.epochs == 9 and paths == {}
    assert any("mine.csv" in note for note in notes)
    store.setValue("run/spec", "this is [not toml")
    loaded, _, _, notes = GuiSettings(store).load_run()
    assert loaded == RunSpec() and any("could not be read" in n for n in notes)


def _launch(env_changes: dict[str, str | None], timeout: float = 120):
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-m", "mpstudio"], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_mpstudio_opens_the_window_before_tensorflow():
    start = time.perf_counter()
    proc = _launch({"QT_QPA_PLATFORM": "offscreen", "MPSTUDIO_EXIT_AFTER_SHOW": "1"})
    wall = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    assert "window visible after" in proc.stdout
    assert wall < 60  # it never waited for TensorFlow (the exact time is the benchmark's)
    # an offscreen window is invisible: the terminal says so, and how to quit
    assert "QT_QPA_PLATFORM=offscreen shows no window" in proc.stderr
    assert "Ctrl-C" in proc.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland check is Linux's")
def test_mpstudio_without_a_display_says_what_to_do():
    proc = _launch({"QT_QPA_PLATFORM": None, "DISPLAY": None, "WAYLAND_DISPLAY": None})
    assert proc.returncode == 2
    assert "no display" in proc.stderr
    assert "mpstudio train --help" in proc.stderr and "mpstudio compare --help" in proc.stderr
    assert "ssh -X" in proc.stderr and "VNC" in proc.stderr  # a display from elsewhere
    # offscreen starts an app nobody can see or close: never the advice
    assert "offscreen" not in proc.stderr
    assert "Traceback" not in proc.stderr


def test_pyside_keeps_none_referenced():
    """PySide6 6.12.0's QRectF setters decref None on every call: on Python 3.10/3.11
    the app then aborts mid-run ("deallocating None"). pyproject excludes it; this
    catches a future release with the same bug."""
    from PySide6.QtCore import QRectF

    rect = QRectF(0, 0, 1, 1)
    before = sys.getrefcount(None)
    for _ in range(1000):
        rect.setLeft(0.5)
        rect.setBottom(2.0)
    assert sys.getrefcount(None) - before > -100


def test_scrolling_the_setup_panel_changes_no_setting(qtbot):
    """The wheel over an unfocused combo box or spin box scrolls the panel and leaves
    the field alone (it turned Loss scaling from dynamic to off); once the user has
    clicked or tabbed into the field, the wheel changes it as usual."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QScrollArea

    from mpstudio.ui.setup.setup_panel import SetupPanel
    from mpstudio.ui.widgets.wheel_guard import WheelGuard

    panel = SetupPanel()
    scroll = QScrollArea()
    scroll.setWidget(panel)
    scroll.setWidgetResizable(True)
    scroll.resize(420, 400)  # the form is far taller: it scrolls
    qtbot.addWidget(scroll)
    assert WheelGuard(scroll).guard(panel) > 10
    scroll.show()
    qtbot.waitExposed(scroll)

    def wheel(widget, notches: int = -1) -> None:  # -1: the wheel turned towards the user
        event = QWheelEvent(QPointF(5, 5), QPointF(widget.mapToGlobal(QPoint(5, 5))),
                            QPoint(0, 0), QPoint(0, 120 * notches), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)
        QApplication.sendEvent(widget, event)

    mode, batch = panel.loss_scaling.mode, panel.batch_size
    before = (mode.currentIndex(), batch.value(), scroll.verticalScrollBar().value())
    wheel(mode)
    wheel(batch)
    assert (mode.currentIndex(), batch.value()) == before[:2]
    assert scroll.verticalScrollBar().value() > before[2]  # the panel scrolled instead
    scroll.activateWindow()
    batch.setFocus()
    qtbot.waitUntil(batch.hasFocus)
    wheel(batch, 1)
    assert batch.value() != before[1]  # focused: the wheel is the field's


def test_dynamic_scale_numbers_fold_away_unless_a_spec_sets_them(qtbot):
    """Initial scale and growth steps (rarely changed) fold under "Scale numbers": folded
    at first, opened by a spec that sets them, remembered with the other folded groups."""
    from mpstudio.engine.spec import LossScaling
    from mpstudio.ui.setup.setup_panel import SetupPanel

    panel = SetupPanel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    numbers = panel.loss_scaling.numbers
    assert numbers.isVisible() and not panel.loss_scaling.initial_scale.isVisible()
    spec = RunSpec(precision="mixed_float16",
                   loss_scaling=LossScaling(mode="dynamic", initial_scale=1024.0))
    panel.set_spec(spec)
    assert panel.loss_scaling.initial_scale.isVisible()
    assert panel.loss_scaling.initial_scale.value() == 1024.0
    assert "loss_scale_numbers" in panel.open_groups()
    panel.set_spec(RunSpec(precision="mixed_float16",
                           loss_scaling=LossScaling(mode="fixed", factor=128.0)))
    assert not numbers.isVisible()  # fixed scaling has its factor, not these numbers
    assert panel.loss_scaling.factor.isVisible()


def test_layer_names_are_shown_whole(qtbot):
    """A stretched name column cut names to "batch_normaliza…" in the narrow setup panel:
    the names now have the room the dtype columns leave, whole where it is enough, and
    each name's tip has it whole with its type (test_layer_columns.py: the panel at
    laptop sizes)."""
    from mpstudio.engine.model_summary import LayerInfo, ModelSummary
    from mpstudio.ui.setup.layer_table import LayerTable

    names = ["input_layer", "conv2d_12", "batch_normalization_12", "layer_normalization_3",
             "global_average_pooling2d", "logits"]
    kinds = ["InputLayer", "Conv2D", "BatchNormalization", "LayerNormalization",
             "GlobalAveragePooling2D", "Dense"]
    layers = tuple(LayerInfo(n, k, "float16", "float32", 1234)
                   for n, k in zip(names, kinds, strict=True))
    table = LayerTable()
    qtbot.addWidget(table)
    table.resize(340, 300)  # as in the setup panel
    table.show()
    qtbot.waitExposed(table)
    table.show_summary(ModelSummary("m", "mixed_float16", 6170, 6170, layers), "resnet")
    grid = table.table
    metrics = grid.fontMetrics()
    for text in names:
        assert grid.columnWidth(0) >= metrics.horizontalAdvance(text), text
    for row, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        assert grid.item(row, 0).toolTip().startswith(f"{name} ({kind})")
    assert grid.horizontalScrollBar().maximum() == 0  # all in view
