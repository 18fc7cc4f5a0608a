"""The setup panel in Simplified Chinese, opened all the way: the Distribution and
Training aids groups unfolded, every strategy, loss-scaling mode, precision and aid
switched through, a real model preview in the layer table, the template descriptions,
the dataset summary, the verdict marks on the precision choices and the run's status
line. No English beyond the Latin names; the keys stay English.

Texts the engine writes and the panel only shows (a strategy's reason for being
unavailable, the hardware advisor's reason for a verdict, a dataset's description)
are translated by their own modules and checked here all the same."""

from __future__ import annotations

import json
import re

import pytest
from PySide6.QtWidgets import QApplication, QScrollArea

from mpstudio.engine import i18n
from mpstudio.engine.datasets.registry import dataset_entry, dataset_names
from mpstudio.engine.datasets.report import DataReport
from mpstudio.engine.distribute.options import strategy_options
from mpstudio.engine.events import GradientUnderflow
from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.report import GpuInfo, HardwareReport, TpuInfo
from mpstudio.engine.templates.registry import template_entry, template_names
from mpstudio.ui.models.run_progress import RunProgress
from mpstudio.ui.setup.dataset_picker import describe_report
from mpstudio.ui.setup.setup_panel import SetupPanel
from mpstudio.ui.setup.verdict_marks import mark_text, verdict_marks

from support.language_check import english_words, setup_names
from support.machines import A100, CUDA_BUILD, EPYC_ZEN2, cpu_from, machine
from support.shown_texts import shown_texts

CJK = range(0x4E00, 0xA000)
TF_CONFIG = json.dumps({
    "cluster": {"worker": ["10.0.0.1:12345", "10.0.0.2:12345"]},
    "task": {"type": "worker", "index": 0},
})
# Names a Chinese practitioner reads as they are: Keras' callbacks and layers, the
# cluster variable, the values a float can take, the README file.
API_NAMES = {"EarlyStopping", "ReduceLROnPlateau", "TF_CONFIG", "NaN", "inf", "README",
             "Dense", "BatchNormalization", "BatchNorm", "Dropout", "LayerNorm", "LSTM",
             "MLP", "ResNet", "relu",
             "Goyal", "et", "al"}  # a citation: the linear scaling rule (Goyal et al. 2017)


def _advice():
    """The hardware advisor's verdicts on an A100 server."""
    return advise(detect_hardware(machine(A100)), ())


def _names() -> set[str]:
    return setup_names() | API_NAMES


def _english(texts) -> dict[str, list[str]]:
    names = _names()
    return {t: english_words(t, names) for t in texts if english_words(t, names)}


def _has_chinese(text: str) -> bool:
    return any(ord(c) in CJK for c in text)


def _report(gpus: int) -> HardwareReport:
    return HardwareReport(
        build=CUDA_BUILD,
        gpus=tuple(GpuInfo("NVIDIA A100-SXM4-40GB", (8, 0), i) for i in range(gpus)),
        tpu=TpuInfo(True, accelerator_type="v3-8", cores=8),
        cpu=cpu_from(EPYC_ZEN2),
    )


@pytest.fixture
def panel(qtbot, chinese):
    panel = SetupPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 2600)
    panel.show()
    qtbot.waitExposed(panel)
    for group in panel.folding.values():
        group.set_open(True)
    return panel


def _seen(panel, into: dict[str, object]) -> None:
    QApplication.processEvents()
    for text, widget in shown_texts(panel).items():
        into.setdefault(text, widget)


