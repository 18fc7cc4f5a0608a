"""The lines that need no training: TensorFlow's build against the driver and each
GPU, the GPU memory settings, and TF32. Decided from the hardware report alone, so
a test describes a V100, an A100 or an H100 machine and checks each decision."""

from __future__ import annotations

from mpstudio.engine.doctor.checks import BUILD, MEMORY, TF32, Check
from mpstudio.engine.hardware.gpu_architecture import Capability, kernel_support, tf32_capable
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
from mpstudio.engine.hardware.report import GpuInfo, HardwareReport

NO_GPU = "no GPU: the CPU runs the checks"
INSTALL_CUDA = "pip install 'mpstudio[cuda]'"
# The oldest driver each CUDA major version runs on (minor version compatibility),
# from NVIDIA's CUDA compatibility guide.
MIN_DRIVER = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580,)}
# The driver branch each CUDA 12 release shipped with: PTX from that toolkit needs it
# to JIT-compile (minor version compatibility does not cover PTX).
PTX_DRIVER_BRANCH = {(12, 0): 525, (12, 1): 530, (12, 2): 535, (12, 3): 545, (12, 4): 550,
                     (12, 5): 555, (12, 6): 560, (12, 8): 570, (12, 9): 575, (13, 0): 580}


def _numbers(text: str | None) -> tuple[int, ...]:
    parts = []
    for part in (text or "").split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


def _dotted(numbers: tuple[int, ...]) -> str:
    return ".".join(f"{n:02d}" if i else str(n) for i, n in enumerate(numbers))


def build_checks(report: HardwareReport) -> list[Check]:
    """The build line, the driver line and one line per GPU."""
    return [_build_line(report), _driver_line(report),
            *(_gpu_line(gpu, report) for gpu in report.gpus)]


def _build_line(report: HardwareReport) -> Check:
    b = report.build
    head = f"TensorFlow {b.tensorflow}, Keras {b.keras}"
    details = {"tensorflow": b.tensorflow, "keras": b.keras, "cuda_build": b.cuda_build,
               "rocm_build": b.rocm_build, "cuda": b.cuda_version, "cudnn": b.cudnn_version,
               "compiled_capabilities": list(b.compiled_capabilities)}
    if b.cuda_build:
        kernels = (f"; compiled for {' '.join(b.compiled_capabilities)}"
                   if b.compiled_capabilities else "")
        here = "" if report.gpus else f"; {NO_GPU}"
        return Check(BUILD, "TensorFlow build", "pass",
                     f"{head}; built with CUDA {b.cuda_version or '?'} and cuDNN "
                     f"{b.cudnn_version or '?'}{kernels}{here}", details)
    if b.rocm_build:
        return Check(BUILD, "TensorFlow build", "pass", f"{head}; a ROCm build (AMD GPUs)",
                     details)
    if report.gpus:
        names = ", ".join(dict.fromkeys(g.name for g in report.gpus))
        return Check(BUILD, "TensorFlow build", "fail",
                     f"{head} is a CPU-only build, so it cannot use the {names} the NVIDIA "
                     f"driver reports: {INSTALL_CUDA} (Linux or WSL2), then run "
                     "mpstudio doctor again", details)
    return Check(BUILD, "TensorFlow build", "pass", f"{head}; a CPU-only build; {NO_GPU}",
                 details)


def _driver_line(report: HardwareReport) -> Check:
    drivers = sorted({g.driver_version for g in report.gpus if g.driver_version})
    if not report.gpus:
        note = f" ({report.nvml_note})" if report.nvml_note else ""
        return Check(BUILD, "NVIDIA driver", "skipped", f"{NO_GPU}{note}")
    if not drivers:
        note = report.nvml_note or "NVML gave no driver version"
        status = "pass" if report.usable_gpus else "warn"
        works = ("TensorFlow uses the GPU, so the driver works" if report.usable_gpus
                 else "check the driver with nvidia-smi")
        return Check(BUILD, "NVIDIA driver", status, f"version unknown ({note}); {works}")
    driver = drivers[0]
    details = {"driver": driver, "cuda": report.build.cuda_version}
    cuda = _numbers(report.build.cuda_version)
    if not report.build.cuda_build or not cuda:
        return Check(BUILD, "NVIDIA driver", "pass", f"driver {driver}", details)
    have = _numbers(driver)
    need = MIN_DRIVER.get(cuda[0])
    if need and have < need:
        return Check(BUILD, "NVIDIA driver", "fail",
                     f"driver {driver} is older than CUDA {cuda[0]} needs ({_dotted(need)} or "
                     f"newer), and this TensorFlow uses CUDA {report.build.cuda_version}: "
                     "update the NVIDIA driver", details)
    branch = PTX_DRIVER_BRANCH.get(cuda[:2])
    jit = [g for g in report.usable_gpus if _kernels(g, report)[0] == "ptx"]
    if jit and branch and have[:1] < (branch,):
        return Check(BUILD, "NVIDIA driver", "warn",
                     f"driver {driver} runs CUDA {report.build.cuda_version}, but "
                     f"{jit[0].name} needs TensorFlow's PTX compiled at start, and PTX from "
                     f"CUDA {cuda[0]}.{cuda[1]} needs driver {branch} or newer: update the "
                     "driver if the first run fails with an unsupported PTX version", details)
    minimum = f" (CUDA {cuda[0]} needs {_dotted(need)}+)" if need else ""
    return Check(BUILD, "NVIDIA driver", "pass",
                 f"driver {driver} is new enough for CUDA {report.build.cuda_version}{minimum}",
                 details)


