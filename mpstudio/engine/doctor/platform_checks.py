"""The lines that need no training: TensorFlow's build against the driver and each
GPU, the GPU memory settings, and TF32. Decided from the hardware report alone, so
a test describes a V100, an A100 or an H100 machine and checks each decision."""

from __future__ import annotations

from typing import Any

from mpstudio.engine.doctor.checks import BUILD, MEMORY, TF32, Check, Status
from mpstudio.engine.hardware.gpu_architecture import Capability, kernel_support, tf32_capable
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
from mpstudio.engine.hardware.report import GpuInfo, HardwareReport
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, clauses, english, items, said

NO_GPU = N_("no GPU: the CPU runs the checks")
INSTALL_CUDA = "pip install 'mpstudio[cuda]'"
# The lines' names (English in the JSON).
BUILD_NAME = said(N_("TensorFlow build"))
DRIVER_NAME = said(N_("NVIDIA driver"))
MEMORY_NAME = said(N_("GPU memory settings"))
# The oldest driver each CUDA major version runs on (minor version compatibility),
# from NVIDIA's CUDA compatibility guide.
MIN_DRIVER = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580,)}
# The driver branch each CUDA 12 release shipped with: PTX from that toolkit needs it
# to JIT-compile (minor version compatibility does not cover PTX).
PTX_DRIVER_BRANCH: dict[tuple[int, ...], int] = {
    (12, 0): 525, (12, 1): 530, (12, 2): 535, (12, 3): 545, (12, 4): 550,
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


def _note(text: Any) -> Any:
    """A note from the hardware report (a string or a message), or None when empty."""
    return text if english(text) else None


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
        built = said(N_("built with CUDA {cuda} and cuDNN {cudnn}"), cuda=b.cuda_version or "?",
                     cudnn=b.cudnn_version or "?")
        kernels = (said(N_("compiled for {capabilities}"),
                        capabilities=" ".join(b.compiled_capabilities))
                   if b.compiled_capabilities else None)
        here = None if report.gpus else said(NO_GPU)
        return Check(BUILD, BUILD_NAME, "pass", clauses(head, built, kernels, here), details)
    if b.rocm_build:
        return Check(BUILD, BUILD_NAME, "pass", clauses(head, said(N_("a ROCm build (AMD GPUs)"))),
                     details)
    if report.gpus:
        names = items(dict.fromkeys(g.name for g in report.gpus))
        return Check(BUILD, BUILD_NAME, "fail", said(N_(
            "{build} is a CPU-only build, so it cannot use the {gpus} the NVIDIA driver "
            "reports: {install} (Linux or WSL2), then run mpstudio doctor again"),
            build=head, gpus=names, install=INSTALL_CUDA), details)
    return Check(BUILD, BUILD_NAME, "pass",
                 clauses(head, said(N_("a CPU-only build")), said(NO_GPU)), details)


def _driver_line(report: HardwareReport) -> Check:
    drivers = sorted({g.driver_version for g in report.gpus if g.driver_version})
    if not report.gpus:
        note = _note(report.nvml_note)
        return Check(BUILD, DRIVER_NAME, "skipped",
                     said(N_("{no_gpu} ({note})"), no_gpu=said(NO_GPU), note=note) if note
                     else said(NO_GPU))
    if not drivers:
        note = _note(report.nvml_note) or said(N_("NVML gave no driver version"))
        status: Status = "pass" if report.usable_gpus else "warn"
        works = said(N_("TensorFlow uses the GPU, so the driver works") if report.usable_gpus
                     else N_("check the driver with nvidia-smi"))
        return Check(BUILD, DRIVER_NAME, status,
                     said(N_("version unknown ({note}); {works}"), note=note, works=works))
    driver = drivers[0]
    details = {"driver": driver, "cuda": report.build.cuda_version}
    cuda = _numbers(report.build.cuda_version)
    if not report.build.cuda_build or not cuda:
        return Check(BUILD, DRIVER_NAME, "pass", said(N_("driver {driver}"), driver=driver),
                     details)
    have = _numbers(driver)
    need = MIN_DRIVER.get(cuda[0])
    if need and have < need:
        return Check(BUILD, DRIVER_NAME, "fail", said(N_(
            "driver {driver} is older than CUDA {major} needs ({minimum} or newer), and this "
            "TensorFlow uses CUDA {cuda}: update the NVIDIA driver"), driver=driver,
            major=cuda[0], minimum=_dotted(need), cuda=report.build.cuda_version), details)
    branch = PTX_DRIVER_BRANCH.get(cuda[:2])
    jit = [g for g in report.usable_gpus if _kernels(g, report)[0] == "ptx"]
    if jit and branch and have[:1] < (branch,):
        return Check(BUILD, DRIVER_NAME, "warn", said(N_(
            "driver {driver} runs CUDA {cuda}, but {gpu} needs TensorFlow's PTX compiled at "
            "start, and PTX from CUDA {ptx} needs driver {branch} or newer: update the "
            "driver if the first run fails with an unsupported PTX version"), driver=driver,
            cuda=report.build.cuda_version, gpu=jit[0].name, ptx=f"{cuda[0]}.{cuda[1]}",
            branch=branch), details)
    if need:
        reason = said(N_("driver {driver} is new enough for CUDA {cuda} (CUDA {major} needs "
                         "{minimum}+)"), driver=driver, cuda=report.build.cuda_version,
                      major=cuda[0], minimum=_dotted(need))
    else:
        reason = said(N_("driver {driver} is new enough for CUDA {cuda}"), driver=driver,
                      cuda=report.build.cuda_version)
    return Check(BUILD, DRIVER_NAME, "pass", reason, details)


def _kernels(gpu: GpuInfo, report: HardwareReport) -> tuple[str, Any]:
    """("native" | "ptx" | "none" | "unknown", the sentence saying so)."""
    cc = gpu.compute_capability
    compiled = list(report.build.compiled_capabilities)
    if cc is None:
        return "unknown", said(N_("compute capability unknown"))
    if not compiled:
        return "unknown", said(N_("the build does not list the capabilities it was compiled "
                                  "for"))
    ok, why = kernel_support(cc, compiled)
    if not ok:
        return "none", why
    if english(why):
        return "ptx", why
    return "native", said(N_("this TensorFlow has machine code for it ({entry})"),
                          entry=_native_entry(cc, compiled))


def _native_entry(cc: Capability, compiled: list[str]) -> str:
    fits = [e for e in compiled if e.startswith("sm_") and e[3:].isdigit()
            and int(e[3:-1]) == cc[0] and int(e[-1]) <= cc[1]]
    return max(fits, key=lambda e: int(e[-1])) if fits else "sm"


def _gpu_line(gpu: GpuInfo, report: HardwareReport) -> Check:
    arch = gpu.arch
    name = f"{gpu.label} {gpu.name}"
    what = said(N_("compute capability {capability} ({family}, {generation} Tensor Cores)"),
                capability=gpu.capability_text, family=arch.family_text,
                generation=arch.tensor_cores_text)
    kind, why = _kernels(gpu, report)
    details = {"compute_capability": gpu.capability_text, "architecture": arch.family,
               "kernels": kind, "visible_to_tensorflow": gpu.visible_to_tensorflow}
    if not gpu.visible_to_tensorflow:
        hidden = english(gpu.not_visible_reason).startswith(("hidden by", "not among"))
        status: Status = "skipped" if hidden else "fail"
        return Check(BUILD, name, status, clauses(what, said(
            N_("TensorFlow does not use it: {reason}"), reason=gpu.not_visible_reason)),
            details)
    if kind == "none":
        return Check(BUILD, name, "fail", clauses(what, said(N_(
            "{why}: install a TensorFlow built for this GPU, or use another GPU"), why=why)),
            details)
    if kind == "ptx":
        return Check(BUILD, name, "warn", clauses(what, said(N_(
            "first start compiles PTX, can take minutes: {why}"), why=why)), details)
    if kind == "unknown":
        return Check(BUILD, name, "pass", clauses(what, said(
            N_("TensorFlow uses it ({why})"), why=why)), details)
    return Check(BUILD, name, "pass", clauses(what, said(N_("native kernels: {why}"), why=why)),
                 details)


def memory_check(memory: MemoryApplyResult) -> Check:
    """How the saved GPU memory settings were applied, in words."""
    details = {"status": memory.status}
    if memory.status == "no_gpu":
        return Check(MEMORY, MEMORY_NAME, "skipped", said(
            N_("{no_gpu} ({note})"), no_gpu=said(NO_GPU), note=memory.message), details)
    if memory.status in ("applied", "unchanged"):
        verb = (N_("applied: {settings}") if memory.status == "applied"
                else N_("already in force: {settings}"))
        return Check(MEMORY, MEMORY_NAME, "pass", said(verb, settings=memory.message), details)
    if memory.status == "needs_restart":
        return Check(MEMORY, MEMORY_NAME, "warn", Said(memory.message), details)
    return Check(MEMORY, MEMORY_NAME, "fail", said(N_(
        "{problem}; save working ones with mpstudio hw --memory-growth on (or "
        "--memory-limit MiB)"), problem=memory.message), details)


def tf32_check(report: HardwareReport, float32_math: str | None = None) -> Check:
    """TF32 on or off, and what float32 matmuls compute in on the training GPU.
    ``float32_math``: what the doctor's float32 run reported it computed in."""
    enabled = report.build.tf32_enabled
    details = {"tf32_enabled": enabled, "float32_run_computed_in": float32_math}
    gpus = report.usable_gpus
    if not gpus:
        return Check(TF32, "TF32", "skipped", clauses(said(NO_GPU), said(N_(
            "TF32 is an NVIDIA GPU mode (Ampere and newer), the CPU computes float32 in "
            "float32"))), details)
    gpu = gpus[0]
    where = f"{gpu.name} ({gpu.capability_text})"
    capable = tf32_capable(gpu.compute_capability)
    expected = "TF32" if capable and enabled else "float32"
    details["expected"] = expected
    if float32_math and float32_math != expected:
        msgid = {(True, True): N_(
                     "TF32 is on and {gpu} has TF32, so float32 should compute in {expected}, "
                     "but the float32 run reported {computed}: label comparisons by what the "
                     "run says"),
                 (True, False): N_(
                     "TF32 is on and {gpu} lacks TF32, so float32 should compute in "
                     "{expected}, but the float32 run reported {computed}: label comparisons "
                     "by what the run says"),
                 (False, True): N_(
                     "TF32 is off and {gpu} has TF32, so float32 should compute in "
                     "{expected}, but the float32 run reported {computed}: label comparisons "
                     "by what the run says"),
                 (False, False): N_(
                     "TF32 is off and {gpu} lacks TF32, so float32 should compute in "
                     "{expected}, but the float32 run reported {computed}: label comparisons "
                     "by what the run says")}[(bool(enabled), bool(capable))]
        return Check(TF32, "TF32", "warn", said(msgid, gpu=where, expected=expected,
                                                computed=float32_math), details)
    if capable and enabled:
        reason = said(N_("TF32 on: float32 matmuls and convolutions on {gpu} compute in TF32 "
                         "(float32 range, 10-bit mantissa), so a float32 baseline here is TF32; "
                         "mpstudio compare --baseline float32 measures true float32"), gpu=where)
    elif capable:
        reason = said(N_("TF32 off: float32 matmuls on {gpu} compute in full float32 (slower "
                         "than TF32, which TensorFlow uses by default)"), gpu=where)
    else:
        reason = said(N_("TF32 on in TensorFlow, but {gpu} has no TF32 (Ampere, 8.0+, has it): "
                         "float32 computes in float32") if enabled else
                      N_("TF32 off in TensorFlow, but {gpu} has no TF32 (Ampere, 8.0+, has "
                        "it): float32 computes in float32"), gpu=where)
    return Check(TF32, "TF32", "pass", reason, details)
