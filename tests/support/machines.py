"""Machines this one is not, described through the hardware check's injectable
sources: what TensorFlow would list, what NVML would report (also as a stand-in for
the pynvml module, MIG slices included), a TPU VM, CPUs."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from mpstudio.engine.hardware.detect import HardwareSources
from mpstudio.engine.hardware.detect_cpu import parse_cpuinfo
from mpstudio.engine.hardware.detect_gpu import NvmlGpu, NvmlScan, TfGpu
from mpstudio.engine.hardware.report import CPU_FLAGS, CpuInfo, TfBuild, TpuInfo

GIB = 2**30
CUDA_BUILD = TfBuild(
    tensorflow="2.21.0", keras="3.15.1", cuda_build=True, rocm_build=False,
    cuda_version="12.5.1", cudnn_version="9",
    compiled_capabilities=("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"),
)
CPU_ONLY_BUILD = TfBuild(tensorflow="2.21.0", keras="3.15.1", cuda_build=False,
                         rocm_build=False)

# name, compute capability, memory (GiB)
V100 = ("Tesla V100-SXM2-16GB", (7, 0), 16)
T4 = ("Tesla T4", (7, 5), 15)
A100 = ("NVIDIA A100-SXM4-40GB", (8, 0), 40)
RTX_4090 = ("NVIDIA GeForce RTX 4090", (8, 9), 24)
H100 = ("NVIDIA H100 80GB HBM3", (9, 0), 80)
GTX_1080 = ("NVIDIA GeForce GTX 1080", (6, 1), 8)
GTX_1660 = ("NVIDIA GeForce GTX 1660 SUPER", (7, 5), 6)
GTX_970 = ("NVIDIA GeForce GTX 970", (5, 2), 4)
RTX_5090 = ("NVIDIA GeForce RTX 5090", (12, 0), 32)

# /proc/cpuinfo of a Sapphire Rapids server (flags trimmed to a realistic subset).
SAPPHIRE_RAPIDS = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu vme sse sse2 ssse3 sse4_1 sse4_2 avx f16c fma avx2 avx512f avx512dq avx512cd \
avx512bw avx512vl avx512_vnni avx512_bf16 amx_bf16 avx512_fp16 amx_tile amx_int8

processor\t: 1
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu vme
"""
EPYC_ZEN2 = """processor\t: 0
model name\t: AMD EPYC 7B12
flags\t\t: fpu sse sse2 avx f16c fma avx2 sha_ni
"""
GRAVITON3 = """processor\t: 0
BogoMIPS\t: 2100.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid \
asimdrdm sve bf16 i8mm
CPU implementer\t: 0x41
"""


def cpu_from(text: str, architecture: str = "x86_64", onednn: bool = True) -> CpuInfo:
    model, flags = parse_cpuinfo(text)
    return CpuInfo(model=model or "Arm CPU", architecture=architecture, logical_cores=8,
                   physical_cores=4, memory_total=64 * GIB,
                   flags=frozenset(f for f in flags if f in CPU_FLAGS), onednn=onednn)


def nvml_of(*gpus: tuple[str, tuple[int, int], int]) -> NvmlScan:
    return NvmlScan(
        # each GPU has a different amount in use, so a wrong match shows
        tuple(NvmlGpu(i, name, f"GPU-{i:04d}-uuid", cc, mem * GIB, (i + 1) * GIB // 4,
                      mem * GIB - (i + 1) * GIB // 4)
              for i, (name, cc, mem) in enumerate(gpus)),
        driver_version="580.82.07",
    )


def machine(
    *gpus: tuple[str, tuple[int, int], int],
    tf_sees: bool = True,
    build: TfBuild = CUDA_BUILD,
    tpu: TpuInfo | None = None,
    cpu: CpuInfo | None = None,
    nvml: NvmlScan | None = None,
    environ: dict[str, str] | None = None,
) -> HardwareSources:
    """A server with these GPUs; TensorFlow lists them unless ``tf_sees`` is False."""
    listed = [TfGpu(name, cc) for name, cc, _ in gpus if tf_sees and cc >= (6, 0)]
    scan = nvml if nvml is not None else (nvml_of(*gpus) if gpus else NvmlScan(note="no driver"))
    return HardwareSources(
        build=lambda: build,
        tf_gpus=lambda: listed,
        nvml=lambda: scan,
        tpu=lambda: tpu or TpuInfo(False, note="not probed"),
        cpu=lambda: cpu or cpu_from(EPYC_ZEN2),
        environ=environ or {},
    )


class NVMLError(Exception):
    """pynvml's error: ``value`` is the NVML_ERROR_* code (3 Not Supported, 6 Not Found)."""

    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return {3: "Not Supported", 6: "Not Found"}.get(self.value, f"NVML error {self.value}")


@dataclass
class NvmlDevice:
    """A GPU or a MIG slice as the driver reports it. ``mig``: MIG mode is on, with a
    slice in these slots (empty: none set up); None: MIG off; ``mig_capable=False``:
    a GPU older than Ampere, which answers NotSupported."""

    name: str
    uuid: str
    memory_total: int
    memory_used: int
    compute_capability: tuple[int, int] | None = None  # None: NotSupported
    mig: dict[int, NvmlDevice] | None = None
    mig_capable: bool = True


class FakeNvml:
    """The part of the pynvml module that nvml_scan calls, answering for ``gpus``
    (the handles are the NvmlDevice objects)."""

    CALLED = ("nvmlInit", "nvmlShutdown", "nvmlSystemGetDriverVersion", "nvmlDeviceGetCount",
              "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetName", "nvmlDeviceGetUUID",
              "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetCudaComputeCapability",
              "nvmlDeviceGetMigMode", "nvmlDeviceGetMaxMigDeviceCount",
              "nvmlDeviceGetMigDeviceHandleByIndex")
    NVMLError = NVMLError
    NVML_DEVICE_MIG_DISABLE, NVML_DEVICE_MIG_ENABLE = 0, 1
    MAX_MIG_DEVICES = 7  # an A100's

    def __init__(self, *gpus: NvmlDevice) -> None:
        self.gpus = gpus

    def nvmlInit(self) -> None:
        pass

    def nvmlShutdown(self) -> None:
        pass

    def nvmlSystemGetDriverVersion(self) -> str:
        return "580.82.07"

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> NvmlDevice:
        return self.gpus[index]

    def nvmlDeviceGetName(self, handle: NvmlDevice) -> str:
        return handle.name

    def nvmlDeviceGetUUID(self, handle: NvmlDevice) -> str:
        return handle.uuid

    def nvmlDeviceGetMemoryInfo(self, handle: NvmlDevice) -> SimpleNamespace:
        return SimpleNamespace(total=handle.memory_total, used=handle.memory_used,
                               free=handle.memory_total - handle.memory_used)

    def nvmlDeviceGetCudaComputeCapability(self, handle: NvmlDevice) -> tuple[int, int]:
        if handle.compute_capability is None:
            raise NVMLError(3)
        return handle.compute_capability

    def nvmlDeviceGetMigMode(self, handle: NvmlDevice) -> list[int]:
        if not handle.mig_capable:
            raise NVMLError(3)
        mode = self.NVML_DEVICE_MIG_ENABLE if handle.mig is not None else 0
        return [mode, mode]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: NvmlDevice) -> int:
        return self.MAX_MIG_DEVICES if handle.mig is not None else 0

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: NvmlDevice, index: int) -> NvmlDevice:
        if handle.mig is None or index not in handle.mig:
            raise NVMLError(6)
        return handle.mig[index]