def _kernels(gpu: GpuInfo, report: HardwareReport) -> tuple[str, str]:
    """("native" | "ptx" | "none" | "unknown", the sentence saying so)."""
    cc = gpu.compute_capability
    compiled = list(report.build.compiled_capabilities)
    if cc is None:
        return "unknown", "compute capability unknown"
    if not compiled:
        return "unknown", "the build does not list the capabilities it was compiled for"
    ok, why = kernel_support(cc, compiled)
    if not ok:
        return "none", why
    if why:
        return "ptx", why
    return "native", f"this TensorFlow has machine code for it ({_native_entry(cc, compiled)})"


def _native_entry(cc: Capability, compiled: list[str]) -> str:
    fits = [e for e in compiled if e.startswith("sm_") and e[3:].isdigit()
            and int(e[3:-1]) == cc[0] and int(e[-1]) <= cc[1]]
    return max(fits, key=lambda e: int(e[-1])) if fits else "sm"


def _gpu_line(gpu: GpuInfo, report: HardwareReport) -> Check:
    arch = gpu.arch
    name = f"{gpu.label} {gpu.name}"
    what = (f"compute capability {gpu.capability_text} ({arch.family}, "
            f"{arch.tensor_cores_label} Tensor Cores)")
    kind, why = _kernels(gpu, report)
    details = {"compute_capability": gpu.capability_text, "architecture": arch.family,
               "kernels": kind, "visible_to_tensorflow": gpu.visible_to_tensorflow}
    if not gpu.visible_to_tensorflow:
        hidden = gpu.not_visible_reason.startswith(("hidden by", "not among"))
        status = "skipped" if hidden else "fail"
        return Check(BUILD, name, status,
                     f"{what}; TensorFlow does not use it: {gpu.not_visible_reason}", details)
    if kind == "none":
        return Check(BUILD, name, "fail", f"{what}; {why}: install a TensorFlow built for "
                     "this GPU, or use another GPU", details)
    if kind == "ptx":
        return Check(BUILD, name, "warn", f"{what}; first start compiles PTX, can take "
                     f"minutes: {why}", details)
    if kind == "unknown":
        return Check(BUILD, name, "pass", f"{what}; TensorFlow uses it ({why})", details)
    return Check(BUILD, name, "pass", f"{what}; native kernels: {why}", details)


def memory_check(memory: MemoryApplyResult) -> Check:
    """How the saved GPU memory settings were applied, in words."""
    details = {"status": memory.status}
    if memory.status == "no_gpu":
        return Check(MEMORY, "GPU memory settings", "skipped", f"{NO_GPU} ({memory.message})",
                     details)
    if memory.status in ("applied", "unchanged"):
        verb = "applied" if memory.status == "applied" else "already in force"
        return Check(MEMORY, "GPU memory settings", "pass", f"{verb}: {memory.message}",
                     details)
    if memory.status == "needs_restart":
        return Check(MEMORY, "GPU memory settings", "warn", memory.message, details)
    return Check(MEMORY, "GPU memory settings", "fail",
                 f"{memory.message}; save working ones with mpstudio hw --memory-growth on "
                 "(or --memory-limit MiB)", details)


def tf32_check(report: HardwareReport, float32_math: str | None = None) -> Check:
    """TF32 on or off, and what float32 matmuls compute in on the training GPU.
    ``float32_math``: what the doctor's float32 run reported it computed in."""
    enabled = report.build.tf32_enabled
    details = {"tf32_enabled": enabled, "float32_run_computed_in": float32_math}
    gpus = report.usable_gpus
    if not gpus:
        return Check(TF32, "TF32", "skipped",
                     f"{NO_GPU}; TF32 is an NVIDIA GPU mode (Ampere and newer), the CPU "
                     "computes float32 in float32", details)
    gpu = gpus[0]
    where = f"{gpu.name} ({gpu.capability_text})"
    capable = tf32_capable(gpu.compute_capability)
    expected = "TF32" if capable and enabled else "float32"
    details["expected"] = expected
    state = "on" if enabled else "off"
    if float32_math and float32_math != expected:
        return Check(TF32, "TF32", "warn",
                     f"TF32 is {state} and {where} {'has' if capable else 'lacks'} TF32, so "
                     f"float32 should compute in {expected}, but the float32 run reported "
                     f"{float32_math}: label comparisons by what the run says", details)
    if capable and enabled:
        reason = (f"TF32 on: float32 matmuls and convolutions on {where} compute in TF32 "
                  "(float32 range, 10-bit mantissa), so a float32 baseline here is TF32; "
                  "mpstudio compare --baseline float32 measures true float32")
    elif capable:
        reason = (f"TF32 off: float32 matmuls on {where} compute in full float32 (slower "
                  "than TF32, which TensorFlow uses by default)")
    else:
        reason = (f"TF32 {state} in TensorFlow, but {where} has no TF32 (Ampere, 8.0+, "
                  "has it): float32 computes in float32")
    return Check(TF32, "TF32", "pass", reason, details)
