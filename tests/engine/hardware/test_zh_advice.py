"""The hardware advice, a run's event lines and the advisor's reason a run stores, in
Simplified Chinese: every sentence of the advice for a GPU, TPU and CPU machine, the
`mpstudio hw` tables, the verdict on a CPU run read back from the history (also one
recorded under English), and the lines of a real tiny run. ``--json`` stays English."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from mpstudio.engine import i18n
from mpstudio.engine.hardware.advisor import Advice, advise
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.gpu_memory import apply_gpu_memory
from mpstudio.engine.hardware.measurement import DeviceMeasurement, KernelResult
from mpstudio.engine.hardware.report import CpuInfo, HardwareReport, TpuInfo
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.said import Said, english

from support.history_fakes import started as fake_started
from support.history_fakes import summary as fake_summary
from support.language_check import LATIN_NAMES, english_words
from support.machines import (
    A100,
    EPYC_ZEN2,
    GRAVITON3,
    GTX_970,
    GTX_1080,
    GTX_1660,
    H100,
    RTX_5090,
    SAPPHIRE_RAPIDS,
    V100,
    cpu_from,
    machine,
    nvml_of,
)

# Names that stay in Latin letters here beside the glossary's: GPU architectures and
# units, instruction sets and CPU flags, kernels, environment variables and API names.
NAMES = LATIN_NAMES | {
    "Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ada", "Lovelace", "Hopper", "Blackwell",
    "GeForce", "Quadro", "TU116", "TU117", "FP8", "PTX", "MIG", "AMX", "oneDNN", "F16C", "x86",
    "TF_ENABLE_ONEDNN_OPTS", "CUDA_VISIBLE_DEVICES", "WSL2", "GCE", "ROCm", "matmul", "conv",
    "key_dim", "value_dim", "num_heads", "MiB", "GiB", "ms", "TFLOP", "S",
    "avx512f", "avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c", "asimdhp", "bf16",
    "sve", "x86_64", "aarch64",
}


def foreign(text: str, *names: str) -> list[str]:
    """The English words of ``text``, once the machine's own names are taken out."""
    for name in names:
        text = text.replace(name, " ")
    return english_words(text, NAMES)


@pytest.fixture
def chinese():
    i18n.set_language("zh_CN")
    yield
    i18n.set_language("en")


MEASURE_ERROR = "no bfloat16 conv here"  # TensorFlow's words, quoted as they are


def _measured(device: str, baseline: str, bf16_error: str = "") -> DeviceMeasurement:
    results = []
    for kernel in ("matmul", "conv"):
        results.append(KernelResult(kernel, "float32", kernel, 1e9, 0.010, 10))
        results.append(KernelResult(kernel, "float16", kernel, 1e9, 0.004, 10))
        results.append(KernelResult(kernel, "bfloat16", kernel, 1e9, None, error=bf16_error)
                       if bf16_error else KernelResult(kernel, "bfloat16", kernel, 1e9, 0.011))
    return DeviceMeasurement(device, baseline, device != "CPU", tuple(results))


# (name, hardware, measurements): a machine of each kind the advisor tells apart.
MACHINES = [
    ("V100", machine(V100), ()),
    ("A100 with TF32", machine(A100), ()),
    ("H100 measured", machine(H100), (_measured("GPU:0", "TF32", MEASURE_ERROR),)),
    ("GTX 1080", machine(GTX_1080), ()),
    ("GTX 1660", machine(GTX_1660), ()),
    ("RTX 5090 (PTX)", machine(RTX_5090), ()),
    ("A100 TensorFlow cannot use", machine(A100, tf_sees=False), ()),
    ("a GPU too old for this build", machine(GTX_970, nvml=nvml_of(GTX_970)), ()),
    ("TPU v4", machine(tpu=TpuInfo(True, "v4-8", 8, note="found")), ()),
    ("Sapphire Rapids", machine(cpu=cpu_from(SAPPHIRE_RAPIDS)), ()),
    ("oneDNN off", machine(cpu=cpu_from(SAPPHIRE_RAPIDS, onednn=False)), ()),
    ("EPYC measured", machine(cpu=cpu_from(EPYC_ZEN2)), (_measured("CPU", "float32"),)),
    ("Graviton", machine(cpu=cpu_from(GRAVITON3, "aarch64")), ()),
    ("no CPU flags", machine(cpu=CpuInfo("Apple M2", "arm64", 8, 8, None, flags_known=False)),
     ()),
]


