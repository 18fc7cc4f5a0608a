"""The Hardware panel and the training check (doctor) in Simplified Chinese: the panel
after a real hardware check of this machine and after an injected GPU machine's
measured one, the GPU memory form saving and refusing, the doctor dialog after a
real (reduced) doctor run, its saved HTML page, and ``mpstudio --lang zh_CN doctor``
in a terminal. No English beyond the Latin names (and the machine's own names);
the JSON stays English, the keys stay keys.

The advisor's verdicts, reasons, tips and device notes (engine/hardware) are
translated by their own module and checked here all the same."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys

import pytest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel

from mpstudio.engine.app_settings import GpuMemorySettings, settings_path
from mpstudio.engine.doctor.checks import STATUSES, DoctorReport, not_run
from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
from mpstudio.engine.hardware.report import CPU_FLAGS
from mpstudio.engine.templates.registry import template_names
from mpstudio.ui.hardware.doctor_dialog import DoctorDialog
from mpstudio.ui.hardware.hardware_panel import HardwarePanel

from support.hardware_checks import measured
from support.language_check import LATIN_NAMES, english_words, machine_names
from support.machines import A100, GTX_970, SAPPHIRE_RAPIDS, cpu_from, machine
from support.shown_texts import plain, shown_texts

CJK = re.compile(r"[\u4e00-\u9fff]")
# Latin words that are names or units, not English: the micro-benchmark's op names, the
# units of memory and speed, CPU instruction sets, TensorFlow's CPU library, NVIDIA's
# architectures and the template names.
NAMES = LATIN_NAMES | {"matmul", "conv", "TFLOP", "MiB", "GiB", "oneDNN", "AMX", "AVX",
                       "BF16", "F16C", "FP16", "FP8", *CPU_FLAGS, *template_names(),
                       "Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ada", "Lovelace",
                       "Hopper", "Blackwell", "MirroredStrategy"}
# What a user types, as the console and the report quote it: the program and its
# command, options, a setting and its value, and the file names it is given.
COMMAND_LINE = re.compile(r"mpstudio [a-z]+|(?<!\S)--?[a-z][\w-]*|\b\w+=\w+\b"
                          r"|\S+\.(?:html|json|toml)\b")


def english_in(texts, names: set[str]) -> dict[str, list[str]]:
    found = {}
    for text in texts:
        words = english_words(COMMAND_LINE.sub(" ", plain(text)), names)
        if words:
            found[text] = words
    return found


def shown_panel(qtbot, check: HardwareCheck, width: int = 480) -> HardwarePanel:
    panel = HardwarePanel()
    qtbot.addWidget(panel)
    panel.resize(width, 900)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_check(check)
    for _ in range(2):  # the cards lay out, then the panel takes their width
        QApplication.processEvents()
    return panel


@pytest.fixture(scope="module")
def real_check() -> HardwareCheck:
    """This machine, checked for real (TensorFlow imported, nothing measured); made in
    Chinese, as the window's engine process makes it for a Chinese user."""
    from mpstudio.engine import i18n
    from mpstudio.engine.hardware.check import run_hardware_check

    i18n.set_language("zh_CN")
    try:
        return run_hardware_check()
    finally:
        i18n.set_language("en")


# ----------------------------------------------------------------- the panel
def test_the_panel_after_a_real_check_is_chinese(qtbot, chinese, real_check):
    panel = shown_panel(qtbot, real_check)
    texts = shown_texts(panel)
    assert len(texts) > 25
    assert not english_in(texts, NAMES | machine_names(real_check.report))
    assert panel.check_button.text() == "重新检测" and panel.measure_button.text() == "测量"
    assert panel.seconds_spin.suffix() == " 秒/项"
    view = panel.view
    assert re.fullmatch(r"本机推荐：在 \S+ 上使用 \S+",
                        " ".join(plain(view.recommendation_label.text()).split()))
    assert view.measurement_label.text().startswith("结论依据硬件本身得出。")
    rows = dict(view.build_rows)
    assert rows["构建"] in ("仅支持 CPU：此 TensorFlow 无法使用 GPU", "ROCm") or \
        rows["构建"].startswith("CUDA ")
    cpu = {card.device: card for card in panel.device_cards()}["CPU"]
    assert {"架构", "内存", "半精度指令集"} <= set(cpu.facts)
    assert re.fullmatch(r"\S+ · \d+ 个逻辑核心( / \d+ 个物理核心)?", cpu.facts["架构"])
    # The verdict keys stay English; only their words are shown translated.
    assert {v.verdict.value for d in real_check.advice.devices for v in d.verdicts} <= {
        "recommended", "works, no faster", "works but slower", "measure to know",
        "not supported"}


