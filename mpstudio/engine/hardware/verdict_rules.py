"""What each precision policy will do on a device, from what it is (no measurement).

One sentence of reason per verdict; the advisor replaces the half-precision
verdicts with measured ones when the micro-benchmark ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mpstudio.engine.hardware.gpu_architecture import kernel_support, tf32_capable
from mpstudio.engine.hardware.report import CpuInfo, GpuInfo, TfBuild, TpuInfo
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import said

POLICIES = ("float32", "mixed_float16", "mixed_bfloat16")


class Verdict(str, Enum):
    """The values are keys (JSON, colours, the window's marks); ``display`` is shown."""

    RECOMMENDED = "recommended"
    NO_GAIN = "works, no faster"
    SLOWER = "works but slower"
    MEASURE = "measure to know"
    UNSUPPORTED = "not supported"

    @property
    def display(self) -> str:
        """The verdict in the language in force."""
        return _(VERDICT_TEXT[self.value])


# The verdicts as shown (their English is their value).
VERDICT_TEXT = {
    "recommended": N_("recommended"),
    "works, no faster": N_("works, no faster"),
    "works but slower": N_("works but slower"),
    "measure to know": N_("measure to know"),
    "not supported": N_("not supported"),
}


def verdict_text(verdict: Verdict | str) -> str:
    """A verdict (or its value) in the language in force."""
    value = verdict.value if isinstance(verdict, Verdict) else verdict
    return _(VERDICT_TEXT[value]) if value in VERDICT_TEXT else value


@dataclass(frozen=True)
class Rule:
    verdict: Verdict
    reason: str  # a sentence (``Said``): one sentence in the user's language, English in JSON


Rules = dict[str, Rule]  # policy -> rule
# Which half policy a device prefers when both would help.
GPU_PREFERENCE = ("mixed_float16", "mixed_bfloat16")
TPU_PREFERENCE = ("mixed_bfloat16",)
CPU_PREFERENCE = ("mixed_bfloat16", "mixed_float16")


def until_measured() -> Rule:
    return Rule(Verdict.RECOMMENDED, said(N_(
        "the safe choice until the measurement shows a half type is faster")))


def gpu_rules(gpu: GpuInfo, build: TfBuild) -> Rules:
    if not gpu.visible_to_tensorflow:
        why = said(N_("TensorFlow cannot use this GPU: {reason}"),
                       reason=gpu.not_visible_reason)
        return {p: Rule(Verdict.UNSUPPORTED, why) for p in POLICIES}
    arch, cc = gpu.arch, gpu.compute_capability
    capability = gpu.capability_text if cc else said(N_("unknown"))
    rules: Rules = {}
    if arch.float16_tensor_cores:
        rules["mixed_float16"] = Rule(Verdict.RECOMMENDED, said(N_(
            "{generation} Tensor Cores ({family}) run float16 matmuls and convolutions at "
            "up to {ratio} {baseline}'s rate; a model gains where its step is compute-bound "
            "(large batches, wide layers, convolutions), not where it is short; dynamic loss "
            "scaling keeps small gradients"),
            generation=arch.tensor_cores_text, family=arch.family_text,
            **_peak_ratio(gpu, build)))
    elif cc is not None and cc < (7, 0) and cc not in ((6, 0), (6, 2)):
        slow = arch.note or said(N_("float16 math is no faster"))
        rules["mixed_float16"] = Rule(Verdict.SLOWER, said(N_(
            "no Tensor Cores ({family} {capability}): {slow}; only memory is saved"),
            family=arch.family_text, capability=capability, slow=slow))
    else:
        rules["mixed_float16"] = Rule(Verdict.MEASURE, said(N_(
            "no Tensor Cores: {note}; gains, if any, are small: run the measurement"),
            note=arch.note or said(N_("the architecture is unknown"))))
    if arch.bfloat16_tensor_cores:
        rules["mixed_bfloat16"] = Rule(Verdict.RECOMMENDED, said(N_(
            "bfloat16 Tensor Cores (8.0+) match float16's speed with float32's exponent "
            "range, so no loss scaling is needed")))
    else:
        rules["mixed_bfloat16"] = Rule(Verdict.SLOWER, said(N_(
            "no bfloat16 Tensor Cores below compute capability 8.0 (this is {capability}): "
            "bfloat16 math is converted through float32"), capability=capability))
    half = any(r.verdict is Verdict.RECOMMENDED for r in rules.values())
    if half and tf32_capable(cc) and build.tf32_enabled:
        rules["float32"] = Rule(Verdict.SLOWER, said(N_(
            "the accurate baseline (as TF32 here: float32 range, 10-bit mantissa), but it "
            "leaves the Tensor Cores' half-precision rate unused")))
    elif half:
        rules["float32"] = Rule(Verdict.SLOWER, said(N_(
            "the accurate baseline, but it leaves the Tensor Cores' half-precision rate "
            "unused")))
    else:
        rules["float32"] = Rule(Verdict.RECOMMENDED, said(N_(
            "no Tensor Cores to gain from: float32 is the fastest safe choice on this GPU")))
    return rules


def _peak_ratio(gpu: GpuInfo, build: TfBuild) -> dict[str, str]:
    """float16's peak over float32's (TF32's where it runs as TF32) from the device table,
    or what the generation gives where the GPU is not in it."""
    from mpstudio.engine.prediction.device_rates import gpu_rates

    tf32 = tf32_capable(gpu.compute_capability) and build.tf32_enabled
    baseline = "TF32" if tf32 else "float32"
    rates = gpu_rates(gpu.name)
    if rates is not None:
        base = rates.tflops.get("tf32" if tf32 else "float32") or rates.tflops["float32"]
        ratio = rates.tflops["float16"] / base
        return {"ratio": f"{ratio:.0f}x" if ratio >= 3 else f"{ratio:.1f}x",
                "baseline": baseline}
    return {"ratio": "2x" if tf32 else "8x", "baseline": baseline}


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
        "mixed_bfloat16": Rule(Verdict.RECOMMENDED, said(N_(
            "the TPU's matrix units multiply in bfloat16 natively; mixed_bfloat16 also halves "
            "activation memory and needs no loss scaling"))),
        "float32": Rule(Verdict.SLOWER, said(N_(
            "works, but every tensor moves as float32: twice the memory traffic of bfloat16 "
            "for matrix units that multiply in bfloat16 anyway"))),
        "mixed_float16": Rule(Verdict.UNSUPPORTED, said(N_(
            "TPUs have no float16 arithmetic: use mixed_bfloat16"))),
    }


