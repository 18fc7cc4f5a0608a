"""What the hardware check found: plain frozen dataclasses, JSON-ready (its notes and
reasons are Sentences: shown in the user's language, in English in ``to_dict``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from mpstudio.engine.hardware.gpu_architecture import (
    Capability,
    GpuArchitecture,
    architecture,
)
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import english_tree

# CPU flags that decide half-precision speed (Linux /proc/cpuinfo names; the last
# three are Arm's half-precision SIMD, BF16 and SVE).
CPU_FLAGS = ("avx512f", "avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c",
             "asimdhp", "bf16", "sve")
# Of those, the ones that do a half type's math natively, by mixed policy
NATIVE_HALF_FLAGS = {"mixed_bfloat16": ("amx_bf16", "avx512_bf16", "bf16"),
                     "mixed_float16": ("amx_fp16", "avx512_fp16", "asimdhp")}


@dataclass(frozen=True)
class TfBuild:
    tensorflow: str
    keras: str
    cuda_build: bool
    rocm_build: bool
    cuda_version: str | None = None
    cudnn_version: str | None = None
    compiled_capabilities: tuple[str, ...] = ()
    tf32_enabled: bool = True


UNUSED_GPU = N_("GPU (unused)")  # the label of a GPU TensorFlow cannot use (a key too)


def device_label_text(label: str) -> str:
    """A device label of the check ("GPU:0", "TPU", "CPU", "GPU (unused)") as shown."""
    return _(UNUSED_GPU) if label == UNUSED_GPU else label


@dataclass(frozen=True)
class GpuInfo:
    name: str
    compute_capability: Capability | None
    tf_index: int | None  # None: NVML sees it, TensorFlow cannot use it
    memory_total: int | None = None  # bytes (NVML)
    memory_used: int | None = None
    memory_free: int | None = None
    driver_version: str | None = None
    not_visible_reason: str = ""

    @property
    def label(self) -> str:
        return f"GPU:{self.tf_index}" if self.tf_index is not None else UNUSED_GPU

    @property
    def visible_to_tensorflow(self) -> bool:
        return self.tf_index is not None

    @property
    def arch(self) -> GpuArchitecture:
        return architecture(self.compute_capability, self.name)

    @property
    def capability_text(self) -> str:
        cc = self.compute_capability
        return f"{cc[0]}.{cc[1]}" if cc else "unknown"


@dataclass(frozen=True)
class TpuInfo:
    found: bool
    accelerator_type: str | None = None  # "v4-8"
    cores: int | None = None
    note: str = ""  # how it was (not) probed

    @property
    def generation(self) -> str | None:
        kind = (self.accelerator_type or "").lower()
        return kind.split("-")[0] if kind else None


@dataclass(frozen=True)
class CpuInfo:
    model: str
    architecture: str  # "x86_64", "aarch64", ...
    logical_cores: int
    physical_cores: int | None
    memory_total: int | None  # bytes
    flags: frozenset[str] = field(default_factory=frozenset)
    flags_known: bool = True  # False where the OS gave no flag list
    onednn: bool = True  # TensorFlow's oneDNN kernels (what uses AMX/AVX-512 BF16)

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def native_half(self, precision: str) -> bool:
        """Whether this CPU has the instructions that do ``precision``'s half-type math
        natively (AMX, AVX-512 BF16/FP16, Arm's half SIMD and BF16)."""
        return any(self.has(flag) for flag in NATIVE_HALF_FLAGS.get(precision, ()))


@dataclass(frozen=True)
class HardwareReport:
    build: TfBuild
    gpus: tuple[GpuInfo, ...]
    tpu: TpuInfo
    cpu: CpuInfo
    nvml_note: str = ""  # why memory use and driver are missing, or ""

    @property
    def usable_gpus(self) -> tuple[GpuInfo, ...]:
        return tuple(g for g in self.gpus if g.visible_to_tensorflow)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["cpu"]["flags"] = sorted(self.cpu.flags)
        for gpu, out in zip(self.gpus, data["gpus"], strict=True):
            arch = gpu.arch
            out["compute_capability"] = gpu.capability_text if gpu.compute_capability else None
            out.update(architecture=arch.family, tensor_cores=arch.tensor_cores_label,
                       float16_tensor_cores=arch.float16_tensor_cores,
                       bfloat16_tensor_cores=arch.bfloat16_tensor_cores,
                       fp8_tensor_cores=arch.fp8_tensor_cores, note=arch.note)
        return english_tree(data)
