"""What each precision policy will do on a device, from what it is (no measurement).

One sentence of reason per verdict; the advisor replaces the half-precision
verdicts with measured ones when the micro-benchmark ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mpstudio.engine.hardware.gpu_architecture import kernel_support, tf32_capable
from mpstudio.engine.hardware.report import CpuInfo, GpuInfo, TfBuild, TpuInfo

POLICIES = ("float32", "mixed_float16", "mixed_bfloat16")


class Verdict(str, Enum):
    RECOMMENDED = "recommended"
    NO_GAIN = "works, no faster"
    SLOWER = "works but slower"
    MEASURE = "measure to know"
    UNSUPPORTED = "not supported"


@dataclass(frozen=True)
class Rule:
    verdict: Verdict
    reason: str


Rules = dict[str, Rule]  # policy -> rule
UNTIL_MEASURED = Rule(Verdict.RECOMMENDED, "the safe choice until the measurement shows a "
                      "half type is faster")
# Which half policy a device prefers when both would help.
GPU_PREFERENCE = ("mixed_float16", "mixed_bfloat16")
TPU_PREFERENCE = ("mixed_bfloat16",)
CPU_PREFERENCE = ("mixed_bfloat16", "mixed_float16")


def gpu_rules(gpu: GpuInfo, build: TfBuild) -> Rules:
    if not gpu.visible_to_tensorflow:
        why = f"TensorFlow cannot use this GPU: {gpu.not_visible_reason}"
        return {p: Rule(Verdict.UNSUPPORTED, why) for p in POLICIES}
    arch, cc = gpu.arch, gpu.compute_capability
    rules: Rules = {}
    if arch.float16_tensor_cores:
        rules["mixed_float16"] = Rule(Verdict.RECOMMENDED, (
            f"{arch.tensor_cores_label} Tensor Cores ({arch.family}) run float16 matmuls and "
            "convolutions several times faster than float32; dynamic loss scaling keeps "
            "small gradients"))
    elif cc is not None and cc < (7, 0) and cc not in ((6, 0), (6, 2)):
        slow = arch.note or "float16 math is no faster"
        rules["mixed_float16"] = Rule(Verdict.SLOWER, (
            f"no Tensor Cores ({arch.family} {gpu.capability_text}): {slow}; only memory "
            "is saved"))
    else:
        rules["mixed_float16"] = Rule(Verdict.MEASURE, (
            f"no Tensor Cores: {arch.note or 'the architecture is unknown'}; gains, if any, "
            "are small: run the measurement"))
    if arch.bfloat16_tensor_cores:
        rules["mixed_bfloat16"] = Rule(Verdict.RECOMMENDED, (
            "bfloat16 Tensor Cores (8.0+) match float16's speed with float32's exponent "
            "range, so no loss scaling is needed"))
    else:
        rules["mixed_bfloat16"] = Rule(Verdict.SLOWER, (
            f"no bfloat16 Tensor Cores below compute capability 8.0 (this is "
            f"{gpu.capability_text}): bfloat16 math is converted through float32"))
    half = any(r.verdict is Verdict.RECOMMENDED for r in rules.values())
    tf32 = " (as TF32 here: float32 range, 10-bit mantissa)" if (
        tf32_capable(cc) and build.tf32_enabled) else ""
    if half:
        rules["float32"] = Rule(Verdict.SLOWER, (
            f"the accurate baseline{tf32}, but it leaves the Tensor Cores' half-precision "
            "rate unused"))
    else:
        rules["float32"] = Rule(Verdict.RECOMMENDED, "no Tensor Cores to gain from: float32 "
                                "is the fastest safe choice on this GPU")
    return rules


def gpu_notes(gpu: GpuInfo, build: TfBuild) -> tuple[str, ...]:
    """What matters beside the verdicts: FP8, missing Tensor Cores, PTX start-up cost."""
    notes = [gpu.arch.note] if gpu.arch.note else []
    if gpu.visible_to_tensorflow and gpu.compute_capability:
        _, ptx = kernel_support(gpu.compute_capability, list(build.compiled_capabilities))
        if ptx:
            notes.append(ptx)
    return tuple(notes)


def tpu_rules(tpu: TpuInfo) -> Rules:
    return {
        "mixed_bfloat16": Rule(Verdict.RECOMMENDED, (
            "the TPU's matrix units multiply in bfloat16 natively; mixed_bfloat16 also halves "
            "activation memory and needs no loss scaling")),
        "float32": Rule(Verdict.SLOWER, (
            "works, but every tensor moves as float32: twice the memory traffic of bfloat16 "
            "for matrix units that multiply in bfloat16 anyway")),
        "mixed_float16": Rule(Verdict.UNSUPPORTED, (
            "TPUs have no float16 arithmetic: use mixed_bfloat16")),
    }


def cpu_rules(cpu: CpuInfo) -> Rules:
    if not cpu.flags_known:  # macOS, Windows: no flag list, so no claim either way
        unknown = Rule(Verdict.MEASURE, "this OS gives no CPU flag list, so native "
                       "half-precision support is unknown: run the measurement")
        return {"mixed_bfloat16": unknown, "mixed_float16": unknown,
                "float32": UNTIL_MEASURED}
    onednn = "" if cpu.onednn else " (but TensorFlow's oneDNN kernels are off here: " \
        "TF_ENABLE_ONEDNN_OPTS=0 or not x86 Linux)"
    rules: Rules = {}
    if cpu.has("amx_bf16") and cpu.onednn:
        rules["mixed_bfloat16"] = Rule(Verdict.RECOMMENDED, (
            "AMX tile units multiply bfloat16 many times faster than float32 through "
            "TensorFlow's oneDNN kernels"))
    elif cpu.has("avx512_bf16") or cpu.has("bf16") or cpu.has("amx_bf16"):
        rules["mixed_bfloat16"] = Rule(Verdict.MEASURE, (
            f"bfloat16 dot-product instructions are present{onednn}; gains depend on the "
            "model: run the measurement"))
    else:
        rules["mixed_bfloat16"] = Rule(Verdict.SLOWER, (
            "no bfloat16 instructions on this CPU: every op converts bfloat16 through "
            "float32, which is slower than float32"))
    if cpu.has("amx_fp16") or cpu.has("avx512_fp16") or cpu.has("asimdhp"):
        rules["mixed_float16"] = Rule(Verdict.MEASURE, (
            f"native float16 arithmetic is present{onednn}; TensorFlow uses it for some ops "
            "only: run the measurement"))
    else:
        f16c = " (F16C only converts)" if cpu.has("f16c") else ""
        rules["mixed_float16"] = Rule(Verdict.SLOWER, (
            f"no native float16 arithmetic on this CPU{f16c}: float16 math is emulated, "
            "slower than float32"))
    if rules["mixed_bfloat16"].verdict is Verdict.RECOMMENDED:
        rules["float32"] = Rule(Verdict.SLOWER, "works, but leaves the AMX bfloat16 rate unused")
    elif Verdict.MEASURE in (r.verdict for r in rules.values()):
        rules["float32"] = UNTIL_MEASURED
    else:
        rules["float32"] = Rule(Verdict.RECOMMENDED, (
            "the fastest safe choice: this CPU has no half-precision math that TensorFlow "
            "is known to speed up"))
    return rules