def cpu_rules(cpu: CpuInfo) -> Rules:
    if not cpu.flags_known:  # macOS, Windows: no flag list, so no claim either way
        unknown = Rule(Verdict.MEASURE, said(N_(
            "this OS gives no CPU flag list, so native half-precision support is unknown: "
            "run the measurement")))
        return {"mixed_bfloat16": unknown, "mixed_float16": unknown,
                "float32": until_measured()}
    rules: Rules = {}
    if cpu.has("amx_bf16") and cpu.onednn:
        rules["mixed_bfloat16"] = Rule(Verdict.RECOMMENDED, said(N_(
            "AMX tile units multiply bfloat16 many times faster than float32 through "
            "TensorFlow's oneDNN kernels")))
    elif cpu.native_half("mixed_bfloat16") and cpu.onednn:
        rules["mixed_bfloat16"] = Rule(Verdict.MEASURE, said(N_(
            "bfloat16 dot-product instructions are present; gains depend on the model: run "
            "the measurement")))
    elif cpu.native_half("mixed_bfloat16"):
        rules["mixed_bfloat16"] = Rule(Verdict.MEASURE, said(N_(
            "bfloat16 dot-product instructions are present (but TensorFlow's oneDNN kernels "
            "are off here: TF_ENABLE_ONEDNN_OPTS=0 or not x86 Linux); gains depend on the "
            "model: run the measurement")))
    else:
        rules["mixed_bfloat16"] = Rule(Verdict.SLOWER, said(N_(
            "no bfloat16 instructions on this CPU: every op converts bfloat16 through "
            "float32, which is slower than float32")))
    if cpu.native_half("mixed_float16") and cpu.onednn:
        rules["mixed_float16"] = Rule(Verdict.MEASURE, said(N_(
            "native float16 arithmetic is present; TensorFlow uses it for some ops only: run "
            "the measurement")))
    elif cpu.native_half("mixed_float16"):
        rules["mixed_float16"] = Rule(Verdict.MEASURE, said(N_(
            "native float16 arithmetic is present (but TensorFlow's oneDNN kernels are off "
            "here: TF_ENABLE_ONEDNN_OPTS=0 or not x86 Linux); TensorFlow uses it for some "
            "ops only: run the measurement")))
    elif cpu.has("f16c"):
        rules["mixed_float16"] = Rule(Verdict.SLOWER, said(N_(
            "no native float16 arithmetic on this CPU (F16C only converts): float16 math is "
            "emulated, slower than float32")))
    else:
        rules["mixed_float16"] = Rule(Verdict.SLOWER, said(N_(
            "no native float16 arithmetic on this CPU: float16 math is emulated, slower "
            "than float32")))
    if rules["mixed_bfloat16"].verdict is Verdict.RECOMMENDED:
        rules["float32"] = Rule(Verdict.SLOWER, said(N_(
            "works, but leaves the AMX bfloat16 rate unused")))
    elif Verdict.MEASURE in (r.verdict for r in rules.values()):
        rules["float32"] = until_measured()
    else:
        rules["float32"] = Rule(Verdict.RECOMMENDED, said(N_(
            "the fastest safe choice: this CPU has no half-precision math that TensorFlow "
            "is known to speed up")))
    return rules