def _switch_through(panel: SetupPanel) -> tuple[dict[str, object], set[str]]:
    """Every text the opened panel shows while its choices are switched through, and
    the texts in it that other modules of the engine wrote (the strategies' reasons and
    devices, the advisor's reasons, the datasets' descriptions)."""
    seen: dict[str, object] = {}
    engine: set[str] = set()
    _seen(panel, seen)  # before the hardware check: only one device is offered
    env = {"TF_CONFIG": TF_CONFIG}
    options = [*strategy_options(None, {}), *strategy_options(_report(2), env),
               *strategy_options(_report(0), {})]
    engine |= {o.reason for o in options if o.reason}
    engine |= {d for o in options for d in o.devices}
    panel.set_strategy_options(strategy_options(_report(2), env), env)
    marks = verdict_marks(_advice(), "GPU:0")
    engine |= {reason for _, reason in marks.values()}
    panel.set_verdicts(marks, "GPU:0", "mixed_float16")
    for strategy in ("default", "mirrored", "multiworker", "tpu"):
        panel.distribution.strategy.setCurrentIndex(
            panel.distribution.strategy.findData(strategy))
        for rule, warmup in ((True, 0), (False, 100)):
            panel.distribution.lr_scaling.setChecked(rule)
            panel.distribution.warmup_steps.setValue(warmup)
            _seen(panel, seen)
    panel.set_strategy_options(strategy_options(_report(0), {}), {})  # unavailable ones
    _seen(panel, seen)
    aids = panel.aids
    for box in (aids.early_stopping, aids.plateau, aids.best_checkpoint, aids.tensorboard,
                aids.oom_retry, aids.diagnose, aids.underflow):
        box.setChecked(True)
    aids.set_validation_split(0.0)  # a validation monitor without validation data
    for monitor in range(aids.monitor.count()):
        aids.monitor.setCurrentIndex(monitor)
        _seen(panel, seen)
    for precision in ("float32", "mixed_bfloat16", "mixed_float16"):
        panel.precision.setCurrentIndex(panel.precision.findData(precision))
        for mode in range(panel.loss_scaling.mode.count()):
            panel.loss_scaling.mode.setCurrentIndex(mode)
            _seen(panel, seen)
    for template in template_names():
        panel.template.setCurrentIndex(panel.template.findData(template))
        _seen(panel, seen)
    panel.batch_size.setValue(1024)  # the learning rate for the new batch is offered
    _seen(panel, seen)
    assert panel.lr_helper.isVisible()
    engine |= {i18n._(dataset_entry(name).description) for name in dataset_names()}
    return seen, engine


def _without(text: str, parts: set[str]) -> str:
    for part in sorted(parts, key=len, reverse=True):
        text = text.replace(part, " ")
    return text


def test_the_setup_panel_opened_and_switched_through_is_chinese(panel):
    """The panel's own words, every group open and every choice switched through (what
    other engine modules wrote into them is left out here: the test below)."""
    seen, engine = _switch_through(panel)
    own = {_without(text, engine) for text in seen}
    english = _english(own)
    assert not english, english
    assert len(seen) > 120
    assert [panel.precision.itemText(i) for i in range(panel.precision.count())] == [
        "float32 — 可用但更慢", "mixed_float16 — 推荐", "mixed_bfloat16 — 推荐",
        "float8 — 不支持"]
    assert panel.spec().aids.monitor in ("val_loss", "val_accuracy", "loss", "accuracy")
    assert panel.distribution.selected() in ("default", "mirrored", "multiworker", "tpu")


def test_what_the_engine_wrote_into_the_panel_is_chinese(panel):
    """The strategies' reasons and devices (engine/distribute), the hardware advisor's
    reasons (engine/hardware) and the datasets' descriptions (engine/datasets), as the
    opened panel shows them."""
    seen, engine = _switch_through(panel)
    shown = {part for part in engine if any(part in text for text in seen)}
    assert len(shown) > 10
    names = _names() | {"UCI", "MNIST", "Fashion", "CIFAR"}  # the data sets' own names
    english = {t: english_words(t, names) for t in shown if english_words(t, names)}
    assert not english, english


