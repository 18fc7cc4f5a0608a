"""The main window's own words, the Export dialog and the engine client's messages in
Simplified Chinese: the status bar, the banner, the log lines the window writes, the
message boxes, the export form and its results (a real export of a tiny trained
model), and what the window says when its engine process dies.

What is checked for English is what this part of the window writes itself. Sentences
from the engine modules other parts translate (a run's summary line, the advisor's
reason, a dataset's description, spec problems) are left out by name where they
appear, in ``OTHERS``, so a test here fails on this part's English only."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QMessageBox

from mpstudio.engine.export.formats import FORMATS, export_format, unavailable_reason
from mpstudio.engine.export.results import (
    ExportOutcome,
    ExportRequest,
    ExportResult,
    Verification,
)
from mpstudio.ui.engine_client.engine_end import EngineEnd
from mpstudio.ui.export.export_dialog import ExportDialog
from mpstudio.ui.export.export_summary import banner_text, summary_text
from mpstudio.ui.window.run_outcome import status_line

from support.gui_helpers import (
    TF_TIMEOUT_MS,
    bare_window,
    close_window,
    run_tiny_comparison,
)
from support.language_check import LATIN_NAMES, english_words
from support.shown_texts import shown_texts

EXPORT_TIMEOUT_MS = 180_000
# Names that stay in Latin letters besides the glossary's (language_check.LATIN_NAMES):
# the export runtimes and converters, units, signal names, the TensorFlow Serving product.
NAMES = LATIN_NAMES | {
    "LiteRT", "onnxruntime", "tf2onnx", "TensorRT", "opset", "Serving", "Edge", "Lite",
    "uint8",
    "KB", "MB", "GB", "kB", "SIGKILL", "SIGSEGV", "SIGABRT", "SIGTERM", "VNC",
    "digits", "mlp",  # the dataset and template of the runs here
}
OTHERS_NOTE = "sentences of engine modules other parts translate"


def _english(texts, others: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """The texts with English beyond the names, leaving out the parts of a text that
    are ``others`` (whole sentences from another part's engine module)."""
    found = {}
    for text in texts:
        shown = text
        for other in others:
            shown = shown.replace(other, " ")
        words = english_words(shown, NAMES)
        if words:
            found[text] = words
    return found


def _verification(passed: bool = True, accuracy: bool = True) -> Verification:
    return Verification("LiteRT", 256, "held-out validation examples", 2e-7,
                        1.0 if passed else 0.9, 0.99, 0.97 if accuracy else None,
                        0.97 if accuracy else None)


def _outcome(format_id: str, folder: Path, *, passed: bool = True, error: str = "",
             notes: tuple[str, ...] = ()) -> ExportOutcome:
    fmt = export_format(format_id)
    path = folder / f"digits{fmt.suffix or '-savedmodel'}"
    request = ExportRequest(format_id, path)
    if error:
        return ExportOutcome(request, error=error)
    return ExportOutcome(request, ExportResult(fmt, path, 12_345, 98_765,
                                               _verification(passed), notes))


# ------------------------------------------------------------- without an engine
def test_the_window_without_its_engine_is_chinese(qtbot, tmp_path, chinese):
    """The title, the status bar while TensorFlow loads, the Run button's tip, the log's
    own lines (a config that cannot be opened, a saved one) and their level labels."""
    w = bare_window(qtbot, tmp_path / "window.ini")
    assert w.windowTitle() == "mpstudio — 混合精度工作台"
    assert w.status_text.text() == "正在加载 TensorFlow…"
    assert w.device_label.text() == "设备：检测中…"
    assert w.setup.run_button.toolTip() == "TensorFlow 仍在加载：请等待它结束（或将其停止）"
    bad = tmp_path / "bad.toml"
    bad.write_text("not toml [", encoding="utf-8")
    assert not w.files.open_config(str(bad))
    assert w.banner.text().startswith(f"无法打开 {bad}：")
    assert w.files.save_config(str(tmp_path / "run"))
    assert w.log.lines()[-1] == (f"已保存运行配置 {tmp_path / 'run.toml'}（用 `mpstudio train "
                                 f"--config {tmp_path / 'run.toml'}` 运行它）")
    w.notices.log("x", "warning")
    assert w.log.toPlainText().splitlines()[-1].endswith("警告：x")
    texts = [w.windowTitle(), w.status_text.text(), w.device_label.text(),
             w.setup.run_button.toolTip(), *w.log.lines()]
    # the reason TOML gives for the bad file is the parser's own (English) text
    assert not _english(texts, others=(w.banner.text().split("：", 1)[1],))
    w.grab().save("/tmp/zh_window_bare.png")


def test_message_boxes_and_file_dialogs_say_it_in_chinese(qtbot, tmp_path, chinese,
                                                          monkeypatch):
    w = bare_window(qtbot, tmp_path / "window.ini")
    asked = []

    def question(parent, title, text, *args):
        asked.append((title, text))
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", question)
    assert not w.ask_close()
    assert asked == [("停止运行并退出？", "有运行正在进行。要停止它并退出 mpstudio 吗？")]
    titles = []
    w.files.ask_open_path = lambda title, filters: titles.append((title, filters)) or ""
    w.files.ask_save_path = lambda title, filters, name: titles.append((title, filters)) or ""
    w.window_actions.import_dataset.trigger()
    w.window_actions.open_config.trigger()
    w.window_actions.save_config.trigger()
    w.window_actions.save_charts.trigger()
    assert titles[0] == ("导入数据集文件",
                         "数据集 (*.npz *.csv);;NumPy 归档 (*.npz);;CSV 表格 (*.csv)")
    assert titles[-1] == ("保存图表", "PNG 图像 (*.png);;SVG 图像 (*.svg)")
    informed = []
    w.tensorboard.inform = informed.append
    w.tensorboard.open_runs()
    assert informed == ["没有可显示的运行：请在“历史记录”中选择一个，或训练一个。"]
    assert not _english([t for pair in asked + titles for t in pair] + informed)


def test_what_is_printed_before_a_window_exists_follows_the_language(monkeypatch):
    """No display: said in the chosen language (``mpstudio --lang``), before Qt starts."""
    from mpstudio.ui import app

    monkeypatch.setattr(app.sys, "platform", "linux")
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    problem = app._display_problem("zh_CN")
    assert problem.startswith("没有可以打开窗口的显示器（`DISPLAY` 和 `WAYLAND_DISPLAY` 都未设置）")
    assert "`ssh -X`" in problem and not _english([problem])
    assert app._display_problem("en").startswith("no display to open a window on")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    note = app._no_window_note("zh_CN")
    assert note.startswith("`QT_QPA_PLATFORM=offscreen` 不显示窗口") and not _english([note])


def test_a_comparisons_status_line_finds_the_chinese_verdicts_headline(chinese):
    text = "结论：在此硬件上更慢：mixed_float16 的速度为 float32 的 0.66 倍。"
    assert status_line("finished", text) == "对比已完成：在此硬件上更慢。原因见“对比”卡片。"
    assert status_line("stopped", text).startswith("对比已停止：在此硬件上更慢。")


def test_how_the_engine_ended_reads_in_chinese_and_is_kept_in_english(chinese):
    killed = EngineEnd(-signal.SIGKILL, "the measurement", False)
    assert killed.message == ("引擎进程在精度测速期间被强制终止（SIGKILL：由系统发出，通常是"
                              "因为内存耗尽，或来自外部）")
    assert killed.reason == ("the engine process was killed (SIGKILL: by the system, often "
                             "for running out of memory, or from outside) during the "
                             "measurement")
    run = EngineEnd(-signal.SIGSEGV, "the mixed_float16 run", False, "mixed_float16 运行")
    assert run.message.startswith("引擎进程在mixed_float16 运行期间崩溃（SIGSEGV：")
    assert EngineEnd(3, "", False).message == "引擎进程已退出，退出码 3"
    stop = EngineEnd(-signal.SIGKILL, "the hardware check", True)
    assert stop.message == "已立即停止：引擎在硬件检测期间被结束"
    assert not _english([killed.message, run.message, stop.message])


def test_the_export_form_is_chinese(qtbot, tmp_path, chinese):
    dialog = ExportDialog(tmp_path)
    qtbot.addWidget(dialog)
    dialog.set_source("运行 3 · mlp · mixed_float16（刚训练完的运行）", "mlp-mixed_float16-run3")
    dialog.resize(760, 560)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.windowTitle() == "导出模型"
    assert dialog.export_button.text() == "导出" and dialog.close_button.text() == "关闭"
    assert dialog.findChild(QLabel, "exportTargets").text() == (
        "将写入该文件夹：\nmlp-mixed_float16-run3.keras")
    texts = list(shown_texts(dialog))
    assert len(texts) > 15
    file_name = (dialog.name_edit.text(),)  # the user's, as typed
    assert not _english(texts, file_name), _english(texts, file_name)
    labels = [c.text() for c in dialog.checks.values()]
    assert "TFLite 动态范围 int8" in labels and "TFLite 全整数 int8" in labels
    for check in dialog.checks.values():
        check.setChecked(False)
    assert dialog.export_button.toolTip() == "请至少勾选一种格式"
    dialog.checks["keras"].setChecked(True)
    dialog.name_edit.setText("a/b")
    assert dialog.hint.text() == '文件名不能包含以下任何字符：/\\:*?"<>|'
    (tmp_path / "digits.keras").mkdir()
    dialog.name_edit.setText("digits")
    assert dialog.targets_label.text().endswith(
        "digits.keras  （已有同名文件夹挡住了它：请换一个名称）")


def test_export_results_and_their_summary_are_chinese(qtbot, tmp_path, chinese):
    """The results page, built from outcomes as the engine sends them (the error and the
    notes are the engine process's, in its language; the verification line and the
    size are worded here)."""
    outcomes = [
        _outcome("keras", tmp_path),
        _outcome("tflite-dynamic", tmp_path, passed=False),
        _outcome("onnx", tmp_path, error="tf2onnx 无法转换该模型：x"),
    ]
    text, level = banner_text(outcomes)
    assert level == "error"
    assert text == ("3 种格式中有 2 种失败：ONNX 未导出；TFLite 动态范围 int8 与训练好的模型的差异"
                    "超出阈值：使用前请检查其准确率（详见下方）。1 种已导出并通过验证。")
    assert summary_text(outcomes) == ("3 个中有 1 个已导出并通过验证；1 个低于一致率阈值；"
                                      "1 个未导出")
    assert summary_text(outcomes, cancelled=True) == (
        "导出已取消：停止前写入了 3 个中的 2 个，其余均未写入")
    line = outcomes[1].result.verification.line()
    assert line == ("LiteRT 在 256 个留出的验证样本上：预测类别一致率 90.0%（阈值 99%），最大绝对差"
                    " 2e-07，准确率 97.0%（训练模型为 97.0%） · 低于阈值")
    assert outcomes[1].result.size_text() == "12.3 KB（float32 权重为 98.8 KB，缩小到 1/8.0）"

    dialog = ExportDialog(tmp_path)
    qtbot.addWidget(dialog)
    dialog.set_source("运行 3 · mlp · float32", "digits")
    dialog.show()
    dialog.show_outcomes(outcomes)
    qtbot.wait(20)
    marks = [v.mark.text() for v in dialog.results.views]
    assert marks == ["低于阈值", "失败", "通过"]
    assert dialog.result_lines()[1] == "未导出：tf2onnx 无法转换该模型：x"
    assert dialog.back_button.text() == "返回"
    texts = list(shown_texts(dialog))
    assert not _english(texts), _english(texts)


# ----------------------------------------------------------- with the real engine
def _open_chinese_window(qtbot, tmp_path):
    from support.gui_helpers import open_window

    return open_window(qtbot, tmp_path / "window.ini")


@pytest.mark.slow
def test_the_working_window_speaks_chinese_train_compare_export_and_engine_end(
        qtbot, tmp_path, chinese):
    """The whole round under zh_CN with the real engine (which speaks Chinese too):
    the ready window, a comparison's banner and status line, the export of the run
    just trained (form, results, log, status bar), then the engine killed while idle."""
    w = _open_chinese_window(qtbot, tmp_path)
    w.resize(1280, 720)
    qtbot.wait(50)
    assert w.status_text.text() == "就绪"
    assert w.device_label.text().startswith("设备：")
    log = w.log.lines()
    assert any(line.startswith("TensorFlow ") and "已在引擎进程中加载（进程号 " in line
               for line in log), log
    assert any(line.startswith("本机推荐：在 ") for line in log), log

    # A comparison on digits: its tab shows the verdict, its status line the headline.
    run_tiny_comparison(qtbot, w)
    assert w.central_tabs.card_open and not w.banner.isVisible()
    assert w.central_tabs.tabText(1) == "对比"
    assert w.status_text.text().startswith("对比已完成：")
    assert w.status_text.text().endswith("。原因见“对比”卡片。")
    started = [line for line in w.log.lines() if line.startswith("开始训练：")]
    assert started == ["开始训练：mixed_float16，digits / mlp，与 float32 对比"], started
    window_texts = [w.windowTitle(), w.status_text.text(), w.device_label.text(), *started]
    # the device's description ("CPU (x86_64, 2 cores)") is the hardware check's
    device = (w.device_label.text().removeprefix("设备："),)
    assert not _english(window_texts, device), _english(window_texts, device)
    w.grab().save("/tmp/zh_window_comparison.png")

    # Export the run just trained: the form, then the results of a real export.
    out = tmp_path / "out"
    out.mkdir()
    w.window_actions.export_model.trigger()
    dialog = w.exports.dialog
    assert dialog.heading.text().startswith("运行 ")
    assert dialog.heading.text().endswith(" · mlp · mixed_float16（刚训练完的运行）")
    form_texts = list(shown_texts(dialog))
    file_name = (dialog.name_edit.text(),)  # "mlp-mixed_float16-run7": a file name
    assert not _english(form_texts, file_name), _english(form_texts, file_name)
    wanted = [f.id for f in FORMATS if f.id in ("keras", "tflite-float32", "tflite-int8")
              and unavailable_reason(f) is None]
    for fmt_id, check in dialog.checks.items():
        check.setChecked(fmt_id in wanted)
    dialog.folder_edit.setText(str(out))
    dialog.name_edit.setText("digits")
    dialog.grab().save("/tmp/zh_export_form.png")
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert w.status_text.text().startswith("正在导出 运行 ")
    qtbot.waitUntil(lambda: w.exports.job is None, timeout=EXPORT_TIMEOUT_MS)
    qtbot.wait(50)
    banner = dialog.results.banner.text()
    assert banner == f"全部 {len(wanted)} 种格式已导出并通过验证：每种都与训练好的模型一致", banner
    lines = dialog.result_lines()
    assert len(lines) == len(wanted) and all(x.endswith(" · 通过") for x in lines), lines
    assert any("个留出的验证样本上：预测类别一致率 " in x for x in lines), lines
    results = list(shown_texts(dialog))
    assert any(t.startswith("输入：") for t in results)  # the engine's notes, in Chinese
    assert not _english(results), _english(results)
    exported = [x for x in w.log.lines("success") if x.startswith("导出：")]
    assert len(exported) == len(wanted) and not _english(exported), exported
    assert w.status_text.text() == (f"导出：{len(wanted)} 个中有 {len(wanted)} 个已导出并通过验证")
    dialog.grab().save("/tmp/zh_export_results.png")
    # every row of the results in view, wrapped Chinese lines and all (nothing clipped)
    assert all(v.visibleRegion().boundingRect() == v.rect() for v in dialog.results.views)
    dialog.close()

    # The engine killed while idle: the banner and the log say so, and it restarts.
    first_pid = w.engine.pid
    qtbot.waitUntil(lambda: not w.engine.busy, timeout=TF_TIMEOUT_MS)
    with qtbot.waitSignal(w.engine.ready, timeout=TF_TIMEOUT_MS):
        os.kill(first_pid, signal.SIGKILL)
    assert w.banner.text() == ("引擎进程在空闲时被强制终止（SIGKILL：由系统发出，通常是因为内存"
                               "耗尽，或来自外部）。新的引擎进程正在启动；你的设置保持不变。")
    ended = [x for x in w.log.lines("error") if "SIGKILL" in x]
    assert len(ended) == 1 and ended[0].startswith("引擎进程被强制终止（SIGKILL："), ended
    assert "正在启动新的引擎进程" in ended[0]
    assert any(x.startswith("新的引擎进程已就绪（进程号 ") for x in w.log.lines())
    assert not _english([w.banner.text(), *ended])
    close_window(qtbot, w)


def test_the_window_title_and_status_bar_are_english_again_afterwards(qtbot, tmp_path):
    """The chinese fixture leaves nothing behind: the next window is English."""
    w = bare_window(qtbot, tmp_path / "w.ini")
    assert w.status_text.text() == "Loading TensorFlow…"
    assert w.device_label.text() == "device: detecting…"
    assert isinstance(w.settings.store, QSettings)