# float8 (engine/float8.py): not one of POLICIES (never a device's default), a verdict
# of its own beside them. Keras' float8 is a quantize-dequantize around bfloat16 matmuls
# that only XLA's GPU compiler on compute capability 8.9+ turns into float8 matmuls.
FLOAT8 = "float8"
FLOAT8_FROM = (8, 9)


def float8_gpu_rule(gpu: GpuInfo) -> Rule:
    if not gpu.visible_to_tensorflow:
        return Rule(Verdict.UNSUPPORTED, said(N_("TensorFlow cannot use this GPU: {reason}"),
                                              reason=gpu.not_visible_reason))
    cc = gpu.compute_capability
    if cc is None or cc < FLOAT8_FROM:
        return float8_unsupported(said(N_("a GPU of compute capability {capability}"),
                                       capability=gpu.capability_text))
    return Rule(Verdict.MEASURE, said(N_(
        "FP8 Tensor Cores ({capability}): Dense/EinsumDense layers of a mixed_bfloat16 "
        "model run float8 matmuls under XLA; only wide layers gain (NVIDIA's Transformer "
        "Engine: slower than bfloat16 at hidden size 1024, faster from about 5000): compare "
        "with mixed_bfloat16"), capability=gpu.capability_text))


def float8_unsupported(where: str) -> Rule:
    """``where``: the device in words ("a GPU of compute capability 8.0", the CPU)."""
    return Rule(Verdict.UNSUPPORTED, said(N_(
        "float8 matmuls need a GPU of compute capability 8.9 or newer (Ada, Hopper, "
        "Blackwell); this machine has {device}"), device=where))


def float8_tpu_rule() -> Rule:
    return Rule(Verdict.UNSUPPORTED, said(N_(
        "Keras 3's float8 layers are a quantize-dequantize that only XLA's GPU compiler "
        "turns into float8 matmuls; on a TPU they run as bfloat16 with extra work: use "
        "mixed_bfloat16")))