def test_key_sentences_read_as_written(panel):
    """A few sentences in full: the distribution note, a strategy choice, an aid, the
    monitor note, the underflow view's reason and the verdict under the precision."""
    panel.set_strategy_options(strategy_options(_report(2), {}), {})
    distribution = panel.distribution
    distribution.strategy.setCurrentIndex(distribution.strategy.findData("mirrored"))
    distribution.warmup_steps.setValue(100)
    assert distribution.strategy.currentText() == "镜像（本机多 GPU） - 2 个副本"
    assert distribution.note.text() == (
        "镜像到 2 个副本（GPU:0, GPU:1）：全局批次 256 = 每副本 128 × 2 个副本；"
        "学习率 0.001 -> 0.002（线性缩放规则：×2 个副本），在 100 步内从 0 线性预热")
    assert distribution.warmup_steps.specialValueText() == "关闭"
    aids = panel.aids
    assert aids.early_stopping.text() == "早停"
    assert aids.plateau.text() == "学习率衰减（平台期）"
    aids.early_stopping.setChecked(True)
    aids.set_validation_split(0.0)
    assert aids.monitor_note.text() == (
        "验证损失需要验证数据，而本次运行的验证集比例为 0：请改为监控训练损失")
    panel.precision.setCurrentIndex(panel.precision.findData("float32"))
    assert aids.underflow.toolTip() == "仅适用于 mixed_float16：float32 梯度不会下溢"
    panel.set_verdicts(verdict_marks(_advice(), "GPU:0"), "GPU:0")
    assert panel.precision_note.text().startswith("<b>在 GPU:0 上可用但更慢</b>：")
    assert mark_text("not supported") == "不支持"
    assert panel.spec().distribute.strategy == "mirrored"  # the keys stay English


def test_the_template_descriptions_are_chinese(panel):
    for name in template_names():
        panel.template.setCurrentIndex(panel.template.findData(name))
        shown = panel.template_note.text()
        assert shown != template_entry(name).description  # the English is the msgid
        assert _has_chinese(shown) and not _english([shown]), shown
    panel.template.setCurrentIndex(panel.template.findData("mlp"))
    assert panel.template_note.text() == \
        "Dense(1024, relu) -> Dense(类别数)：经典的混合精度演示模型"


def test_a_model_preview_is_captioned_in_chinese(panel):
    """The engine's real summary of a template (Keras, no training) in the layer table:
    its caption, headers and the Tensor Core column."""
    from mpstudio.engine.model_summary import describe_model
    from mpstudio.engine.templates.registry import build_model

    model = build_model("mlp", (8, 8, 1), 10, "mixed_float16", input_scale=1 / 16)
    summary = describe_model(model, "mixed_float16", 128)
    layers = panel.layers
    layers.show_summary(summary, "mlp")
    seen: dict[str, object] = {}
    _seen(layers, seen)
    # the layers' names, types and dtypes are shown as Keras has them
    names = _names() | {"uint8", "cuBLAS", "Deep", "Learning", "Performance"}  # NVIDIA's guide
    for layer in summary.layers:
        names |= set(re.findall(r"\w+", f"{layer.name} {layer.kind}"))
    english = {t: english_words(t, names) for t in seen if english_words(t, names)}
    assert not english, english
    caption = layers.caption.text()
    assert caption.startswith(f"<b>mlp</b>：{summary.params:,} 个参数 · 在 <b>mixed_float16</b> "
                              "下，")
    assert "层以半精度计算，变量保持 float32" in caption
    assert "<br>有 1 层未能用上 Tensor Core：见该列" in caption  # logits: 10 units
    headers = [layers.table.horizontalHeaderItem(c).text()
               for c in range(layers.table.columnCount())]
    assert headers == ["层", "类型", "计算", "变量", "参数", "Tensor Core"]
    cells = [layers.table.item(r, 5).text() for r in range(layers.table.rowCount())]
    assert "是" in cells and any(c.startswith("否：") for c in cells)


def test_the_dataset_summary_is_chinese(chinese):
    report = DataReport(name="digits", origin="bundled", kind="image", input_shape=(8, 8, 1),
                        train_samples=1437, test_samples=360,
                        class_names=tuple(map(str, range(10))), class_counts=(143,) * 10,
                        raw_dtype="uint8", raw_range=(0.0, 16.0), scaling="x / 16")
    text = describe_report(report, 0.2)
    first = text.splitlines()[0]
    assert first == "训练 1,150 / 验证 287 / 测试 360 · 图像 8x8x1 · 10 个类别"