def test_a_measured_gpu_machine_is_chinese(qtbot, chinese):
    """Two GPUs (one TensorFlow cannot use) with a measurement: the cards' facts, the
    verdict marks, the ratios and their tips, the timings and the captions."""
    report = detect_hardware(machine(A100, GTX_970, cpu=cpu_from(SAPPHIRE_RAPIDS)))
    measurements = (measured("GPU:0", 0.003, 0.001, 0.00105, baseline="TF32"),
                    measured("CPU", 0.010, 0.020, 0.050, stopped=True))
    memory = MemoryApplyResult("needs_restart", "")
    check = HardwareCheck(report, advise(report, measurements), measurements, memory)
    panel = shown_panel(qtbot, check)
    texts = shown_texts(panel)
    assert not english_in(texts, NAMES | machine_names(report))
    cards = {card.device: card for card in panel.device_cards()}
    gpu = cards["GPU:0"]
    assert gpu.facts["架构"] == "Ampere · 计算能力 8.0"
    assert gpu.facts["Tensor Core"].endswith(" · float16 是 · bfloat16 是")
    assert gpu.facts["内存"].endswith(" GiB，共 40.0 GiB") and gpu.facts["驱动"] == "580.82.07"
    assert gpu.measurement_label.text() == "计时前向 + 反向传播，XLA 开启；float32 实际以 TF32 运行"
    assert [label.text() for label in gpu.timing_labels[0]] == [
        "TFLOP/s", "float32", "float16", "bfloat16"]
    assert gpu.ratio_labels["mixed_float16"].toolTip() == \
        "mixed_float16 相对 float32 的速度（本机实测）"
    assert cards["CPU"].measurement_label.text().endswith(" · 已提前停止")
    assert cards["GPU (unused)"].unusable_label.text().startswith("TensorFlow 无法使用此 GPU：")
    rows = dict(panel.view.build_rows)
    assert rows["构建"] == "CUDA 12.5.1, cuDNN 9 · 内核适用于 sm_60 sm_70 sm_80 sm_89 compute_90"
    assert rows["TF32"].startswith("开启：")
    assert panel.memory_form.apply_label.text().startswith("下次启动时生效：")
    assert panel.memory_form.apply_label.toolTip() == "状态：需要重启"


def test_the_panel_states_are_chinese(qtbot, chinese):
    panel = HardwarePanel()
    qtbot.addWidget(panel)
    assert panel.placeholder.text() == "尚未进行硬件检测。"
    panel.set_run_active(True)
    assert panel.measure_button.toolTip().startswith("训练运行期间不可用")
    panel.set_run_active(False)
    assert panel.check_button.toolTip() == "重新检测设备（很快；不做测量）"
    panel.set_busy(True)
    assert panel.status_label.text() == "正在检测…"
    panel.set_progress(3, 12, "GPU:0 conv float16")
    assert panel.status_label.text() == "正在测量 GPU:0 conv float16 · 3/12"
    panel.show_error("boom")
    assert panel.error_label.text() == "硬件检测失败：boom"
    assert panel.placeholder.text() == "尚未完成硬件检测：请按“重新检测”重试。"


