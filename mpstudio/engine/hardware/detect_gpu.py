"""GPUs as TensorFlow sees them, joined with what the NVIDIA driver reports.

TensorFlow gives name and compute capability; NVML (nvidia-ml-py) adds memory in
use and the driver version without touching TensorFlow's runtime, and also sees
GPUs TensorFlow cannot use (no CUDA libraries, too old), which is the first thing
a user whose GPU "is not used" needs to know.
"""

from __future__ import annotations

import contextlib
import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass

from mpstudio.engine.hardware.gpu_architecture import Capability, kernel_support
from mpstudio.engine.hardware.report import GpuInfo, TfBuild


@dataclass(frozen=True)
class TfGpu:
    name: str
    compute_capability: Capability | None


@dataclass(frozen=True)
class NvmlGpu:
    index: int
    name: str
    uuid: str
    compute_capability: Capability | None
    memory_total: int
    memory_used: int
    memory_free: int


@dataclass(frozen=True)
class NvmlScan:
    gpus: tuple[NvmlGpu, ...] = ()
    driver_version: str | None = None
    note: str = ""  # why NVML (memory use, driver version) gave nothing, or ""


def tensorflow_build() -> TfBuild:
    import keras
    import tensorflow as tf

    info = tf.sysconfig.get_build_info()
    return TfBuild(
        tensorflow=tf.__version__,
        keras=keras.__version__,
        cuda_build=bool(info.get("is_cuda_build")),
        rocm_build=bool(info.get("is_rocm_build")),
        cuda_version=str(info["cuda_version"]) if info.get("cuda_version") else None,
        cudnn_version=str(info["cudnn_version"]) if info.get("cudnn_version") else None,
        compiled_capabilities=tuple(info.get("cuda_compute_capabilities") or ()),
        tf32_enabled=tf32_switched_on(),
    )


def tf32_switched_on() -> bool:
    """TensorFlow's TF32 setting, unless NVIDIA_TF32_OVERRIDE=0 turns TF32 off below it."""
    import tensorflow as tf

    return (tf.config.experimental.tensor_float_32_execution_enabled()
            and os.environ.get("NVIDIA_TF32_OVERRIDE") != "0")


def tensorflow_gpus() -> list[TfGpu]:
    """Listing GPUs and reading their details leaves the runtime uninitialized, so
    memory settings can still be applied afterwards."""
    import tensorflow as tf

    found = []
    for device in tf.config.list_physical_devices("GPU"):
        details = tf.config.experimental.get_device_details(device)
        cc = details.get("compute_capability")
        found.append(TfGpu(details.get("device_name", device.name), tuple(cc) if cc else None))
    return found


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def nvml_scan() -> NvmlScan:
    try:
        import pynvml
    except ImportError:
        return NvmlScan(note="nvidia-ml-py is not installed")
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        return NvmlScan(note=f"no NVIDIA driver reachable ({exc})")
    gpus, failures, driver = [], [], None
    try:
        with contextlib.suppress(pynvml.NVMLError):
            driver = _text(pynvml.nvmlSystemGetDriverVersion())
        try:
            count = pynvml.nvmlDeviceGetCount()
        except pynvml.NVMLError as exc:
            return NvmlScan(driver_version=driver, note=f"NVML could not count GPUs ({exc})")
        for index in range(count):
            try:  # one GPU a container may not query must not hide the others
                gpus.append(_nvml_gpu(pynvml, index))
            except pynvml.NVMLError as exc:
                failures.append(f"GPU {index}: {exc}")
    finally:
        pynvml.nvmlShutdown()
    note = f"NVML could not query {'; '.join(failures)}" if failures else ""
    return NvmlScan(tuple(gpus), driver, note)


def _nvml_gpu(pynvml, index: int) -> NvmlGpu:
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
    return NvmlGpu(
        index=index,
        name=_text(pynvml.nvmlDeviceGetName(handle)),
        uuid=_text(pynvml.nvmlDeviceGetUUID(handle)),
        compute_capability=tuple(pynvml.nvmlDeviceGetCudaComputeCapability(handle)),
        memory_total=int(memory.total),
        memory_used=int(memory.used),
        memory_free=int(memory.free),
    )


