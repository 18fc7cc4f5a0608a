"""The hardware report as short (label, text) rows for the hardware panel's forms.

No widgets here, so the wording can be tested without a window (the words are marked
for Qt's translation, context "HardwareFacts"). It says what ``mpstudio hw`` says
(cli/hardware_tables.py), arranged for a narrow desktop panel. The report's own notes
are the hardware check's sentences, already in the user's language.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from mpstudio.engine.hardware.measurement import HALF_DTYPES, DeviceMeasurement
from mpstudio.engine.hardware.report import CPU_FLAGS, CpuInfo, GpuInfo, HardwareReport, TpuInfo
from mpstudio.engine.prediction.measurement import ModelMeasurement
from mpstudio.engine.said import render

Rows = list[tuple[str, str]]
_X86_FLAGS = ("avx512f", "avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c")


def gib(value: int | None) -> str:
    return (QCoreApplication.translate("HardwareFacts", "n/a") if value is None
            else f"{value / 2**30:.1f} GiB")


def _yes_no(value: bool) -> str:
    return (QCoreApplication.translate("HardwareFacts", "yes") if value
            else QCoreApplication.translate("HardwareFacts", "no"))


def gpu_facts(gpu: GpuInfo) -> Rows:
    arch = gpu.arch
    rows = [(QCoreApplication.translate("HardwareFacts", "Architecture"),
             QCoreApplication.translate("HardwareFacts", "{family} · compute capability "
                                        "{capability}").format(
                 family=render(arch.family_text), capability=gpu.capability_text))]
    if arch.tensor_core_generation:
        cores = QCoreApplication.translate(
            "HardwareFacts", "{generation} · float16 {float16} · bfloat16 {bfloat16}").format(
                generation=render(arch.tensor_cores_text),
                float16=_yes_no(arch.float16_tensor_cores),
                bfloat16=_yes_no(arch.bfloat16_tensor_cores))
    else:
        cores = QCoreApplication.translate("HardwareFacts", "none · float16 no · bfloat16 no")
    rows.append((QCoreApplication.translate("HardwareFacts", "Tensor Cores"), cores))
    if gpu.memory_total is not None:
        total = gib(gpu.memory_total)
        rows.append((QCoreApplication.translate("HardwareFacts", "Memory"),
                     total if gpu.memory_used is None else QCoreApplication.translate(
                         "HardwareFacts", "{used} of {total} in use").format(
                             used=gib(gpu.memory_used), total=total)))
    if gpu.driver_version:
        rows.append((QCoreApplication.translate("HardwareFacts", "Driver"), gpu.driver_version))
    return rows


def cpu_flags_text(cpu: CpuInfo) -> str:
    if not cpu.flags_known:
        return QCoreApplication.translate("HardwareFacts", "not readable on this OS")
    names = _X86_FLAGS if cpu.architecture.lower() in ("x86_64", "amd64") else CPU_FLAGS
    has = [f for f in names if cpu.has(f)]
    lacks = [f for f in names if not cpu.has(f)]
    parts = [QCoreApplication.translate("HardwareFacts", "has {flags}").format(
                 flags=" ".join(has)) if has else "",
             QCoreApplication.translate("HardwareFacts", "lacks {flags}").format(
                 flags=" ".join(lacks)) if lacks else ""]
    return QCoreApplication.translate("HardwareFacts", "; ").join(p for p in parts if p)


def cpu_facts(cpu: CpuInfo) -> Rows:
    if cpu.physical_cores:
        cores = QCoreApplication.translate(
            "HardwareFacts", "{logical} logical / {physical} physical cores").format(
                logical=cpu.logical_cores, physical=cpu.physical_cores)
    else:
        cores = QCoreApplication.translate("HardwareFacts", "{logical} logical cores").format(
            logical=cpu.logical_cores)
    rows = [(QCoreApplication.translate("HardwareFacts", "Architecture"),
             f"{cpu.architecture} · {cores}"),
            (QCoreApplication.translate("HardwareFacts", "Memory"),
             QCoreApplication.translate("HardwareFacts", "{size} RAM").format(
                 size=gib(cpu.memory_total))),
            (QCoreApplication.translate("HardwareFacts", "Half-precision flags"),
             cpu_flags_text(cpu))]
    if not cpu.onednn:
        rows.append(("oneDNN", QCoreApplication.translate(
            "HardwareFacts", "off: TensorFlow's AMX/AVX-512 BF16 kernels are not used")))
    return rows


def tpu_facts(tpu: TpuInfo) -> Rows:
    kind = tpu.accelerator_type or QCoreApplication.translate("HardwareFacts", "type unknown")
    return [(QCoreApplication.translate("HardwareFacts", "Type"),
             QCoreApplication.translate("HardwareFacts", "{kind}, {cores} cores").format(
                 kind=kind, cores=tpu.cores)),
            (QCoreApplication.translate("HardwareFacts", "Found"),
             render(tpu.note) or QCoreApplication.translate("HardwareFacts", "yes"))]


def build_facts(report: HardwareReport) -> Rows:
    """TensorFlow's build, the TPU probe and why NVML said nothing, as form rows."""
    b = report.build
    build = QCoreApplication.translate("HardwareFacts", "Build")
    rows = [("TensorFlow", f"{b.tensorflow} · Keras {b.keras}")]
    if b.cuda_build:
        cuda = f"CUDA {b.cuda_version or '?'}, cuDNN {b.cudnn_version or '?'}"
        if b.compiled_capabilities:
            cuda = QCoreApplication.translate("HardwareFacts", "{cuda} · kernels for "
                                              "{capabilities}").format(
                cuda=cuda, capabilities=" ".join(b.compiled_capabilities))
        rows.append((build, cuda))
        if report.usable_gpus:
            rows.append(("TF32", QCoreApplication.translate(
                "HardwareFacts", "on: float32 matmuls run as TF32 on Ampere and newer")
                if b.tf32_enabled else QCoreApplication.translate(
                    "HardwareFacts", "off: float32 is true float32")))
    elif b.rocm_build:
        rows.append((build, "ROCm"))
    else:
        rows.append((build, QCoreApplication.translate(
            "HardwareFacts", "CPU-only: this TensorFlow cannot use a GPU")))
    none = QCoreApplication.translate("HardwareFacts", "none")
    if not report.tpu.found:
        rows.append(("TPU", QCoreApplication.translate("HardwareFacts", "none ({note})").format(
            note=render(report.tpu.note)) if report.tpu.note else none))
    if not report.gpus:
        rows.append(("GPUs", QCoreApplication.translate(
            "HardwareFacts", "none: TensorFlow sees no GPU ({note})").format(
                note=render(report.nvml_note)) if report.nvml_note else
            QCoreApplication.translate("HardwareFacts", "none: TensorFlow sees no GPU")))
    elif report.nvml_note:
        rows.append(("NVML", QCoreApplication.translate(
            "HardwareFacts", "{note}: memory use and driver not shown").format(
                note=render(report.nvml_note))))
    return rows


