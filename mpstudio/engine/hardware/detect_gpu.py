"""GPUs as TensorFlow sees them, joined with what the NVIDIA driver reports.

TensorFlow gives name and compute capability; NVML (nvidia-ml-py) adds memory in
use and the driver version without touching TensorFlow's runtime, and also sees
GPUs TensorFlow cannot use (no CUDA libraries, too old), which is the first thing
a user whose GPU "is not used" needs to know.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

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


@dataclass
class _Pool:
    free: list[NvmlGpu] = field(default_factory=list)

    def take(self, name: str) -> NvmlGpu | None:
        for gpu in self.free:
            if gpu.name == name:
                self.free.remove(gpu)
                return gpu
        return None


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
        tf32_enabled=tf.config.experimental.tensor_float_32_execution_enabled(),
    )


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
    try:
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            gpus.append(NvmlGpu(
                index=index,
                name=_text(pynvml.nvmlDeviceGetName(handle)),
                uuid=_text(pynvml.nvmlDeviceGetUUID(handle)),
                compute_capability=tuple(pynvml.nvmlDeviceGetCudaComputeCapability(handle)),
                memory_total=int(memory.total),
                memory_used=int(memory.used),
                memory_free=int(memory.free),
            ))
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        return NvmlScan(tuple(gpus), driver)
    except pynvml.NVMLError as exc:
        return NvmlScan(note=f"the NVIDIA driver's NVML query failed ({exc})")
    finally:
        pynvml.nvmlShutdown()


def _visible(nvml: tuple[NvmlGpu, ...], environ: Mapping[str, str]) -> list[NvmlGpu]:
    """The NVML GPUs CUDA_VISIBLE_DEVICES lets TensorFlow see, in that order."""
    setting = environ.get("CUDA_VISIBLE_DEVICES")
    if setting is None:
        return list(nvml)
    chosen = []
    for part in (p.strip() for p in setting.split(",") if p.strip()):
        match = [g for g in nvml if (part.isdigit() and g.index == int(part))
                 or (not part.isdigit() and g.uuid.startswith(part))]
        if not match:
            break  # CUDA stops at the first invalid entry
        chosen.extend(m for m in match if m not in chosen)
    return chosen


def _unused_reason(gpu: NvmlGpu, build: TfBuild, tf_sees_any: bool, hidden: bool) -> str:
    if hidden:
        return "hidden by CUDA_VISIBLE_DEVICES"
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


def merge_gpus(tf_gpus: list[TfGpu], scan: NvmlScan, build: TfBuild,
               environ: Mapping[str, str] | None = None) -> tuple[GpuInfo, ...]:
    """One GpuInfo per GPU: TensorFlow's first (in its order), then the ones only NVML
    sees. TensorFlow and NVML may order GPUs differently, so they are matched by name."""
    environ = os.environ if environ is None else environ
    visible = _visible(scan.gpus, environ)
    pool = _Pool(list(visible))
    merged = []
    for index, gpu in enumerate(tf_gpus):
        nv = pool.take(gpu.name)
        merged.append(GpuInfo(
            name=gpu.name,
            compute_capability=gpu.compute_capability or (nv.compute_capability if nv else None),
            tf_index=index,
            memory_total=nv.memory_total if nv else None,
            memory_used=nv.memory_used if nv else None,
            memory_free=nv.memory_free if nv else None,
            driver_version=scan.driver_version,
        ))
    for nv in scan.gpus:
        if nv in visible and nv not in pool.free:
            continue
        merged.append(GpuInfo(
            name=nv.name, compute_capability=nv.compute_capability, tf_index=None,
            memory_total=nv.memory_total, memory_used=nv.memory_used,
            memory_free=nv.memory_free, driver_version=scan.driver_version,
            not_visible_reason=_unused_reason(nv, build, bool(tf_gpus), nv not in visible),
        ))
    return tuple(merged)