def advice_texts(advice: Advice) -> list[str]:
    """Every sentence the advice shows: devices, verdicts and their reasons, notes,
    the run's recommendation, the tips."""
    texts = [advice.run_description, advice.run_reason]
    for device in advice.devices:
        texts += [device.description, device.default_reason, *device.notes]
        texts += [t for v in device.verdicts for t in (v.verdict.display, v.reason)]
    texts += [t for tip in advice.tips for t in tip]
    return texts


def machine_names(report: HardwareReport) -> list[str]:
    """What names the machine: its GPUs and CPU, the kernels its TensorFlow has, and
    what the crafted machines say in English of their own (a TPU note, a TensorFlow
    error of the measurement)."""
    return [g.name for g in report.gpus] + [report.cpu.model, *report.build.compiled_capabilities,
                                            MEASURE_ERROR, "not probed"]


@pytest.mark.parametrize(("name", "sources", "measured"), MACHINES, ids=[m[0] for m in MACHINES])
def test_the_advice_for_each_kind_of_machine_is_chinese(chinese, name, sources, measured):
    report = detect_hardware(sources)
    advice = advise(report, measured)
    for text in advice_texts(advice):
        assert text and foreign(text, *machine_names(report)) == [], (name, text)
    for gpu in report.gpus:  # what the detection found out, shown beside the advice
        for text in (gpu.not_visible_reason, gpu.arch.note, gpu.arch.tensor_cores_text,
                     gpu.arch.family_text):
            assert foreign(text, *machine_names(report)) == [], (name, text)


def test_key_sentences_read_as_a_chinese_practitioner_says_them(chinese):
    v100 = advise(detect_hardware(machine(V100))).device("GPU:0")
    assert v100.description == "Tesla V100-SXM2-16GB，计算能力 7.0"
    assert v100.verdict("mixed_float16").reason == (
        "第 1 代 Tensor Core（Volta）运行 float16 矩阵乘法和卷积的速率最高可达 float32 的 "
        "8x；模型只有在训练步受计算限制时（大批次、宽层、卷积）才有收益，训练步很短时则没有；"
        "动态损失缩放能保住小梯度")
    assert v100.verdict("mixed_bfloat16").verdict.display == "可用，但更慢"
    assert v100.verdict("mixed_bfloat16").reason == (
        "计算能力 8.0 以下没有 bfloat16 Tensor Core（此 GPU 为 7.0）：bfloat16 运算要经 "
        "float32 转换")
    cpu = advise(detect_hardware(machine(cpu=cpu_from(EPYC_ZEN2)))).device("CPU")
    assert cpu.description == "AMD EPYC 7B12，8 个逻辑核心"
    assert cpu.verdict("mixed_float16").reason == (
        "此 CPU 没有原生 float16 运算（F16C 只做转换）：float16 运算是模拟的，比 float32 更慢")
    measured = advise(detect_hardware(machine(cpu=cpu_from(EPYC_ZEN2))),
                      [_measured("CPU", "float32")]).device("CPU")
    assert measured.verdict("mixed_float16").reason == (
        "此处 float16 的速度为 float32 的 2.50x（matmul 2.50x, conv 2.50x）：使用它")
    assert [v.display for v in Verdict] == ["推荐", "可用，但不更快", "可用，但更慢",
                                            "需测量才知道", "不支持"]


class OneGpu:
    """A GPU whose memory settings can be applied (gpu_memory.GpuConfig)."""

    def gpus(self) -> list[str]:
        return ["GPU:0"]

    def growth(self, gpu: str) -> bool:
        return False

    def set_growth(self, gpu: str, on: bool) -> None:
        pass

    def limit_mb(self, gpu: str) -> int | None:
        return None

    def set_limit_mb(self, gpu: str, mb: int) -> None:
        pass


def check_json() -> str:
    """A whole hardware check (GPUs, one TensorFlow cannot use, a TPU, a measurement,
    the GPU memory settings applied) as ``mpstudio hw --json`` prints it."""
    from mpstudio.engine.app_settings import GpuMemorySettings

    report = detect_hardware(machine(A100, GTX_1660, GTX_970,
                                     tpu=TpuInfo(True, "v4-8", 8, note="found")))
    advice = advise(report, [_measured("GPU:0", "TF32", MEASURE_ERROR)])
    memory = apply_gpu_memory(GpuMemorySettings(growth=True), OneGpu())
    return json.dumps(HardwareCheck(report, advice, (), memory).to_dict(), indent=1)