def _visible(nvml: tuple[NvmlGpu, ...], environ: Mapping[str, str],
             ) -> tuple[list[NvmlGpu], bool]:
    """The NVML GPUs TensorFlow may see, and whether that list is exact.

    CUDA_VISIBLE_DEVICES names GPUs by UUID or by CUDA's index, and CUDA's index
    follows NVML's (PCI) order only with CUDA_DEVICE_ORDER=PCI_BUS_ID; its default
    puts the fastest first. Where the mapping is not certain (or names MIG slices),
    every GPU is a candidate and name matching decides."""
    setting = environ.get("CUDA_VISIBLE_DEVICES")
    if setting is None:
        return list(nvml), True
    parts = [p.strip() for p in setting.split(",") if p.strip()]
    pci_order = environ.get("CUDA_DEVICE_ORDER", "FASTEST_FIRST") == "PCI_BUS_ID"
    exact = all(p.startswith("GPU-") for p in parts) or (
        pci_order and all(p.isdigit() for p in parts))
    if not exact:
        return list(nvml), False
    chosen: list[NvmlGpu] = []
    for part in parts:
        match = [g for g in nvml if (part.isdigit() and g.index == int(part))
                 or (not part.isdigit() and g.uuid.startswith(part))]
        if not match:
            break  # CUDA stops at the first invalid entry
        chosen.extend(m for m in match if m not in chosen)
    return chosen, True


def _unused_reason(gpu: NvmlGpu, build: TfBuild, tf_sees_any: bool, hidden: str,
                   system: str) -> str:
    if hidden:
        return hidden
    if system == "Windows":
        return ("TensorFlow has no GPU support on native Windows since 2.11: run mpstudio "
                "in WSL2 to use this GPU")
    if not build.cuda_build:
        return "this TensorFlow was built without CUDA: install tensorflow[and-cuda]"
    if gpu.compute_capability:
        ok, why = kernel_support(gpu.compute_capability, list(build.compiled_capabilities))
        if not ok:
            return why
    if not tf_sees_any:
        return ("TensorFlow found no usable CUDA runtime: pip install 'mpstudio[cuda]' "
                "(or tensorflow[and-cuda]) and check that the driver is recent enough")
    return "TensorFlow does not list it"


def _match(tf_gpus: list[TfGpu], candidates: list[NvmlGpu]) -> list[NvmlGpu | None]:
    """NVML's record for each TensorFlow GPU: same name first, then a MIG slice's
    parent (TensorFlow names it "<parent> MIG 1g.5gb"), then what is left, in order."""
    free = list(candidates)
    found: list[NvmlGpu | None] = [None] * len(tf_gpus)
    for same in (lambda t, n: t == n, lambda t, n: t.startswith(n)):
        for i, gpu in enumerate(tf_gpus):
            if found[i] is None:
                nv = next((n for n in free if same(gpu.name, n.name)), None)
                if nv is not None:
                    free.remove(nv)
                    found[i] = nv
    left = [i for i, nv in enumerate(found) if nv is None]
    if left and len(left) == len(free):
        for i, nv in zip(left, free, strict=True):
            found[i] = nv
    return found


def merge_gpus(tf_gpus: list[TfGpu], scan: NvmlScan, build: TfBuild,
               environ: Mapping[str, str] | None = None,
               system: str | None = None) -> tuple[GpuInfo, ...]:
    """One GpuInfo per GPU: TensorFlow's first (in its order), then the ones only NVML
    sees, each with the reason TensorFlow does not use it."""
    environ = os.environ if environ is None else environ
    system = system or platform.system()
    visible, exact = _visible(scan.gpus, environ)
    matched = _match(tf_gpus, visible)
    merged = []
    for index, (gpu, nv) in enumerate(zip(tf_gpus, matched, strict=True)):
        merged.append(GpuInfo(
            name=gpu.name,
            compute_capability=gpu.compute_capability or (nv.compute_capability if nv else None),
            tf_index=index,
            memory_total=nv.memory_total if nv else None,
            memory_used=nv.memory_used if nv else None,
            memory_free=nv.memory_free if nv else None,
            driver_version=scan.driver_version,
        ))
    setting = environ.get("CUDA_VISIBLE_DEVICES")
    for nv in scan.gpus:
        if nv in matched:
            continue
        hidden = ""
        if nv not in visible:
            hidden = "hidden by CUDA_VISIBLE_DEVICES"
        elif not exact:
            hidden = f"not among the GPUs CUDA_VISIBLE_DEVICES={setting} shows TensorFlow"
        merged.append(GpuInfo(
            name=nv.name, compute_capability=nv.compute_capability, tf_index=None,
            memory_total=nv.memory_total, memory_used=nv.memory_used,
            memory_free=nv.memory_free, driver_version=scan.driver_version,
            not_visible_reason=_unused_reason(nv, build, bool(tf_gpus), hidden, system),
        ))
    return tuple(merged)