# ---------------------------------------------------------- the GPU memory form
def test_the_gpu_memory_form_saves_and_refuses_in_chinese(qtbot, chinese):
    panel = HardwarePanel()
    qtbot.addWidget(panel)
    panel.show()
    form = panel.memory_form
    texts = shown_texts(form)
    assert not english_in(texts, NAMES)
    assert form.growth_box.text() == "按需增长 GPU 显存"
    assert form.limit_spin.specialValueText() == "不设上限"
    assert form.file_label.text() == "已保存的设置：TensorFlow 默认：启动时预留大部分显存。"
    form.limit_spin.setValue(4096)
    assert form.save()
    assert form.file_label.text() == "已保存的设置：每个 GPU 上限 4096 MiB。新的运行将使用它。"
    assert form.path_label.text().startswith("保存在 ")
    assert "limit_mb = 4096" in settings_path().read_text(encoding="utf-8")  # keys unchanged
    form.growth_box.setChecked(True)
    assert form.save()
    assert form.file_label.text() == "已保存的设置：显存增长已开启（按需分配）。新的运行将使用它。"

    settings_path().write_text("[gpu_memory]\nlimit_mb = 10\n", encoding="utf-8")
    form.reload()
    text = form.file_label.text()
    assert text.startswith("设置文件 ") and text.endswith(
        "：GPU 显存上限必须是不小于 64 的整数（单位 MiB），实际为 10。保存会替换这些值。")
    assert not english_in([text], NAMES)
    settings_path().write_text("[gpu_memory\n", encoding="utf-8")
    form.reload()
    assert "不是有效的 TOML" in form.file_label.text()  # tomllib's own reason is quoted
    # The engine's messages as the main window passes them on.
    form.show_apply_result("unchanged", GpuMemorySettings().describe())
    assert form.apply_label.text().startswith("已生效：")


# -------------------------------------------------------------- the doctor
@pytest.fixture(scope="module")
def doctor_run():
    """A real doctor run in Chinese, reduced to the mlp template (a few seconds): every
    line a CPU machine has (build, driver, memory, three training lines, timing, TF32,
    mirrored), and the progress texts as they came."""
    from mpstudio.engine import i18n
    from mpstudio.engine.doctor.doctor import run_doctor
    from mpstudio.engine.doctor.plan import make_plan

    progress = []
    plan = dataclasses.replace(make_plan(True, False), templates=("mlp",), timing_steps=8)
    i18n.set_language("zh_CN")
    try:
        report = run_doctor(plan=plan, progress=lambda d, t, text: progress.append(text))
    finally:
        i18n.set_language("en")
    return report, progress


def test_the_doctor_dialog_after_a_real_run_is_chinese(qtbot, chinese, doctor_run, tmp_path):
    report, progress = doctor_run
    assert not report.failed, [c.to_dict() for c in report.checks]
    dialog = DoctorDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.windowTitle() == "检查本机上的训练"
    assert dialog.status.text() == "按“开始”进行检查。"
    dialog.started()
    assert dialog.status.text() == "正在检测硬件…"
    dialog.set_progress(2, 9, progress[3])
    assert dialog.status.text().startswith("正在检查 ") and "（第 3 项，共 9 项）" in \
        dialog.status.text()
    for check in report.checks:
        dialog.add_check(check)
    dialog.show_report(report)
    QApplication.processEvents()
    texts = shown_texts(dialog)
    names = NAMES | machine_names(detect_hardware()) | {  # the versions, the OS's included
        word for version in report.versions.values() for word in re.findall(r"\w+", version)}
    assert not english_in(texts, names)
    assert [dialog.table.horizontalHeaderItem(c).text() for c in range(4)] == [
        "部分", "检查项", "状态", "原因"]
    rows = dialog.statuses()
    assert {status for _, status, _ in rows} <= {"通过", "警告", "失败", "跳过"}
    by_name = {name: (status, why) for name, status, why in rows}
    assert by_name["TensorFlow 构建"][0] == "通过"
    assert re.match(r"4 步后损失为 \S+；全部 \d+ 个层均为 float32；XLA ",
                    by_name["mlp · float32"][1])
    assert "损失缩放因子从 32,768 起有变化：翻倍至" in by_name["mlp · mixed_float16"][1]
    assert by_name["MirroredStrategy 训练步"] == (
        "跳过", "本机没有 GPU：镜像训练步需要两个或更多 GPU")
    assert by_name["TF32"][1].startswith("没有 GPU：由 CPU 运行检查；TF32 是 NVIDIA GPU")
    assert re.fullmatch(r"本机可以正常训练：.+；用时 \d+ 秒(（最慢的一行：.+，\d+ 秒）)?。",
                        dialog.summary.text()), dialog.summary.text()
    assert dialog.status.text() == "完成。"
    # The progress the engine reported: a section and a line, in Chinese.
    assert progress[0] == "正在检测硬件" and progress[-1] == "完成"
    assert "训练：mlp · mixed_float16" in progress
    assert not english_in(progress, names)

    saved = dialog.save_report(tmp_path / "doctor.html")
    assert saved is not None and dialog.status.text() == f"报告已保存到 {saved}"
    page = saved.read_text(encoding="utf-8")
    body = re.sub(r"<style>.*?</style>|<[^>]+>", "\n", page, flags=re.S)
    lines = [line for line in body.splitlines() if line.strip()]
    assert not english_in(lines, names)
    assert "<h2>检查项</h2>" in page and "<h2>训练内容</h2>" in page and 'lang="zh-CN"' in page


