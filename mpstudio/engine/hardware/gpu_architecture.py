"""What an NVIDIA compute capability implies for mixed precision.

Facts from NVIDIA's architecture whitepapers and the CUDA programming guide:
Tensor Cores arrived with Volta (7.0); bfloat16 Tensor Core math with Ampere
(8.0); FP8 with Ada (8.9) and Hopper (9.0). The compute capability alone is not
enough: the GeForce GTX 16 series is Turing (7.5) without Tensor Cores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said

Capability = tuple[int, int]

# (first capability of the family, family name, Tensor Core generation or 0)
_FAMILIES: tuple[tuple[Capability, str, int], ...] = (
    ((3, 0), "Kepler", 0),
    ((5, 0), "Maxwell", 0),
    ((6, 0), "Pascal", 0),
    ((7, 0), "Volta", 1),
    ((7, 5), "Turing", 2),
    ((8, 0), "Ampere", 3),
    ((8, 9), "Ada Lovelace", 4),
    ((9, 0), "Hopper", 4),
    ((10, 0), "Blackwell", 5),
)

# Turing chips without Tensor Cores (TU116/TU117): GTX 16xx, MX450/MX550 and the
# Quadro/RTX-less T-series (T400 ... T2000).
_TURING_WITHOUT_TENSOR_CORES = re.compile(
    r"GTX\s*16\d\d|\bMX\s*[45]\d0\b|\bT(?:400|500|550|600|1000|1200|2000)\b", re.I
)


@dataclass(frozen=True)
class GpuArchitecture:
    family: str
    tensor_core_generation: int  # 0: none
    float16_tensor_cores: bool
    bfloat16_tensor_cores: bool
    fp8_tensor_cores: bool
    note: str  # one sentence that matters for mixed precision (a ``Said``), or ""

    @property
    def tensor_cores_label(self) -> str:
        """"3rd gen", "none": English, for JSON (``tensor_cores_text`` is shown)."""
        if not self.tensor_core_generation:
            return "none"
        ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(self.tensor_core_generation)
        return f"{ordinal or str(self.tensor_core_generation) + 'th'} gen"

    @property
    def tensor_cores_text(self) -> Said:
        """The Tensor Core generation as shown: "3rd gen", "none"."""
        generation = self.tensor_core_generation
        if not generation:
            return said(N_("none"))
        ordinal = {1: N_("1st gen"), 2: N_("2nd gen"), 3: N_("3rd gen")}.get(generation)
        return said(ordinal) if ordinal else said(N_("{n}th gen"), n=generation)

    @property
    def family_text(self) -> str:
        """The family as shown: its name ("Ampere"), or what stands for one."""
        words = {"unknown": N_("unknown architecture"),
                 "older than Kepler": N_("older than Kepler")}
        return said(words[self.family]) if self.family in words else self.family


def architecture(capability: Capability | None, name: str = "") -> GpuArchitecture:
    """The mixed-precision facts of a GPU, from its compute capability and name."""
    if capability is None:
        return GpuArchitecture("unknown", 0, False, False, False,
                               said(N_("compute capability unknown: measure to know")))
    family, generation = "older than Kepler", 0
    for first, fam, gen in _FAMILIES:
        if capability >= first:
            family, generation = fam, gen
    note = ""
    if generation and capability == (7, 5) and _TURING_WITHOUT_TENSOR_CORES.search(name):
        generation = 0
        note = said(N_("this Turing chip (TU116/TU117) has no Tensor Cores, only "
                           "double-rate float16 ALUs"))
    elif capability == (6, 1):
        note = said(N_("GeForce/Quadro Pascal (6.1) runs float16 arithmetic at 1/64 of "
                           "the float32 rate"))
    elif capability in ((6, 0), (6, 2)):
        note = said(N_("double-rate float16 ALUs but no Tensor Cores"))
    elif capability >= (8, 9):
        note = said(N_("FP8 Tensor Cores: the float8 precision can use them"))
    return GpuArchitecture(
        family=family,
        tensor_core_generation=generation,
        float16_tensor_cores=generation >= 1,
        bfloat16_tensor_cores=generation >= 3,
        fp8_tensor_cores=generation >= 4,
        note=note,
    )


def tf32_capable(capability: Capability | None) -> bool:
    """Ampere and newer run float32 matmuls and convolutions as TF32 by default."""
    return capability is not None and capability >= (8, 0)


def kernel_support(capability: Capability, compiled: list[str]) -> tuple[bool, str]:
    """Whether TensorFlow's compiled CUDA kernels run on this GPU, and how.

    ``compiled`` is the build's list, like ``["sm_60", "sm_70", "compute_90"]``:
    ``sm_XY`` machine code runs on the same major version with minor >= Y;
    ``compute_XY`` PTX is compiled by the driver for any capability >= X.Y.
    """
    if not compiled:
        return True, ""
    binaries: list[Capability] = []
    ptx: list[Capability] = []
    for entry in compiled:
        kind, _, digits = entry.partition("_")
        if len(digits) < 2 or not digits.isdigit():
            continue
        cap = (int(digits[:-1]), int(digits[-1]))
        (binaries if kind == "sm" else ptx).append(cap)
    if any(b[0] == capability[0] and b[1] <= capability[1] for b in binaries):
        return True, ""
    usable_ptx = [p for p in ptx if p <= capability]
    if usable_ptx:
        newest = max(usable_ptx)
        return True, said(N_(
            "no kernels compiled for {capability}: the driver compiles TensorFlow's PTX "
            "({ptx}) at start, which TensorFlow warns can take 30 minutes the first time"),
            capability=f"{capability[0]}.{capability[1]}", ptx=f"{newest[0]}.{newest[1]}")
    oldest = min(binaries + ptx) if binaries + ptx else None
    here = f"{capability[0]}.{capability[1]}"
    if oldest:
        return False, said(N_("this TensorFlow has no kernels for compute capability "
                                  "{capability} ({oldest} and newer)"),
                               capability=here, oldest=f"{oldest[0]}.{oldest[1]}")
    return False, said(N_("this TensorFlow has no kernels for compute capability "
                              "{capability}"), capability=here)