def test_the_run_status_line_is_chinese(chinese):
    progress = RunProgress(runs_planned=2)
    assert progress.status_text() == "正在加载数据…"
    progress.total_steps, progress.steps_per_epoch, progress.runs_started = 100, 50, 1
    progress.label = "mixed_float16"
    progress.oom_retries, progress.batch_size = 1, 64
    progress.update(_step(1), now=0.0)
    progress.update(_step(11), now=1.0)
    text = progress.status_text(now=1.0)
    assert text == ("mixed_float16（第 1/2 次运行） · 第 1 次重试，批次 64 · 第 1/2 轮 · "
                    "第 11/100 步 · 预计剩余 0:19")
    progress.underflow = GradientUnderflow(step=11, epoch=1, scale=32768.0, unscaled=0.12,
                                           scaled=0.0, layers=(), seconds=0.01)
    assert not _english([progress.status_text(now=1.0)]), progress.status_text(now=1.0)


def _step(step: int):
    from mpstudio.engine.events import StepMetrics

    return StepMetrics(step=step, epoch=1, loss=1.0, accuracy=0.5, loss_scale=32768.0,
                       overflow_steps=0, examples_per_sec=1000.0, step_time=0.01, warmup=False)


@pytest.mark.parametrize("narrowest", [False, True], ids=["1280x720", "narrowest"])
def test_nothing_is_clipped_in_chinese(qtbot, chinese, tmp_path, narrowest):
    """The setup dock of the window at 1280x720, as it opens and squeezed to the
    narrowest the dock allows, every group open and the longest notes showing: every
    label and check box has the room its text needs (word-wrapped labels grow
    downwards) and nothing reaches past the panel's right edge."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QAbstractButton, QDockWidget, QLabel

    from support.gui_helpers import bare_window

    window = bare_window(qtbot, tmp_path / "window.ini", (1280, 720))
    panel = window.setup
    for group in panel.folding.values():
        group.set_open(True)
    env = {"TF_CONFIG": TF_CONFIG}
    panel.set_strategy_options(strategy_options(_report(2), env), env)
    panel.distribution.strategy.setCurrentIndex(
        panel.distribution.strategy.findData("multiworker"))
    panel.aids.early_stopping.setChecked(True)
    panel.aids.set_validation_split(0.0)
    panel.set_verdicts(verdict_marks(_advice(), "GPU:0"), "GPU:0")
    dock = window.findChild(QDockWidget, "setupDock")
    if narrowest:
        window.resizeDocks([dock], [1], Qt.Orientation.Horizontal)  # to its minimum
    for _ in range(3):  # the wrapped labels take their height at the final width
        QApplication.processEvents()
        panel._fit_wrapped_labels()
    area = panel.parentWidget().parentWidget()
    assert isinstance(area, QScrollArea)
    name = "narrowest" if narrowest else "1280x720"
    window.grab().save(str(tmp_path / f"window_zh_{name}.png"))
    panel.grab().save(str(tmp_path / f"setup_zh_{name}.png"))
    assert panel.width() <= area.viewport().width()
    clipped = []
    for widget in panel.findChildren(QLabel) + panel.findChildren(QAbstractButton):
        if not widget.isVisible() or not widget.text():
            continue
        if isinstance(widget, QLabel) and widget.wordWrap():
            need = widget.heightForWidth(widget.width())
            if need > widget.height() + 1:
                clipped.append((widget.text(), need, widget.height()))
        elif widget.sizeHint().width() > widget.width() + 1:
            clipped.append((widget.text(), widget.sizeHint().width(), widget.width()))
        right = widget.mapTo(panel, widget.rect().topRight()).x()
        if right > panel.width():
            clipped.append((widget.text(), "outside", right))
    assert not clipped, clipped