def test_hw_json_is_the_same_english_in_every_language():
    """``mpstudio hw --json`` is for scripts: keys and English sentences, whatever the
    language the check ran in."""
    english_json = check_json()
    i18n.set_language("zh_CN")
    try:
        chinese_json = check_json()
    finally:
        i18n.set_language("en")
    assert chinese_json == english_json
    data = json.loads(english_json)
    a100 = data["advice"]["devices"][0]
    assert a100["description"] == "NVIDIA A100-SXM4-40GB, compute capability 8.0"
    assert a100["verdicts"][1]["verdict"] == "recommended"
    assert data["hardware"]["gpus"][0]["tensor_cores"] == "3rd gen"
    assert data["gpu_memory"]["message"] == "growth on (allocate as needed), applied to 1 GPU(s)"


def test_the_hw_tables_read_in_chinese(chinese, capsys, monkeypatch):
    from mpstudio.cli import hardware_tables as tables

    report = detect_hardware(machine(A100, GTX_1660, GTX_970, cpu=cpu_from(SAPPHIRE_RAPIDS)))
    advice = advise(report, [_measured("GPU:0", "TF32", MEASURE_ERROR),
                             _measured("CPU", "float32")])
    out = io.StringIO()
    console = Console(file=out, width=400, color_system=None)
    for part in (tables.build_line(report), tables.gpu_table(report), tables.tpu_line(report),
                 tables.cpu_line(report), tables.verdict_table(advice),
                 tables.measurement_table([_measured("CPU", "float32")]),
                 tables.advice_block(advice)):
        console.print(part)
    text = out.getvalue()
    assert "精度结论（* = 该设备的默认选择）" in text and "在此运行的推荐选择：" in text
    assert "GPU（未使用）" in text and "此 TensorFlow 没有适用于计算能力 5.2 的内核" in text
    assert foreign(text, *machine_names(report), "GPU:0", "float32") == []


def test_hw_in_chinese_on_this_machine(chinese, capsys, monkeypatch):
    from mpstudio.cli import main

    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setenv(i18n.ENV, "zh_CN")  # --lang sets it: put back after the test
    assert main(["--lang", "zh_CN", "hw"]) == 0
    out = capsys.readouterr().out
    report = detect_hardware()
    assert "在此运行的推荐选择：" in out
    # what a library said, quoted in a note ("NVML Shared Library Not Found")
    quoted = [note.stored["args"]["error"] for note in (report.nvml_note, report.tpu.note)
              if isinstance(note, Said) and "error" in note.stored["args"]]
    # a table cell may wrap the CPU's name ("Intel(R) Xeon(R)" / "Processor"): its words
    words = re.findall(r"[A-Za-z]+", report.cpu.model or "")
    assert foreign(out, *machine_names(report), report.cpu.architecture, *quoted,
                   *words) == []


def _record(store, precision: str, speed: float, hardware: dict) -> int:
    label = "float32 baseline" if precision == "float32" else precision
    run_id = store.begin_run(fake_started(label=label, precision=precision))
    store._conn.execute("UPDATE runs SET hardware = ? WHERE id = ?",
                        (json.dumps(hardware), run_id))
    store.finish_run(run_id, fake_summary(speed=speed, label=label, precision=precision,
                                          steps_done=500, val=0.9), None)
    return run_id