def test_the_doctor_json_stays_english(chinese, doctor_run):
    """What scripts read is the same in every language: keys, statuses and sentences."""
    from mpstudio.engine.doctor.report_files import report_json

    report, _ = doctor_run
    data = json.loads(report_json(report))
    assert not CJK.search(json.dumps(data, ensure_ascii=False))
    assert data["summary"].startswith("Training works here")
    checks = {c["name"]: c for c in data["checks"]}
    assert checks["MirroredStrategy step"]["reason"] == (
        "no GPU here: the mirrored step needs two or more GPUs")
    assert {c["status"] for c in data["checks"]} <= set(STATUSES)
    assert {c["section"] for c in data["checks"]} == {
        "build and driver", "GPU memory", "training", "timing", "TF32", "mirrored"}


def test_a_stopped_doctor_reads_in_chinese(qtbot, chinese):
    checks = tuple(not_run("training", f"mlp · {p}") for p in ("float32", "mixed_float16"))
    report = DoctorReport(checks, {}, (), {"quick": True}, 3.2, stopped=True)
    dialog = DoctorDialog()
    qtbot.addWidget(dialog)
    for check in checks:
        dialog.add_check(check)
    dialog.show_report(report)
    assert dialog.status.text() == "已停止。"
    assert dialog.summary.text() == "已提前停止：已运行的检查项均未失败：2 项跳过；用时 3 秒。"
    assert dialog.statuses()[0] == ("mlp · float32", "跳过", "未运行（已停止）")
    assert report.to_dict()["checks"][0]["reason"] == "not run (stopped)"


