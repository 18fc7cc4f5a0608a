"""The hardware check as rich tables for the terminal (``mpstudio hw``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mpstudio.engine.hardware.advisor import Advice
from mpstudio.engine.hardware.measurement import HALF_DTYPES, DeviceMeasurement
from mpstudio.engine.hardware.report import CPU_FLAGS, HardwareReport
from mpstudio.engine.hardware.verdict_rules import Verdict, gpu_notes

VERDICT_STYLE = {
    Verdict.RECOMMENDED: "bold green", Verdict.NO_GAIN: "yellow", Verdict.SLOWER: "yellow",
    Verdict.MEASURE: "cyan", Verdict.UNSUPPORTED: "red",
}
_X86_FLAGS = ("avx512f", "avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c")


def _gib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**30:.1f} GiB"


def build_line(report: HardwareReport) -> str:
    b = report.build
    parts = [f"TensorFlow {b.tensorflow}", f"Keras {b.keras}"]
    if b.cuda_build:
        parts.append(f"CUDA {b.cuda_version or '?'}, cuDNN {b.cudnn_version or '?'}")
        if b.compiled_capabilities:
            parts.append("kernels for " + " ".join(b.compiled_capabilities))
        if report.usable_gpus:
            parts.append(f"TF32 {'on' if b.tf32_enabled else 'off'}")
    elif b.rocm_build:
        parts.append("ROCm build")
    else:
        parts.append("CPU-only build")
    return " · ".join(parts)


def gpu_table(report: HardwareReport) -> RenderableType:
    if not report.gpus:
        note = f"; {report.nvml_note}" if report.nvml_note else ""
        return Text(f"GPUs: none (TensorFlow sees no GPU{note})")
    drivers = sorted({g.driver_version for g in report.gpus if g.driver_version})
    title = f"GPUs (driver {', '.join(drivers)})" if drivers else "GPUs"
    table = Table(title=title, title_justify="left")
    for column in ("device", "name", "compute cap.", "architecture", "Tensor Cores",
                   "bfloat16", "memory in use"):
        table.add_column(column, overflow="fold")
    for gpu in report.gpus:
        arch = gpu.arch
        used = "n/a"
        if gpu.memory_total is not None and gpu.memory_used is not None:
            used = f"{gpu.memory_used / 2**30:.1f} / {_gib(gpu.memory_total)}"
        table.add_row(gpu.label, gpu.name, gpu.capability_text, arch.family,
                      arch.tensor_cores_label, "yes" if arch.bfloat16_tensor_cores else "no",
                      used)
    notes = [f"{g.label} {g.name}: {note}" for g in report.gpus
             for note in gpu_notes(g, report.build)]
    notes += [f"{g.name}: not used by TensorFlow: {g.not_visible_reason}"
              for g in report.gpus if not g.visible_to_tensorflow]
    if report.nvml_note:
        notes.append(f"{report.nvml_note}: memory use and driver version not shown")
    return Group(table, *(Text(f"  note: {n}") for n in notes))


def cpu_line(report: HardwareReport) -> str:
    cpu = report.cpu
    cores = f"{cpu.logical_cores} logical"
    if cpu.physical_cores:
        cores += f" / {cpu.physical_cores} physical"
    names = _X86_FLAGS if cpu.architecture.lower() in ("x86_64", "amd64") else CPU_FLAGS
    if cpu.flags_known:
        has = [f for f in names if cpu.has(f)]
        lacks = [f for f in names if not cpu.has(f)]
        flags = "; ".join(part for part in (
            f"has {' '.join(has)}" if has else "", f"lacks {' '.join(lacks)}" if lacks else ""
        ) if part)
    else:
        flags = "flags not readable on this OS"
    onednn = "" if cpu.onednn else " · oneDNN off"
    return (f"CPU: {cpu.model} ({cpu.architecture}), {cores} cores, "
            f"{_gib(cpu.memory_total)} RAM · {flags}{onednn}")


def tpu_line(report: HardwareReport) -> str:
    tpu = report.tpu
    if tpu.found:
        return f"TPU: {tpu.accelerator_type or 'type unknown'}, {tpu.cores} cores ({tpu.note})"
    return f"TPU: none ({tpu.note})"


def verdict_table(advice: Advice) -> Table:
    table = Table(title="Precision verdicts (* = default for that device)",
                  title_justify="left")
    for column in ("device", "policy", "verdict", "why"):
        table.add_column(column, overflow="fold")
    for device in advice.devices:
        for i, v in enumerate(device.verdicts):
            mark = " *" if v.policy == device.default else ""
            table.add_row(device.device if i == 0 else "", v.policy + mark,
                          Text(v.verdict.value, style=VERDICT_STYLE[v.verdict]), v.reason,
                          end_section=i == len(device.verdicts) - 1)
    return table


def measurement_table(measurements: Sequence[DeviceMeasurement]) -> Table:
    table = Table(title="Measured: forward + backward, TFLOP/s (x = speed vs float32)",
                  title_justify="left")
    for column in ("device", "kernel", "float32", "float16", "bfloat16"):
        table.add_column(column, justify="left" if column in ("device", "kernel") else "right")
    for m in measurements:
        for kernel in m.kernels:
            cells = []
            for dtype in ("float32", *HALF_DTYPES):
                result = m.result(kernel, dtype)
                if result is None:
                    cells.append("not run")
                elif result.error:
                    cells.append(Text("failed", style="red"))
                else:
                    ratio = m.kernel_speedup(kernel, dtype) if dtype != "float32" else None
                    suffix = f" ({ratio:.2f}x)" if ratio is not None else ""
                    cells.append(f"{result.tflops:.3g}{suffix}")
            shape = (m.result(kernel, "float32") or m.results[0]).shape
            first = kernel == m.kernels[0]
            label = f"{m.device}\nXLA {'on' if m.xla else 'off'}, baseline {m.baseline}"
            table.add_row(label if first else "", shape, *cells,
                          end_section=kernel == m.kernels[-1])
    return table


def advice_block(advice: Advice) -> Group:
    head = Text.assemble(("Recommended for a run here: ", "bold"),
                         (advice.run_policy, "bold green"),
                         f" on {advice.run_device} ({advice.run_description}): "
                         f"{advice.run_reason}")
    tips = [Text.assemble("  • ", (title, "bold"), f": {text}") for title, text in advice.tips]
    return Group(head, Text("Advice:", style="bold"), *tips)
