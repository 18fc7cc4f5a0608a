"""GPUs as TensorFlow sees them, joined with what the NVIDIA driver reports.

TensorFlow gives name and compute capability; NVML (nvidia-ml-py) adds memory in
use and the driver version without touching TensorFlow's runtime, and also sees
GPUs TensorFlow cannot use (no CUDA libraries, too old), which is the first thing
a user whose GPU "is not used" needs to know. A GPU in MIG mode is split into MIG
slices, each a CUDA device of its own with its own memory: NVML lists them under
their GPU, TensorFlow names one "<GPU name> MIG 1g.5gb".
"""

from __future__ import annotations

import contextlib
import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mpstudio.engine.hardware.gpu_architecture import Capability, kernel_support
from mpstudio.engine.hardware.report import GpuInfo, TfBuild
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, clauses, said


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
    mig_index: int | None = None  # a MIG slice (its index under GPU ``index``); None: a GPU
    mig_mode: bool = False  # a GPU split into MIG slices (CUDA cannot use it whole)

    @property
    def is_mig_slice(self) -> bool:
        return self.mig_index is not None


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


def nvml_scan(nvml: Any = None) -> NvmlScan:
    """Every GPU and MIG slice the NVIDIA driver reports. ``nvml`` is the pynvml
    module; a test passes a stand-in that describes another machine."""
    if nvml is None:
        try:
            import pynvml
        except ImportError:
            return NvmlScan(note=said(N_("nvidia-ml-py is not installed")))
        nvml = pynvml
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        return NvmlScan(note=said(N_("no NVIDIA driver reachable ({error})"),
                                      error=str(exc)))
    gpus: list[NvmlGpu] = []
    failures: list[Said] = []
    driver = None
    try:
        with contextlib.suppress(nvml.NVMLError):
            driver = _text(nvml.nvmlSystemGetDriverVersion())
        try:
            count = nvml.nvmlDeviceGetCount()
        except nvml.NVMLError as exc:
            return NvmlScan(driver_version=driver, note=said(
                N_("NVML could not count GPUs ({error})"), error=str(exc)))
        for index in range(count):
            try:  # one GPU a container may not query must not hide the others
                handle = nvml.nvmlDeviceGetHandleByIndex(index)
                gpu = _nvml_gpu(nvml, handle, index)
            except nvml.NVMLError as exc:
                failures.append(said(N_("GPU {index}: {error}"), index=index,
                                         error=str(exc)))
                continue
            if _mig_mode_on(nvml, handle):
                gpus.append(replace(gpu, mig_mode=True))
                gpus.extend(_mig_slices(nvml, handle, gpu, failures))
            else:
                gpus.append(gpu)
    finally:
        nvml.nvmlShutdown()
    note = said(N_("NVML could not query {failures}"),
                    failures=clauses(*failures)) if failures else ""
    return NvmlScan(tuple(gpus), driver, note)


def _nvml_gpu(nvml, handle, index: int) -> NvmlGpu:
    memory = nvml.nvmlDeviceGetMemoryInfo(handle)
    return NvmlGpu(
        index=index,
        name=_text(nvml.nvmlDeviceGetName(handle)),
        uuid=_text(nvml.nvmlDeviceGetUUID(handle)),
        compute_capability=tuple(nvml.nvmlDeviceGetCudaComputeCapability(handle)),
        memory_total=int(memory.total),
        memory_used=int(memory.used),
        memory_free=int(memory.free),
    )


def _mig_mode_on(nvml, handle) -> bool:
    """GPUs before Ampere (and drivers before R450) have no MIG: NotSupported."""
    try:
        current, _pending = nvml.nvmlDeviceGetMigMode(handle)
    except (nvml.NVMLError, AttributeError):
        return False
    return current == getattr(nvml, "NVML_DEVICE_MIG_ENABLE", 1)


