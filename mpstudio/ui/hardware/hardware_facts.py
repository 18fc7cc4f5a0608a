"""The hardware report as short (label, text) rows for the hardware panel's forms.

No Qt here, so the wording can be tested without widgets. It says what
``mpstudio hw`` says (cli/hardware_tables.py), arranged for a narrow desktop panel.
"""

from __future__ import annotations

from mpstudio.engine.hardware.measurement import HALF_DTYPES, DeviceMeasurement
from mpstudio.engine.hardware.report import CPU_FLAGS, CpuInfo, GpuInfo, HardwareReport, TpuInfo

Rows = list[tuple[str, str]]
_X86_FLAGS = ("avx512f", "avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c")


def gib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**30:.1f} GiB"


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def gpu_facts(gpu: GpuInfo) -> Rows:
    arch = gpu.arch
    rows = [("Architecture", f"{arch.family} · compute capability {gpu.capability_text}")]
    if arch.tensor_core_generation:
        cores = (f"{arch.tensor_cores_label} · float16 {_yes_no(arch.float16_tensor_cores)}"
                 f" · bfloat16 {_yes_no(arch.bfloat16_tensor_cores)}")
    else:
        cores = "none · float16 no · bfloat16 no"
    rows.append(("Tensor Cores", cores))
    if gpu.memory_total is not None:
        total = gib(gpu.memory_total)
        rows.append(("Memory", total if gpu.memory_used is None
                     else f"{gib(gpu.memory_used)} of {total} in use"))
    if gpu.driver_version:
        rows.append(("Driver", gpu.driver_version))
    return rows


def cpu_flags_text(cpu: CpuInfo) -> str:
    if not cpu.flags_known:
        return "not readable on this OS"
    names = _X86_FLAGS if cpu.architecture.lower() in ("x86_64", "amd64") else CPU_FLAGS
    has = [f for f in names if cpu.has(f)]
    lacks = [f for f in names if not cpu.has(f)]
    parts = [f"has {' '.join(has)}" if has else "", f"lacks {' '.join(lacks)}" if lacks else ""]
    return "; ".join(p for p in parts if p)


def cpu_facts(cpu: CpuInfo) -> Rows:
    cores = f"{cpu.logical_cores} logical"
    if cpu.physical_cores:
        cores += f" / {cpu.physical_cores} physical"
    rows = [("Architecture", f"{cpu.architecture} · {cores} cores"),
            ("Memory", f"{gib(cpu.memory_total)} RAM"),
            ("Half-precision flags", cpu_flags_text(cpu))]
    if not cpu.onednn:
        rows.append(("oneDNN", "off: TensorFlow's AMX/AVX-512 BF16 kernels are not used"))
    return rows


def tpu_facts(tpu: TpuInfo) -> Rows:
    return [("Type", f"{tpu.accelerator_type or 'type unknown'}, {tpu.cores} cores"),
            ("Found", tpu.note or "yes")]


def build_facts(report: HardwareReport) -> Rows:
    """TensorFlow's build, the TPU probe and why NVML said nothing, as form rows."""
    b = report.build
    rows = [("TensorFlow", f"{b.tensorflow} · Keras {b.keras}")]
    if b.cuda_build:
        cuda = f"CUDA {b.cuda_version or '?'}, cuDNN {b.cudnn_version or '?'}"
        if b.compiled_capabilities:
            cuda += " · kernels for " + " ".join(b.compiled_capabilities)
        rows.append(("Build", cuda))
        if report.usable_gpus:
            rows.append(("TF32", "on: float32 matmuls run as TF32 on Ampere and newer"
                         if b.tf32_enabled else "off: float32 is true float32"))
    elif b.rocm_build:
        rows.append(("Build", "ROCm"))
    else:
        rows.append(("Build", "CPU-only: this TensorFlow cannot use a GPU"))
    if not report.tpu.found:
        rows.append(("TPU", f"none ({report.tpu.note})" if report.tpu.note else "none"))
    if not report.gpus:
        note = f" ({report.nvml_note})" if report.nvml_note else ""
        rows.append(("GPUs", f"none: TensorFlow sees no GPU{note}"))
    elif report.nvml_note:
        rows.append(("NVML", f"{report.nvml_note}: memory use and driver not shown"))
    return rows


def measurement_caption(m: DeviceMeasurement) -> str:
    return (f"Timed forward + backward with XLA {'on' if m.xla else 'off'}; float32 ran as "
            f"{m.baseline}" + (" · stopped early" if m.stopped else ""))


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
                cells.append("not run")
            elif result.error or result.tflops is None:
                cells.append("failed")
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
