"""The hardware panel shows injected machines' checks (no TensorFlow), drives the
check/measure/stop buttons through its states, and saves the GPU memory settings."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mpstudio.engine.app_settings import GpuMemorySettings, load_settings, settings_path
from mpstudio.engine.hardware.gpu_memory import RESTART, MemoryApplyResult
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.ui.hardware.hardware_panel import RUN_ACTIVE_TIP, HardwarePanel
from mpstudio.ui.setup.verdict_marks import (
    mark_color,
    precision_choice_text,
    verdict_marks,
)
from mpstudio.ui.theme import colors

from support.hardware_checks import check_of, measured
from support.machines import (
    A100,
    CPU_ONLY_BUILD,
    EPYC_ZEN2,
    GTX_970,
    SAPPHIRE_RAPIDS,
    cpu_from,
    machine,
)

POLICIES = ("float32", "mixed_float16", "mixed_bfloat16")


@pytest.fixture
def panel(qtbot) -> HardwarePanel:
    widget = HardwarePanel()
    qtbot.addWidget(widget)
    widget.resize(480, 760)
    widget.show()
    return widget


def cards_by_device(panel: HardwarePanel) -> dict:
    return {card.device: card for card in panel.device_cards()}


# ------------------------------------------------------------------ verdict marks
def test_verdict_marks_for_the_setup_panel():
    advice = check_of(machine(A100)).advice
    marks = verdict_marks(advice, "GPU:0")
    assert {p: m for p, (m, _) in marks.items()} == {
        "float32": "works but slower", "mixed_float16": "recommended",
        "mixed_bfloat16": "recommended", "float8": "not supported"}  # A100: 8.0 < 8.9
    assert marks["mixed_bfloat16"][1] == advice.device("GPU:0").verdict("mixed_bfloat16").reason
    assert verdict_marks(advice, "TPU") == {}
    zen2 = verdict_marks(check_of(machine(cpu=cpu_from(EPYC_ZEN2))).advice, "CPU")
    assert zen2["mixed_float16"][0] == "works but slower" and "F16C" in zen2["mixed_float16"][1]
    unused = verdict_marks(check_of(machine(A100, tf_sees=False)).advice, "GPU (unused)")
    assert {m for m, _ in unused.values()} == {"not supported"}
    assert precision_choice_text("mixed_float16", "recommended") == \
        "mixed_float16 — recommended"
    assert precision_choice_text("float32", "") == "float32"
    assert mark_color("recommended") == colors().verdict[Verdict.RECOMMENDED]
    assert mark_color("not supported") == colors().verdict[Verdict.UNSUPPORTED]
    assert mark_color("") == ""


# ------------------------------------------------------------------ what is shown
def test_a100_machine_shows_devices_verdicts_and_advice(panel):
    check = check_of(machine(A100))
    panel.show_check(check)
    assert panel.check is check
    view = panel.view
    assert "Recommended here:" in view.recommendation_label.text()
    assert "mixed_float16" in view.recommendation_label.text()
    assert "GPU:0" in view.recommendation_label.text()
    assert "Tensor Cores" in view.reason_label.text()
    cards = cards_by_device(panel)
    assert list(cards) == ["GPU:0", "CPU"]
    gpu = cards["GPU:0"]
    texts = [label.text() for label in gpu.findChildren(type(view.reason_label))]
    assert "Ampere · compute capability 8.0" in texts
    assert "3rd gen · float16 yes · bfloat16 yes" in texts
    verdicts = {p: gpu.verdict_labels[p].text() for p in POLICIES}
    assert verdicts == {"float32": "works but slower", "mixed_float16": "recommended",
                        "mixed_bfloat16": "recommended"}
    verdict = colors().verdict
    assert verdict[Verdict.RECOMMENDED] in gpu.verdict_labels["mixed_bfloat16"].styleSheet()
    assert verdict[Verdict.SLOWER] in gpu.verdict_labels["float32"].styleSheet()
    assert "no loss scaling" in gpu.reason_labels["mixed_bfloat16"].text()
    assert "TF32" in gpu.reason_labels["float32"].text()
    assert gpu.ratio_labels == {}  # nothing measured yet
    assert "(default)" in next(t for t in texts if t.startswith("<b>mixed_float16"))
    cpu = cards["CPU"]
    assert cpu.verdict_labels["mixed_bfloat16"].text() == "works but slower"
    assert "F16C only converts" in cpu.reason_labels["mixed_float16"].text()
    assert "Measure times matmul and conv" in view.measurement_label.text()
    tips = " ".join(t.text() for t in view.tip_labels)
    assert len(view.tip_labels) == len(check.advice.tips)
    assert "multiples of 8" in tips and A100[0] in tips
    assert dict(view.build_rows)["Build"].startswith("CUDA 12.5.1, cuDNN 9")


def test_cpu_only_machine(panel):
    panel.show_check(check_of(machine(build=CPU_ONLY_BUILD, cpu=cpu_from(SAPPHIRE_RAPIDS))))
    assert list(cards_by_device(panel)) == ["CPU"]
    view = panel.view
    assert "mixed_bfloat16" in view.recommendation_label.text()
    assert "on <b>CPU</b>" in view.recommendation_label.text()
    cpu = cards_by_device(panel)["CPU"]
    assert cpu.verdict_labels["mixed_bfloat16"].text() == "recommended"
    assert cpu.verdict_labels["mixed_float16"].text() == "measure to know"
    assert colors().verdict[Verdict.MEASURE] in cpu.verdict_labels["mixed_float16"].styleSheet()
    rows = dict(view.build_rows)
    assert rows["Build"].startswith("CPU-only")
    assert rows["GPUs"].startswith("none")
    assert cpu.facts["Half-precision flags"] == (
        "has avx512f avx512_bf16 amx_bf16 avx512_fp16 f16c; lacks amx_fp16")


def test_a_gpu_tensorflow_cannot_use_is_shown_with_its_reason(panel):
    panel.show_check(check_of(machine(A100, GTX_970)))
    cards = panel.device_cards()
    assert [c.device for c in cards] == ["GPU:0", "GPU (unused)", "CPU"]
    unused = cards[1]
    assert unused.unusable_label is not None
    assert "TensorFlow cannot use this GPU" in unused.unusable_label.text()
    assert "no kernels for compute capability 5.2" in unused.unusable_label.text()
    assert unused.verdict_labels == {}  # one line of why, not three "not supported" rows
    assert cards[0].unusable_label is None
    # No GPU TensorFlow can use: the run goes to the CPU, the reason names the fix.
    panel.show_check(check_of(machine(A100, tf_sees=False)))
    cards = panel.device_cards()
    assert [c.device for c in cards] == ["GPU (unused)", "CPU"]
    assert "mpstudio[cuda]" in cards[0].unusable_label.text()
    assert "on <b>CPU</b>" in panel.view.recommendation_label.text()


def test_measured_ratios_and_timings(panel):
    measurements = [measured("GPU:0", 0.003, 0.001, 0.00105, baseline="TF32"),
                    measured("CPU", 0.010, 0.020, 0.050)]
    panel.show_check(check_of(machine(A100, GTX_970), measurements))
    cards = cards_by_device(panel)
    gpu, cpu = cards["GPU:0"], cards["CPU"]
    assert {p: gpu.ratio_labels[p].text() for p in POLICIES} == {
        "float32": "1.00x", "mixed_float16": "3.00x", "mixed_bfloat16": "2.86x"}
    assert gpu.reason_labels["mixed_float16"].text().startswith("float16 was 3.00x TF32 here")
    assert cpu.ratio_labels["mixed_float16"].text() == "0.50x"
    assert cpu.verdict_labels["mixed_float16"].text() == "works but slower"
    assert cpu.verdict_labels["float32"].text() == "recommended"
    assert "float32 ran as TF32" in gpu.measurement_label.text()
    timings = [[label.text() for label in row] for row in gpu.timing_labels]
    assert timings[0] == ["TFLOP/s", "float32", "float16", "bfloat16"]
    assert timings[1] == ["matmul 512x512x512", "0.333", "1 (3.00x)", "0.952 (2.86x)"]
    assert cards["GPU (unused)"].timing_labels == []
    assert "Verdicts use the measurement" in panel.view.measurement_label.text()


def test_a_stopped_measurement_says_so(panel):
    stopped = measured("CPU", 0.010, 0.020, 0.050, stopped=True)
    panel.show_check(check_of(machine(), [stopped]))
    assert "stopped early" in panel.view.measurement_label.text()
    assert "stopped early" in cards_by_device(panel)["CPU"].measurement_label.text()


def test_a_new_check_replaces_the_old_one(panel, qtbot):
    panel.show_check(check_of(machine(A100, GTX_970)))
    old = panel.view
    panel.show_check(check_of(machine()))
    assert [c.device for c in panel.device_cards()] == ["CPU"]
    qtbot.waitUntil(lambda: panel.findChildren(type(old)) == [panel.view])


# ------------------------------------------------------------------ button states
def test_waiting_then_check(panel):
    panel.show_waiting("Loading TensorFlow…")
    assert not panel.check_button.isEnabled() and not panel.measure_button.isEnabled()
    assert not panel.stop_button.isEnabled()
    assert panel.progress_bar.isVisible() and panel.progress_bar.maximum() == 0  # busy bar
    assert panel.status_label.text() == "Loading TensorFlow…"
    panel.show_check(check_of(machine()))
    assert panel.check_button.isEnabled() and panel.measure_button.isEnabled()
    assert not panel.progress_bar.isVisible() and not panel.status_label.isVisible()


def test_measure_progress_and_stop(panel, qtbot):
    panel.show_check(check_of(machine(A100)))
    panel.seconds_spin.setValue(0.3)
    with qtbot.waitSignal(panel.measure_requested) as request:
        panel.measure_button.click()
    assert request.args == [pytest.approx(0.3)]
    assert not panel.measure_button.isEnabled() and not panel.check_button.isEnabled()
    assert panel.stop_button.isEnabled()
    panel.set_busy(True, "Measuring…")  # what the main window says when its worker starts
    assert panel.stop_button.isEnabled()
    panel.set_progress(3, 12, "GPU:0 conv float16")
    assert (panel.progress_bar.value(), panel.progress_bar.maximum()) == (3, 12)
    assert "GPU:0 conv float16" in panel.status_label.text()
    assert "3 of 12" in panel.status_label.text()
    with qtbot.waitSignal(panel.stop_requested):
        panel.stop_button.click()
    assert not panel.stop_button.isEnabled() and panel.status_label.text() == "Stopping…"
    panel.set_progress(4, 12, "GPU:0 conv bfloat16")  # a late report does not undo it
    assert panel.status_label.text() == "Stopping…" and not panel.stop_button.isEnabled()
    panel.show_check(check_of(machine(A100)))
    assert panel.measure_button.isEnabled() and not panel.stop_button.isEnabled()


def test_check_again_is_not_stoppable(panel, qtbot):
    panel.show_check(check_of(machine()))
    with qtbot.waitSignal(panel.check_requested):
        panel.check_button.click()
    assert not panel.check_button.isEnabled() and not panel.stop_button.isEnabled()
    panel.set_busy(True, "Checking…")
    assert not panel.stop_button.isEnabled()
    panel.set_busy(False)
    assert panel.check_button.isEnabled() and panel.measure_button.isEnabled()


def test_a_run_disables_measure_and_check_and_says_why(panel):
    panel.show_check(check_of(machine()))
    panel.set_run_active(True)
    assert not panel.measure_button.isEnabled() and not panel.check_button.isEnabled()
    assert panel.measure_button.toolTip() == RUN_ACTIVE_TIP
    assert "distort" in RUN_ACTIVE_TIP
    panel.show_check(check_of(machine()))  # a check arriving mid-run keeps them off
    assert not panel.measure_button.isEnabled()
    panel.set_run_active(False)
    assert panel.measure_button.isEnabled()
    assert panel.measure_button.toolTip() != RUN_ACTIVE_TIP


def test_show_error_lets_the_user_retry(panel):
    panel.show_waiting("Loading TensorFlow…")
    panel.show_error("ImportError: libcudart.so.12: cannot open shared object file")
    assert panel.error_label.isVisible()
    assert "libcudart.so.12" in panel.error_label.text()
    assert panel.check_button.isEnabled() and panel.measure_button.isEnabled()
    assert not panel.progress_bar.isVisible()
    assert panel.check is None and "Check again" in panel.placeholder.text()
    panel.show_check(check_of(machine()))
    assert not panel.error_label.isVisible()


# ------------------------------------------------------------------ layout
def test_long_reasons_wrap_at_dock_width(panel, qtbot):
    panel.resize(420, 700)
    panel.show_check(check_of(machine(A100, GTX_970), [measured("GPU:0", 3e-3, 1e-3, 1e-3)]))
    reasons = [label for card in panel.device_cards() for label in card.reason_labels.values()]

    def fits() -> None:  # retried until the event loop has laid the new view out
        viewport = panel.scroll_area.viewport().width()
        assert panel.view.isVisible()
        assert panel.scroll_area.widget().minimumSizeHint().width() <= viewport
        for card in panel.device_cards():
            assert 0 < card.geometry().right() <= viewport
        for label in reasons:
            assert label.wordWrap()
            assert label.height() >= label.heightForWidth(label.width()) > 0  # not cut off

    qtbot.waitUntil(fits)
    assert max(label.height() for label in reasons) > 2 * reasons[0].fontMetrics().height()


def test_the_panel_does_not_import_tensorflow():
    code = ("import sys, mpstudio.ui.hardware.hardware_panel\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ GPU memory
def test_memory_settings_round_trip(panel, qtbot):
    form = panel.memory_form
    assert str(settings_path()) in form.path_label.text()
    assert not form.save_button.isEnabled()  # nothing changed yet
    form.growth_box.setChecked(True)
    with qtbot.waitSignal(panel.memory_settings_changed) as saved:
        form.save_button.click()
    assert saved.args == [GpuMemorySettings(growth=True)]
    assert load_settings().gpu_memory == GpuMemorySettings(growth=True)
    assert "growth on" in form.file_label.text()
    form.limit_spin.setValue(4096)  # a limit replaces growth
    assert not form.growth_box.isChecked()
    with qtbot.waitSignal(panel.memory_settings_changed):
        form.save_button.click()
    assert load_settings().gpu_memory == GpuMemorySettings(growth=False, limit_mb=4096)
    assert "[gpu_memory]" in settings_path().read_text()
    reopened = HardwarePanel()  # a new panel shows what was saved
    qtbot.addWidget(reopened)
    assert reopened.memory_form.limit_spin.value() == 4096
    assert not reopened.memory_form.growth_box.isChecked()
    reopened.memory_form.growth_box.setChecked(True)  # growth replaces the limit
    assert reopened.memory_form.limit_spin.value() == 0
    assert reopened.memory_form.limit_spin.text() == "no limit"
    assert reopened.memory_form.settings() == GpuMemorySettings(growth=True)


def test_a_limit_below_64_mib_is_refused_without_writing(panel, qtbot):
    form = panel.memory_form
    form.limit_spin.setValue(16)
    with qtbot.assertNotEmitted(panel.memory_settings_changed):
        form.save_button.click()
    assert ">= 64" in form.file_label.text()
    assert not settings_path().exists()


def test_a_broken_settings_file_is_shown_not_fatal_and_not_overwritten(qtbot):
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("gpu_memory = [")
    panel = HardwarePanel()
    qtbot.addWidget(panel)
    form = panel.memory_form
    assert "not valid TOML" in form.file_label.text() and str(path) in form.file_label.text()
    form.growth_box.setChecked(True)
    with qtbot.assertNotEmitted(panel.memory_settings_changed):
        form.save_button.click()
    assert path.read_text() == "gpu_memory = ["
    assert "not valid TOML" in form.file_label.text()


def test_wrong_values_are_named_and_a_save_repairs_them(qtbot):
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("[gpu_memory]\ngrowth = 3\n")
    panel = HardwarePanel()
    qtbot.addWidget(panel)
    form = panel.memory_form
    assert "growth must be true or false" in form.file_label.text()
    assert "Saving replaces" in form.file_label.text()
    assert form.save_button.isEnabled()
    with qtbot.waitSignal(panel.memory_settings_changed):
        form.save_button.click()
    assert load_settings().gpu_memory == GpuMemorySettings()


def test_apply_results_are_shown(panel):
    form = panel.memory_form
    panel.show_memory_result("needs_restart", RESTART)
    assert form.apply_label.text().startswith("Takes effect at next launch")
    assert colors().verdict[Verdict.SLOWER] in form.apply_label.styleSheet()
    failed = MemoryApplyResult("failed", "settings file x: growth must be true or false")
    panel.show_check(check_of(machine(), memory=failed))
    assert form.apply_label.text().startswith("Not applied: settings file x")
    assert colors().verdict[Verdict.UNSUPPORTED] in form.apply_label.styleSheet()