def _mig_slices(nvml, handle, gpu: NvmlGpu, failures: list[Said]) -> list[NvmlGpu]:
    """The MIG slices set up on a GPU in MIG mode, each with its own memory and
    "MIG-" UUID, named as CUDA names them ("<GPU name> MIG 1g.5gb", also where NVML
    gives the profile alone); the compute capability is the GPU's."""
    try:
        slots = nvml.nvmlDeviceGetMaxMigDeviceCount(handle)
    except nvml.NVMLError as exc:
        failures.append(said(N_("the MIG slices of GPU {index}: {error}"),
                                 index=gpu.index, error=str(exc)))
        return []
    found = []
    for slot in range(slots):
        try:
            mig = nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot)
        except nvml.NVMLError:
            continue  # NotFound: no slice in this slot
        try:
            name = _text(nvml.nvmlDeviceGetName(mig))
            memory = nvml.nvmlDeviceGetMemoryInfo(mig)
            found.append(replace(
                gpu, name=name if name.startswith(gpu.name) else f"{gpu.name} {name}",
                uuid=_text(nvml.nvmlDeviceGetUUID(mig)), memory_total=int(memory.total),
                memory_used=int(memory.used), memory_free=int(memory.free), mig_index=slot))
        except nvml.NVMLError as exc:
            failures.append(said(N_("GPU {index} MIG slice {slot}: {error}"),
                                     index=gpu.index, slot=slot, error=str(exc)))
    return found


def _cuda_devices(nvml: tuple[NvmlGpu, ...]) -> list[NvmlGpu]:
    """What CUDA can enumerate: whole GPUs, and MIG slices in place of their GPU. A GPU in
    MIG mode whose slices NVML did not list stays, for TensorFlow's "<name> MIG" to match."""
    split = {g.index for g in nvml if g.is_mig_slice}
    return [g for g in nvml if not (g.mig_mode and g.index in split)]


def _is_uuid(part: str) -> bool:
    # "MIG-GPU-<uuid>/<gi>/<ci>" is the pre-R470 way to name a slice: not an NVML UUID
    return part.startswith("GPU-") or (part.startswith("MIG-") and "/" not in part)


def _visible(nvml: tuple[NvmlGpu, ...], environ: Mapping[str, str],
             ) -> tuple[list[NvmlGpu], bool]:
    """The NVML devices TensorFlow may see, and whether that list is exact.

    CUDA_VISIBLE_DEVICES names GPUs by UUID or by CUDA's index, and CUDA's index
    follows NVML's (PCI) order only with CUDA_DEVICE_ORDER=PCI_BUS_ID; its default
    puts the fastest first. A GPU in MIG mode stands for its slices; a slice is named
    by its "MIG-" UUID. Where the mapping is not certain, every device is a candidate
    and name matching decides."""
    devices = _cuda_devices(nvml)
    setting = environ.get("CUDA_VISIBLE_DEVICES")
    if setting is None:
        return devices, True
    parts = [p.strip() for p in setting.split(",") if p.strip()]
    pci_order = environ.get("CUDA_DEVICE_ORDER", "FASTEST_FIRST") == "PCI_BUS_ID"
    exact = all(_is_uuid(p) for p in parts) or (pci_order and all(p.isdigit() for p in parts))
    if not exact:
        return devices, False
    gpu_uuid = {g.index: g.uuid for g in nvml if not g.is_mig_slice}

    def named(part: str, device: NvmlGpu) -> bool:
        if part.isdigit():
            return device.index == int(part)
        return device.uuid.startswith(part) or (
            device.is_mig_slice and gpu_uuid.get(device.index, "").startswith(part))

    chosen: list[NvmlGpu] = []
    for part in parts:
        match = [g for g in devices if named(part, g)]
        if not match:
            if part.startswith("MIG-"):  # a slice NVML could not list: match by name
                return devices, False
            break  # CUDA stops at the first invalid entry
        chosen.extend(m for m in match if m not in chosen)
    return chosen, True


def cuda_visible(scan: NvmlScan, environ: Mapping[str, str]) -> list[NvmlGpu]:
    """The NVML devices CUDA may show this process: those CUDA_VISIBLE_DEVICES names
    (every one where its mapping is not certain), MIG slices in place of their GPU."""
    return _visible(scan.gpus, environ)[0]