# ---------------------------------------------------------------- the console
def test_mpstudio_doctor_speaks_chinese_in_a_terminal(tmp_path, seed_cpu_rates):
    """``mpstudio --lang zh_CN doctor --quick --templates mlp``: the table, its lines and
    the summary in Chinese; the JSON it writes alongside stays English."""
    env = dict(os.environ, COLUMNS="220", MPSTUDIO_CONFIG_DIR=str(tmp_path / "config"),
               MPSTUDIO_DATA_DIR=str(tmp_path / "data"),
               MPSTUDIO_HISTORY=str(tmp_path / "history.sqlite3"))
    env.pop("MPSTUDIO_LANG", None)
    seed_cpu_rates(tmp_path / "data")
    out = tmp_path / "doctor.json"
    done = subprocess.run([sys.executable, "-m", "mpstudio", "--lang", "zh_CN", "doctor",
                           "--quick", "--templates", "mlp", "--json-out", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    frame = re.compile(r"^[\s│┃━─┏┓┗┛┡┩└┘┌┐╇╈┼╋┳┻]+|[\s│┃━─┏┓┗┛┡┩└┘┌┐╇╈┼╋┳┻]+$")
    lines = [frame.sub("", line) for line in done.stdout.splitlines()]
    lines = [line for line in lines if line]
    assert lines[0] == "mpstudio doctor：本机上的训练"
    assert re.search(r"部分\s+[│┃]\s+检查项\s+[│┃]\s+状态\s+[│┃]\s+原因", done.stdout)
    assert any(line.startswith("本机可以正常训练：") for line in lines)
    assert "通过" in done.stdout and "MirroredStrategy 训练步" in done.stdout
    assert not english_in(lines, NAMES | machine_names(detect_hardware()))
    assert "报告已写入" in done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["summary"].startswith("Training works here")
    assert not CJK.search(out.read_text(encoding="utf-8"))


def test_mpstudio_doctor_help_and_errors_are_chinese(capsys, chinese, tmp_path):
    from mpstudio.cli import main

    with pytest.raises(SystemExit):
        main(["--lang", "zh_CN", "doctor", "--help"])
    help_text = "".join(capsys.readouterr().out.split())  # wrapped at the terminal's width
    for words in ("精简检查集：3个模型模板，各训练4步", "同时将报告写成一个独立的HTML页面",
                  "将报告以JSON格式输出到标准输出，不打印表格"):
        assert words in help_text
    assert main(["--lang", "zh_CN", "doctor", "--templates", "mlp,vgg"]) == 2
    err = capsys.readouterr().err
    assert "未知的模型模板 vgg；可选：" in err
    assert main(["--lang", "zh_CN", "doctor", "-o", str(tmp_path / "r"), "--json-out",
                 str(tmp_path / "r")]) == 2
    assert "--html 和 --json-out 指向同一个文件" in capsys.readouterr().err


# ---------------------------------------------------------------- the layout
@pytest.mark.parametrize("width", ["narrowest", 480])
def test_nothing_is_clipped_in_chinese(qtbot, chinese, tmp_path, width):
    """The panel at the narrowest width it allows and at a usual dock width, and the
    doctor dialog at its size: every label and button has the room its text needs, and
    the cards fit the scroll area (it only scrolls down)."""
    report = detect_hardware(machine(A100, GTX_970, cpu=cpu_from(SAPPHIRE_RAPIDS)))
    measurements = (measured("GPU:0", 0.003, 0.001, 0.00105, baseline="TF32"),)
    check = HardwareCheck(report, advise(report, measurements), measurements,
                          MemoryApplyResult("needs_restart", ""))
    panel = shown_panel(qtbot, check)
    if width == "narrowest":
        panel.resize(panel.minimumSizeHint().width(), 900)
    QApplication.processEvents()
    panel.grab().save(str(tmp_path / f"hardware_zh_{width}.png"))
    assert panel.scroll_area.widget().width() <= panel.scroll_area.viewport().width()
    assert not _clipped(panel, panel)

    dialog = DoctorDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.add_check(not_run("training", "mlp · float32"))
    dialog.show_report(DoctorReport((not_run("training", "mlp · float32"),), {}, (), {}, 1.0,
                                    stopped=True))
    QApplication.processEvents()
    dialog.grab().save(str(tmp_path / "doctor_zh.png"))
    assert not _clipped(dialog, dialog)


def _clipped(root, inside) -> list:
    found = []
    for widget in root.findChildren(QLabel) + root.findChildren(QAbstractButton):
        if not widget.isVisible() or not widget.text():
            continue
        if isinstance(widget, QLabel) and widget.wordWrap():
            need = widget.heightForWidth(widget.width())
            if need > widget.height() + 1:
                found.append((widget.text(), need, widget.height()))
        elif widget.sizeHint().width() > widget.width() + 1:
            found.append((widget.text(), widget.sizeHint().width(), widget.width()))
        right = widget.mapTo(root, widget.rect().topRight()).x()
        if right > inside.width():
            found.append((widget.text(), "outside", right))
    return found
