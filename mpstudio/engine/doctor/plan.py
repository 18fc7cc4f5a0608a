"""What the doctor trains, decided from the hardware report (no TensorFlow here):
the device the checks run on, the policies it supports, the templates and sizes.

The quick set (``--quick``, CI) trains three small templates a few steps on a tiny
synthetic input; the full set trains every template longer, on a bigger input.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said
from mpstudio.engine.templates.registry import template_names

QUICK_TEMPLATES = ("mlp", "cnn", "lstm")  # dense, convolution, and the cuDNN/XLA case
GROWTH_STEPS = 2  # the dynamic loss scale doubles every 2 finite steps: it moves at once
FLOAT16_FROM = (7, 0)  # Tensor Cores (Volta)
BFLOAT16_FROM = (8, 0)  # bfloat16 Tensor Cores (Ampere)


@dataclass(frozen=True)
class PolicyChoice:
    policy: str
    checked: bool
    reason: Said  # why it is (not) checked on this device


@dataclass(frozen=True)
class DoctorPlan:
    quick: bool
    templates: tuple[str, ...]
    steps: int  # training steps per template and policy
    batch_size: int
    shape: tuple[int, ...]  # the synthetic input
    classes: int
    timing_template: str
    timing_steps: int
    timing_batch_size: int
    timing_shape: tuple[int, ...]
    timing_repeats: int  # trials per side, alternating float32 and mixed
    learning_rate: float = 1e-3

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_plan(quick: bool, accelerator: bool, templates: tuple[str, ...] | None = None,
              ) -> DoctorPlan:
    """The quick or full set. ``accelerator``: a GPU or TPU trains; its timing uses a
    batch big enough to keep it busy. ``templates``: only these."""
    if quick:
        plan = DoctorPlan(
            quick=True, templates=QUICK_TEMPLATES, steps=4, batch_size=16, shape=(8, 8, 1),
            classes=4, timing_template="mlp", timing_steps=12,
            timing_batch_size=256 if accelerator else 64, timing_shape=(16, 16, 3),
            timing_repeats=1)
    else:
        plan = DoctorPlan(
            quick=False, templates=tuple(template_names()), steps=12, batch_size=32,
            shape=(32, 32, 3), classes=10, timing_template="cnn", timing_steps=30,
            timing_batch_size=256 if accelerator else 64, timing_shape=(32, 32, 3),
            timing_repeats=2)
    if templates:
        plan = DoctorPlan(**{**asdict(plan), "templates": tuple(templates)})
    return plan


def training_device(report: HardwareReport) -> str:
    """Where a run trains here: GPU:0, the TPU, or the CPU (what the runner uses)."""
    if report.usable_gpus:
        return "GPU"
    if report.tpu.found:
        return "TPU"
    return "CPU"


def policy_choices(report: HardwareReport) -> tuple[PolicyChoice, ...]:
    """float32 always; the half policies where the training device has the hardware
    for them (a GPU's compute capability, a TPU), and on a CPU all of them: they run
    there (slowly), and whether they train correctly is what the check is about."""
    device = training_device(report)
    float32 = PolicyChoice("float32", True, said(N_("the baseline: every device runs it")))
    if device == "TPU":
        return (float32,
                PolicyChoice("mixed_float16", False, said(N_("TPUs have no float16 arithmetic"))),
                PolicyChoice("mixed_bfloat16", True, said(N_("the TPU's native half type"))))
    if device == "CPU":
        cpu = said(N_("runs on a CPU without native half-precision math (slowly), so it is "
                      "checked for correctness"))
        return (float32, PolicyChoice("mixed_float16", True, cpu),
                PolicyChoice("mixed_bfloat16", True, cpu))
    gpu = report.usable_gpus[0]
    cc, where = gpu.compute_capability, f"{gpu.name} ({gpu.capability_text})"
    if cc is None:
        unknown = said(N_("{gpu}: compute capability unknown, so not checked"), gpu=where)
        return (float32, PolicyChoice("mixed_float16", False, unknown),
                PolicyChoice("mixed_bfloat16", False, unknown))
    f16 = (PolicyChoice("mixed_float16", True, said(N_("{gpu} has Tensor Cores (7.0+)"),
                                                    gpu=where))
           if cc >= FLOAT16_FROM else PolicyChoice("mixed_float16", False, said(N_(
               "{gpu} has no Tensor Cores (they start at 7.0): mixed_float16 would run "
               "slower than float32, so it is not checked"), gpu=where)))
    bf16 = (PolicyChoice("mixed_bfloat16", True, said(N_(
                "{gpu} has bfloat16 Tensor Cores (8.0+)"), gpu=where))
            if cc >= BFLOAT16_FROM else PolicyChoice("mixed_bfloat16", False, said(N_(
                "{gpu} has no bfloat16 Tensor Cores (they start at 8.0): bfloat16 math "
                "would go through float32, so it is not checked"), gpu=where)))
    return float32, f16, bf16


def checked_policies(report: HardwareReport) -> tuple[str, ...]:
    return tuple(c.policy for c in policy_choices(report) if c.checked)


def natural_mixed(report: HardwareReport) -> str | None:
    """The mixed policy this device would train in: float16 on Tensor Core GPUs,
    bfloat16 on TPUs and AMX CPUs, float16 on other CPUs (the timing shows its cost).
    None where the device checks no mixed policy."""
    device = training_device(report)
    policies = checked_policies(report)
    if device == "TPU":
        return "mixed_bfloat16"
    if device == "CPU" and report.cpu.has("amx_bf16"):
        return "mixed_bfloat16"
    return "mixed_float16" if "mixed_float16" in policies else None