def _unused_reason(gpu: NvmlGpu, build: TfBuild, tf_sees_any: bool, hidden: str,
                   system: str) -> str:
    if hidden:
        return hidden
    if gpu.mig_mode:
        return said(N_(
            "MIG mode is on and NVML lists no MIG slice on this GPU: create one "
            "(`nvidia-smi mig -lgip` lists the profiles, `nvidia-smi mig -cgi <profile> -C` "
            "creates one) or turn MIG mode off (`nvidia-smi -i {index} -mig 0`)"),
            index=gpu.index)
    if system == "Windows":
        return said(N_("TensorFlow has no GPU support on native Windows since 2.11: run "
                           "mpstudio in WSL2 to use this GPU"))
    if not build.cuda_build:
        return said(N_("this TensorFlow was built without CUDA: install "
                           "tensorflow[and-cuda]"))
    if gpu.compute_capability:
        ok, why = kernel_support(gpu.compute_capability, list(build.compiled_capabilities))
        if not ok:
            return why
    if not tf_sees_any:
        return said(N_("TensorFlow found no usable CUDA runtime: pip install "
                           "'mpstudio[cuda]' (or tensorflow[and-cuda]) and check that the "
                           "driver is recent enough"))
    if gpu.is_mig_slice:  # CUDA enumerates one MIG slice per process
        return said(N_("TensorFlow uses one MIG slice per process: to train on this one, "
                           "set CUDA_VISIBLE_DEVICES={uuid}"), uuid=gpu.uuid)
    return said(N_("TensorFlow does not list it"))


def _is_mig_name(name: str) -> bool:
    return " MIG " in name  # CUDA names a slice "NVIDIA A100-SXM4-40GB MIG 1g.5gb"


def _match(tf_gpus: list[TfGpu], candidates: list[NvmlGpu]) -> list[NvmlGpu | None]:
    """NVML's record for each TensorFlow GPU: same name first (a MIG slice's own record),
    then a GPU whose name starts TensorFlow's (a MIG slice of a GPU whose slices NVML did
    not list), then what is left, in order."""
    free = list(candidates)
    found: list[NvmlGpu | None] = [None] * len(tf_gpus)
    for same in (lambda t, n: t == n.name,
                 lambda t, n: not n.is_mig_slice and t.startswith(n.name)):
        for i, gpu in enumerate(tf_gpus):
            if found[i] is None:
                nv = next((n for n in free if same(gpu.name, n)), None)
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
        # a slice matched to its whole GPU: the GPU's memory is not the slice's
        sized = nv if nv and (nv.is_mig_slice or not _is_mig_name(gpu.name)) else None
        merged.append(GpuInfo(
            name=gpu.name,
            compute_capability=gpu.compute_capability or (nv.compute_capability if nv else None),
            tf_index=index,
            memory_total=sized.memory_total if sized else None,
            memory_used=sized.memory_used if sized else None,
            memory_free=sized.memory_free if sized else None,
            driver_version=scan.driver_version,
        ))
    setting = environ.get("CUDA_VISIBLE_DEVICES")
    devices = _cuda_devices(scan.gpus)
    for nv in scan.gpus:
        if nv in matched or nv not in devices:
            continue  # in use, or a GPU its MIG slices stand for
        hidden = ""
        if nv not in visible:
            hidden = said(N_("hidden by CUDA_VISIBLE_DEVICES"))
        elif not exact:
            hidden = said(N_("not among the GPUs CUDA_VISIBLE_DEVICES={setting} shows "
                                 "TensorFlow"), setting=setting)
        merged.append(GpuInfo(
            name=nv.name, compute_capability=nv.compute_capability, tf_index=None,
            memory_total=nv.memory_total, memory_used=nv.memory_used,
            memory_free=nv.memory_free, driver_version=scan.driver_version,
            not_visible_reason=_unused_reason(nv, build, bool(tf_gpus), hidden, system),
        ))
    return tuple(merged)
