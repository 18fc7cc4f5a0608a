"""The hardware check as rich tables for the terminal (``mpstudio hw``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from mpstudio.engine.hardware.advisor import Advice
from mpstudio.engine.hardware.measurement import HALF_DTYPES, DeviceMeasurement
from mpstudio.engine.hardware.report import CPU_FLAGS, HardwareReport
from mpstudio.engine.hardware.report import device_label_text as device_label
from mpstudio.engine.hardware.verdict_rules import Verdict, gpu_notes
from mpstudio.engine.i18n import _

VERDICT_STYLE = {
    Verdict.RECOMMENDED: "bold green", Verdict.NO_GAIN: "yellow", Verdict.SLOWER: "yellow",
    Verdict.MEASURE: "cyan", Verdict.UNSUPPORTED: "red",
}
_X86_FLAGS = ("avx512f", "avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c")


def _gib(value: int | None) -> str:
    return _("n/a") if value is None else f"{value / 2**30:.1f} GiB"


def _on_off(on: bool) -> str:
    return _("on") if on else _("off")


def build_line(report: HardwareReport) -> str:
    b = report.build
    parts = [f"TensorFlow {b.tensorflow}", f"Keras {b.keras}"]
    if b.cuda_build:
        parts.append(f"CUDA {b.cuda_version or '?'}, cuDNN {b.cudnn_version or '?'}")
        if b.compiled_capabilities:
            parts.append(_("kernels for {capabilities}").format(
                capabilities=" ".join(b.compiled_capabilities)))
        if report.usable_gpus:
            parts.append(_("TF32 {state}").format(state=_on_off(b.tf32_enabled)))
    elif b.rocm_build:
        parts.append(_("ROCm build"))
    else:
        parts.append(_("CPU-only build"))
    return " · ".join(parts)


def gpu_table(report: HardwareReport) -> RenderableType:
    if not report.gpus:
        if report.nvml_note:
            return Text(_("GPUs: none (TensorFlow sees no GPU; {note})").format(
                note=report.nvml_note))
        return Text(_("GPUs: none (TensorFlow sees no GPU)"))
    drivers = sorted({g.driver_version for g in report.gpus if g.driver_version})
    title = _("GPUs (driver {drivers})").format(drivers=", ".join(drivers)) if drivers \
        else _("GPUs")
    table = Table(title=title, title_justify="left")
    for column in (_("device"), _("name"), _("compute cap."), _("architecture"),
                   _("Tensor Cores"), "bfloat16", _("memory in use")):
        table.add_column(column, overflow="fold")
    for gpu in report.gpus:
        arch = gpu.arch
        used = _("n/a")
        if gpu.memory_total is not None and gpu.memory_used is not None:
            used = f"{gpu.memory_used / 2**30:.1f} / {_gib(gpu.memory_total)}"
        capability = gpu.capability_text if gpu.compute_capability else _("unknown")
        table.add_row(device_label(gpu.label), gpu.name, capability, arch.family_text,
                      arch.tensor_cores_text,
                      _("yes") if arch.bfloat16_tensor_cores else _("no"), used)
    notes = [_("{device} {name}: {note}").format(device=device_label(g.label), name=g.name,
                                                 note=note)
             for g in report.gpus for note in gpu_notes(g, report.build)]
    notes += [_("{name}: not used by TensorFlow: {reason}").format(
                  name=g.name, reason=g.not_visible_reason)
              for g in report.gpus if not g.visible_to_tensorflow]
    if report.nvml_note:
        notes.append(_("{note}: memory use and driver version not shown").format(
            note=report.nvml_note))
    return Group(table, *(Text(_("  note: {note}").format(note=n)) for n in notes))


def cpu_line(report: HardwareReport) -> str:
    cpu = report.cpu
    if cpu.physical_cores:
        cores = _("{logical} logical / {physical} physical cores").format(
            logical=cpu.logical_cores, physical=cpu.physical_cores)
    else:
        cores = _("{logical} logical cores").format(logical=cpu.logical_cores)
    names = _X86_FLAGS if cpu.architecture.lower() in ("x86_64", "amd64") else CPU_FLAGS
    if cpu.flags_known:
        has = [f for f in names if cpu.has(f)]
        lacks = [f for f in names if not cpu.has(f)]
        if has and lacks:
            flags = _("has {has}; lacks {lacks}").format(has=" ".join(has), lacks=" ".join(lacks))
        elif has:
            flags = _("has {flags}").format(flags=" ".join(has))
        else:
            flags = _("lacks {flags}").format(flags=" ".join(lacks))
    else:
        flags = _("flags not readable on this OS")
    onednn = "" if cpu.onednn else _(" · oneDNN off")
    return _("CPU: {model} ({architecture}), {cores}, {memory} RAM · {flags}{onednn}").format(
        model=cpu.model, architecture=cpu.architecture, cores=cores,
        memory=_gib(cpu.memory_total), flags=flags, onednn=onednn)


def tpu_line(report: HardwareReport) -> str:
    tpu = report.tpu
    if tpu.found:
        return _("TPU: {kind}, {cores} cores ({note})").format(
            kind=tpu.accelerator_type or _("type unknown"), cores=tpu.cores, note=tpu.note)
    return _("TPU: none ({note})").format(note=tpu.note)


def verdict_table(advice: Advice) -> Table:
    table = Table(title=_("Precision verdicts (* = default for that device)"),
                  title_justify="left")
    for column in (_("device"), _("policy"), _("verdict"), _("why")):
        table.add_column(column, overflow="fold")
    for device in advice.devices:
        for i, v in enumerate(device.verdicts):
            mark = " *" if v.policy == device.default else ""
            table.add_row(device_label(device.device) if i == 0 else "", v.policy + mark,
                          Text(v.verdict.display, style=VERDICT_STYLE[v.verdict]), v.reason,
                          end_section=i == len(device.verdicts) - 1)
    return table


def measurement_table(measurements: Sequence[DeviceMeasurement]) -> Table:
    table = Table(title=_("Measured: forward + backward, TFLOP/s (x = speed vs float32)"),
                  title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        (_("device"), "left"), (_("kernel"), "left"),
        ("float32", "right"), ("float16", "right"), ("bfloat16", "right"))
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for m in measurements:
        for kernel in m.kernels:
            cells: list[str | Text] = []
            for dtype in ("float32", *HALF_DTYPES):
                result = m.result(kernel, dtype)
                if result is None:
                    cells.append(_("not run"))
                elif result.error:
                    cells.append(Text(_("failed"), style="red"))
                else:
                    ratio = m.kernel_speedup(kernel, dtype) if dtype != "float32" else None
                    suffix = f" ({ratio:.2f}x)" if ratio is not None else ""
                    cells.append(f"{result.tflops:.3g}{suffix}")
            shape = (m.result(kernel, "float32") or m.results[0]).shape
            first = kernel == m.kernels[0]
            label = _("{device}\nXLA {xla}, baseline {baseline}").format(
                device=m.device, xla=_on_off(m.xla), baseline=m.baseline)
            table.add_row(label if first else "", shape, *cells,
                          end_section=kernel == m.kernels[-1])
    return table


def advice_block(advice: Advice) -> Group:
    if advice.run_policy:
        head = Text.assemble((_("Recommended for a run here: "), "bold"),
                             (advice.run_policy, "bold green"),
                             _(" on {device} ({description}): {reason}").format(
                                 device=device_label(advice.run_device),
                                 description=advice.run_description,
                                 reason=advice.run_reason))
    else:
        head = Text.assemble((_("Recommended for a run here: "), "bold"),
                             _("{device} ({description}): {reason}").format(
                                 device=device_label(advice.run_device),
                                 description=advice.run_description,
                                 reason=advice.run_reason))
    tips = [Text.assemble("  • ", (title, "bold"), _(": {text}").format(text=text))
            for title, text in advice.tips]
    return Group(head, Text(_("Advice:"), style="bold"), *tips)