def _cpu_hardware(language: str) -> dict:
    """What a CPU run records about its hardware (run_context.hardware_snapshot), made
    in ``language``: the advisor's word on mixed_float16 on an EPYC CPU."""
    from mpstudio.engine.said import stored

    i18n.set_language(language)
    try:
        advice = advise(detect_hardware(machine(cpu=cpu_from(EPYC_ZEN2))))
        verdict = advice.device("CPU").verdict("mixed_float16")
        return {"device": "CPU (x86_64, 8 cores)", "advisor_device": stored(advice.run_description),
                "advisor_verdict": verdict.verdict.value, "advisor_reason": stored(verdict.reason)}
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("recorded_in", ["en", "zh_CN"])
def test_a_cpu_verdict_ends_with_the_advisors_reason_in_the_readers_language(tmp_path,
                                                                             recorded_in):
    """The reason is stored as its message: a run recorded under English reads in
    Chinese, and in English again for an English reader."""
    from mpstudio.engine.comparison.card import build_card
    from mpstudio.engine.history.store import RunStore

    path = tmp_path / "history.sqlite3"
    hardware = _cpu_hardware(recorded_in)
    with RunStore(path) as store:
        base = _record(store, "float32", 1000.0, {**hardware, "advisor_verdict": "recommended"})
        mixed = _record(store, "mixed_float16", 700.0, hardware)
    i18n.set_language("zh_CN")
    try:
        with RunStore(path) as store:
            card = build_card([store.run(base)], [store.run(mixed)])
        sentence = card.verdict.sentence
        assert card.verdict.kind == "slower"
        assert sentence.startswith("在此硬件上更慢：mixed_float16 的速度为 float32 的 0.70 倍")
        assert sentence.endswith("此 CPU 没有原生 float16 运算（F16C 只做转换）：float16 运算是"
                                 "模拟的，比 float32 更慢。")
        assert foreign(sentence) == []
    finally:
        i18n.set_language("en")
    with RunStore(path) as store:
        card = build_card([store.run(base)], [store.run(mixed)])
    assert card.verdict.sentence.endswith(
        "no native float16 arithmetic on this CPU (F16C only converts): float16 math is "
        "emulated, slower than float32.")


def test_an_older_plain_english_reason_still_shows(tmp_path):
    from mpstudio.engine.comparison.card import build_card
    from mpstudio.engine.history.store import RunStore

    hardware = {"device": "CPU (x86_64, 8 cores)", "advisor_reason": "an older reason"}
    with RunStore(tmp_path / "h.sqlite3") as store:
        base = _record(store, "float32", 1000.0, hardware)
        mixed = _record(store, "mixed_float16", 700.0, hardware)
        card = build_card([store.run(base)], [store.run(mixed)])
    assert card.verdict.sentence.endswith("an older reason.")


def test_the_memory_note_and_the_device_label_read_in_chinese(chinese):
    from mpstudio.engine.device_info import MemoryMeter, RunDevices
    from mpstudio.engine.event_text import peak_memory_text, summary_rows

    note = MemoryMeter(RunDevices("CPU", (), "CPU (x86_64, 4 cores)", "float32")).start().finish()
    assert note.note == "CPU 不报告此项" and english(note.note) == "not reported by the CPU"
    s = fake_summary(memory_note=note.note.stored, device="CPU (x86_64, 4 cores)")
    assert peak_memory_text(s) == "CPU 不报告此项"  # as the history gives it back
    rows = dict(summary_rows(s))
    assert rows["设备"] == "CPU（x86_64，4 核），XLA 关闭，fit 循环"
    for name, value in summary_rows(s):
        assert foreign(f"{name} {value}", "mixed_float16", "fit") == [], (name, value)


def test_the_lines_of_a_real_tiny_run_are_chinese(chinese, tiny_spec):
    """A mixed_float16 run on this machine, its events put into words by event_text."""
    from mpstudio.engine import event_text as et
    from mpstudio.engine.events import (
        CollectingReporter,
        EpochMetrics,
        LossScaleChanged,
        RunFinished,
        RunStarted,
    )
    from mpstudio.engine.trainer.runner import run

    spec = tiny_spec.replace(precision="mixed_float16", epochs=2)
    reporter = CollectingReporter()
    run(spec, reporter)
    (start,) = reporter.of_type(RunStarted)
    lines = dict(et.started_lines(start))
    assert lines["model"].startswith("mlp：") and "精度策略 mixed_float16" in lines["model"]
    assert lines["scaling"].startswith("动态损失缩放，从 32768 开始")
    texts = [et.topic_text(t) for t in lines] + [lines[t] for t in
                                                  ("model", "steps", "device", "scaling")]
    texts += [et.epoch_line(start.label, e) for e in reporter.of_type(EpochMetrics)]
    texts += [et.loss_scale_line(e) for e in reporter.of_type(LossScaleChanged)]
    (finished,) = reporter.of_type(RunFinished)
    s = finished.summary
    texts.append(et.summary_line(s))
    texts += [f"{name} {value}" for name, value in et.summary_rows(s)]
    for text in texts:
        assert foreign(text, start.label, s.loop, "mlp") == [], text
    assert et.epoch_line(start.label, reporter.of_type(EpochMetrics)[0]).startswith(
        "mixed_float16 第 1 轮：损失 ")