def measurement_caption(m: DeviceMeasurement) -> str:
    if m.stopped:
        text = (QCoreApplication.translate(
                    "HardwareFacts", "Timed forward + backward with XLA on; float32 ran as "
                    "{baseline} · stopped early") if m.xla else QCoreApplication.translate(
                    "HardwareFacts", "Timed forward + backward with XLA off; float32 ran as "
                    "{baseline} · stopped early"))
    else:
        text = (QCoreApplication.translate(
                    "HardwareFacts", "Timed forward + backward with XLA on; float32 ran as "
                    "{baseline}") if m.xla else QCoreApplication.translate(
                    "HardwareFacts", "Timed forward + backward with XLA off; float32 ran as "
                    "{baseline}"))
    return text.format(baseline=m.baseline)


def measurement_rows(m: DeviceMeasurement) -> list[list[str]]:
    """A header row, then per kernel its shape and TFLOP/s per dtype, each half type
    with its speed against float32 (what the CLI's measurement table shows)."""
    rows = [["TFLOP/s", "float32", *HALF_DTYPES]]
    for kernel in m.kernels:
        base = m.result(kernel, "float32") or m.results[0]
        cells = [base.shape]
        for dtype in ("float32", *HALF_DTYPES):
            result = m.result(kernel, dtype)
            if result is None:
                cells.append(QCoreApplication.translate("HardwareFacts", "not run"))
            elif result.error or result.tflops is None:
                cells.append(QCoreApplication.translate("HardwareFacts", "failed"))
            else:
                ratio = m.kernel_speedup(kernel, dtype) if dtype != "float32" else None
                cells.append(f"{result.tflops:.3g}"
                             + (f" ({ratio:.2f}x)" if ratio is not None else ""))
        rows.append(cells)
    return rows


def ratio_text(policy: str, measured: float | None) -> str:
    """The measured speed against float32 (float32 itself is the 1.00x baseline)."""
    if policy == "float32":
        return "1.00x"
    return f"{measured:.2f}x" if measured is not None else "—"


def model_caption(m: ModelMeasurement) -> str:
    """What the setup's model measurement timed, and how (the card's evidence)."""
    from mpstudio.engine.templates.user_model import model_name, own_inputs_text

    text = QCoreApplication.translate(
        "HardwareFacts", "Your model timed here: {model} at batch {batch} on {data}, "
        "{seconds} s a precision after a {warmup}-step warm-up; float32 ran as "
        "{baseline}").format(
            model=model_name(m.template), batch=m.batch_size, data=m.timed_on(),
            seconds=f"{m.seconds_per_precision:g}", warmup=m.warmup_steps, baseline=m.baseline)
    if m.own_inputs:
        text += " · " + render(own_inputs_text(m.input_shape, m.classes))
    if m.stopped:
        text += " · " + QCoreApplication.translate("HardwareFacts", "stopped early")
    return text


def model_rows(m: ModelMeasurement, predicted: dict[str, float]) -> list[list[str]]:
    """A header row, then per precision its examples/s (± half the windows' spread), its
    speed against float32 and what the prediction said."""
    rows = [["", QCoreApplication.translate("HardwareFacts", "examples/s"),
             QCoreApplication.translate("HardwareFacts", "measured"),
             QCoreApplication.translate("HardwareFacts", "predicted")]]
    for p in m.precisions:
        if not p.ok:
            rows.append([p.precision, QCoreApplication.translate("HardwareFacts", "failed"),
                         "—", "—"])
            continue
        guess = predicted.get(p.precision)
        rows.append([p.precision,
                     f"{p.examples_per_s or 0.0:,.0f} ±{(p.spread or 0.0) / 2:.0%}",
                     ratio_text(p.precision, p.speedup),
                     "—" if guess is None else ratio_text(p.precision, guess)])
    return rows


def model_failures(m: ModelMeasurement) -> list[str]:
    """Why a precision could not be timed (out of memory at this batch...), one line each."""
    return [QCoreApplication.translate("HardwareFacts", "{precision} failed: {reason}").format(
        precision=p.precision, reason=render(p.failure)) for p in m.precisions if not p.ok]
