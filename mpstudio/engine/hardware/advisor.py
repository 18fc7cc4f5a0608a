"""The precision advisor: a verdict per device and policy, the policy a run here
should start with, and the advice users keep asking for.

Rules describe what a device is; a measurement, when there is one, decides the
half-precision verdicts and cites the ratio it saw. Every reason, description and tip
is a sentence (``Said``): shown in the user's language, stored with a run as its message
(``stored``), in English in ``to_dict`` (``mpstudio hw --json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mpstudio.engine.hardware.gpu_architecture import tf32_capable
from mpstudio.engine.hardware.measurement import POLICY_DTYPE, DeviceMeasurement
from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.hardware.verdict_rules import (
    CPU_PREFERENCE,
    FLOAT8,
    GPU_PREFERENCE,
    POLICIES,
    TPU_PREFERENCE,
    Rule,
    Rules,
    Verdict,
    cpu_rules,
    float8_gpu_rule,
    float8_tpu_rule,
    float8_unsupported,
    gpu_notes,
    gpu_rules,
    tpu_rules,
)
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, english_tree, said

if TYPE_CHECKING:
    from mpstudio.engine.prediction.measurement import ModelMeasurement
    from mpstudio.engine.prediction.predict import Prediction

FASTER, SAME = 1.15, 0.95  # measured ratio bands: faster / no real difference / slower
TIE = 1.05  # two half types this close are a tie: the device's preference decides


@dataclass(frozen=True)
class PolicyVerdict:
    policy: str
    verdict: Verdict
    reason: str  # a sentence (Said): the user's language, its message kept
    measured: float | None = None  # half time / float32 time ratio, inverted: x faster


@dataclass(frozen=True)
class DeviceAdvice:
    device: str  # "GPU:0", "TPU", "CPU"
    description: str
    verdicts: tuple[PolicyVerdict, ...]
    default: str  # "" where no policy runs (a GPU TensorFlow cannot use)
    default_reason: str
    notes: tuple[str, ...] = ()

    def verdict(self, policy: str) -> PolicyVerdict:
        return next(v for v in self.verdicts if v.policy == policy)


@dataclass(frozen=True)
class Advice:
    devices: tuple[DeviceAdvice, ...]
    run_device: str
    run_description: str
    run_policy: str
    run_reason: str
    tips: tuple[tuple[str, str], ...]

    def device(self, label: str) -> DeviceAdvice:
        return next(d for d in self.devices if d.device == label)

    def to_dict(self) -> dict:
        """Language-neutral: keys, and every sentence in English."""
        return english_tree({
            "run": {"device": self.run_device, "description": self.run_description,
                    "policy": self.run_policy, "reason": self.run_reason},
            "devices": [{"device": d.device, "description": d.description,
                         "default": d.default, "default_reason": d.default_reason,
                         "notes": list(d.notes),
                         "verdicts": [{"policy": v.policy, "verdict": v.verdict.value,
                                       "reason": v.reason, "measured_speedup": v.measured}
                                      for v in d.verdicts]}
                        for d in self.devices],
            "tips": [{"title": t, "text": x} for t, x in self.tips],
        })


def _measured(policy: str, rule: Rule, m: DeviceMeasurement) -> PolicyVerdict:
    dtype = POLICY_DTYPE[policy]
    ratio, errors = m.speedup(dtype), m.errors(dtype)
    parts = ", ".join(f"{k} {r:.2f}x" for k in m.kernels
                      if (r := m.kernel_speedup(k, dtype)) is not None)
    if errors:  # a policy whose conv (or matmul) fails here is not one to train in
        failed = "; ".join(errors)
        why = (said(N_("{dtype} failed here: {errors} ({ran} ran)"), dtype=dtype,
                        errors=failed, ran=parts) if parts else
               said(N_("{dtype} failed here: {errors}"), dtype=dtype, errors=failed))
        return PolicyVerdict(policy, Verdict.UNSUPPORTED, why, ratio)
    if ratio is None:  # not measured (stopped early): the rule stands
        return PolicyVerdict(policy, rule.verdict, rule.reason)
    seen = {"dtype": dtype, "ratio": ratio, "baseline": m.baseline, "kernels": parts}
    if ratio >= FASTER:
        return PolicyVerdict(policy, Verdict.RECOMMENDED, said(N_(
            "{dtype} was {ratio:.2f}x {baseline} here ({kernels}): use it"), **seen), ratio)
    if ratio >= SAME:
        return PolicyVerdict(policy, Verdict.NO_GAIN, said(N_(
            "{dtype} was {ratio:.2f}x {baseline} here ({kernels}): no faster; it only saves "
            "memory"), **seen), ratio)
    return PolicyVerdict(policy, Verdict.SLOWER, said(N_(
        "{dtype} was {ratio:.2f}x {baseline} here ({kernels}): keep float32"), **seen), ratio)


def _predicted(policy: str, rule: Rule, prediction: Prediction) -> PolicyVerdict:
    """A half policy's verdict from the prediction for the user's model, where nothing
    was measured: the rule's promise only where the model's step can keep it."""
    from mpstudio.engine.prediction.predict import NO_GAIN
    from mpstudio.engine.prediction.prediction_text import gain_phrase, why
    from mpstudio.engine.templates.user_model import model_name

    p = prediction.predictions.get(policy)
    if p is None or p.speedup is None:
        return PolicyVerdict(policy, rule.verdict, rule.reason)
    seen = {"template": model_name(prediction.template), "batch": prediction.batch_size,
            "gain": gain_phrase(p), "baseline": prediction.baseline,
            "why": why(prediction, policy)}
    if prediction.inputs:  # a model file on its own input: the data's does not fit it
        reason = said(N_("predicted for {template} at batch {batch} ({inputs}): {gain} over "
                         "{baseline}; {why}"), inputs=prediction.inputs, **seen)
    else:
        reason = said(N_("predicted for {template} at batch {batch}: {gain} over {baseline}; "
                         "{why}"), **seen)
    if p.speedup >= NO_GAIN[1]:
        return PolicyVerdict(policy, Verdict.RECOMMENDED, reason, p.speedup)
    verdict = Verdict.NO_GAIN if p.speedup > NO_GAIN[0] else Verdict.SLOWER
    return PolicyVerdict(policy, verdict, reason, p.speedup)


def _model_measured(policy: str, fallback: PolicyVerdict,
                    measured: ModelMeasurement) -> PolicyVerdict:
    """A half policy's verdict from the user's own model timed here (the most direct
    evidence there is); ``fallback`` (kernels, prediction or rule) where that policy was
    not timed or failed at this batch."""
    from mpstudio.engine.templates.user_model import model_name, own_inputs_text

    p = measured.get(policy)
    if p is None or p.speedup is None:
        return fallback
    template: str = model_name(measured.template)
    if measured.own_inputs:  # a model file timed on its own input: the data's does not fit
        template = said(N_("{template} ({inputs})"), template=template,
                        inputs=own_inputs_text(measured.input_shape, measured.classes))
    seen = {"template": template, "batch": measured.batch_size,
            "speedup": p.speedup, "baseline": measured.baseline,
            "examples": f"{p.examples_per_s or 0.0:,.0f}", "steps": p.steps}
    if p.speedup >= FASTER:
        return PolicyVerdict(policy, Verdict.RECOMMENDED, said(N_(
            "measured for {template} at batch {batch}: {speedup:.2f}x {baseline} here "
            "({examples} examples/s over {steps:,} steps): use it"), **seen), p.speedup)
    if p.speedup >= SAME:
        return PolicyVerdict(policy, Verdict.NO_GAIN, said(N_(
            "measured for {template} at batch {batch}: {speedup:.2f}x {baseline} here "
            "({examples} examples/s over {steps:,} steps): no faster; it only saves memory"),
            **seen), p.speedup)
    return PolicyVerdict(policy, Verdict.SLOWER, said(N_(
        "measured for {template} at batch {batch}: {speedup:.2f}x {baseline} here "
        "({examples} examples/s over {steps:,} steps): keep float32"), **seen), p.speedup)


def _ranked(winners: list[str], verdicts: dict[str, PolicyVerdict],
            preference: Sequence[str]) -> list[str]:
    """Best first: measured speed decides, except that ratios within 5% of each other
    are noise, and then the device's preferred policy goes first."""
    def pref(policy: str) -> int:
        return preference.index(policy) if policy in preference else len(preference)

    ranked = sorted(winners, key=lambda p: (-(verdicts[p].measured or 0.0), pref(p)))
    if len(ranked) >= 2:
        first, second = (verdicts[p].measured for p in ranked[:2])
        close = first is None or (second is not None and second * TIE >= first)
        if close and pref(ranked[1]) < pref(ranked[0]):
            ranked[0], ranked[1] = ranked[1], ranked[0]
    return ranked


def _float32_verdict(base: Rule, best: PolicyVerdict | None,
                     halves: list[PolicyVerdict]) -> PolicyVerdict:
    if best is not None:
        if best.measured is None:
            return PolicyVerdict("float32", Verdict.SLOWER, base.reason)
        return PolicyVerdict("float32", Verdict.SLOWER, said(N_(
            "the accurate baseline, but {policy} measured {speedup:.2f}x faster"),
            policy=best.policy, speedup=best.measured))
    if base.verdict is Verdict.UNSUPPORTED:  # TensorFlow cannot use the device at all
        return PolicyVerdict("float32", base.verdict, base.reason)
    all_measured = all(v.measured is not None or v.verdict is Verdict.UNSUPPORTED
                       for v in halves)
    if all_measured and any(v.measured is not None for v in halves):
        return PolicyVerdict("float32", Verdict.RECOMMENDED, said(N_(
            "measured fastest here: neither half type beat it")))
    if base.verdict is Verdict.RECOMMENDED:
        return PolicyVerdict("float32", Verdict.RECOMMENDED, base.reason)
    return PolicyVerdict("float32", Verdict.RECOMMENDED, said(N_(
        "the fastest choice that works here: no half type is recommended")))


def _device_advice(device: str, description: str, rules: Rules, preference: Sequence[str],
                   measurement: DeviceMeasurement | None,
                   notes: tuple[str, ...] = (), float8: Rule | None = None,
                   prediction: Prediction | None = None,
                   model: ModelMeasurement | None = None) -> DeviceAdvice:
    """``float8``: its verdict, listed after the policies and never the default.
    ``model``: the user's model timed on this device, which decides where it was timed."""
    halves = [p for p in POLICIES if p != "float32"]
    verdicts: dict[str, PolicyVerdict] = {}
    for policy in halves:
        rule = rules[policy]
        if rule.verdict is Verdict.UNSUPPORTED:
            verdicts[policy] = PolicyVerdict(policy, rule.verdict, rule.reason)
        elif measurement is None and prediction is not None:
            verdicts[policy] = _predicted(policy, rule, prediction)
        elif measurement is None:
            verdicts[policy] = PolicyVerdict(policy, rule.verdict, rule.reason)
        else:
            verdicts[policy] = _measured(policy, rule, measurement)
        if model is not None and rule.verdict is not Verdict.UNSUPPORTED:
            verdicts[policy] = _model_measured(policy, verdicts[policy], model)
    winners = _ranked([p for p in halves if verdicts[p].verdict is Verdict.RECOMMENDED],
                      verdicts, preference)
    best = verdicts[winners[0]] if winners else None
    verdicts["float32"] = _float32_verdict(rules["float32"], best,
                                           [verdicts[p] for p in halves])
    default = winners[0] if winners else "float32"
    reason = verdicts[default].reason
    if verdicts[default].verdict is Verdict.UNSUPPORTED:
        default = ""  # nothing runs here
    listed = [verdicts[p] for p in POLICIES]
    if float8 is not None and prediction is not None and float8.verdict is Verdict.MEASURE:
        listed.append(_predicted(FLOAT8, float8, prediction))
    elif float8 is not None:
        listed.append(PolicyVerdict(FLOAT8, float8.verdict, float8.reason))
    if model is not None and float8 is not None and float8.verdict is not Verdict.UNSUPPORTED:
        listed[-1] = _model_measured(FLOAT8, listed[-1], model)
    return DeviceAdvice(device, description, tuple(listed), default, reason, notes)


def _tf32_tip(report: HardwareReport) -> Said:
    ampere = [g for g in report.usable_gpus if tf32_capable(g.compute_capability)]
    if not ampere:
        return said(N_(
            "On compute capability 8.0+ TensorFlow runs float32 matmuls as TF32 by default, "
            "so the gain from mixed precision looks smaller than against true float32."))
    if report.build.tf32_enabled:
        return said(N_(
            "On compute capability 8.0+ TensorFlow runs float32 matmuls as TF32 by default, "
            "so the gain from mixed precision looks smaller than against true float32. {gpu} "
            "is such a GPU and TF32 is on: compare against what float32 really is."),
            gpu=ampere[0].name)
    return said(N_(
        "On compute capability 8.0+ TensorFlow runs float32 matmuls as TF32 by default, so "
        "the gain from mixed precision looks smaller than against true float32. {gpu} is "
        "such a GPU and TF32 is off: compare against what float32 really is."),
        gpu=ampere[0].name)


def _tips(report: HardwareReport) -> tuple[tuple[str, str], ...]:
    if report.usable_gpus:
        xla = said(N_("XLA fuses the casts mixed precision adds and usually speeds GPU "
                          "training; a GPU is visible, so mpstudio's xla=auto turns it on."))
    else:
        xla = said(N_("XLA fuses the casts mixed precision adds and usually speeds GPU "
                          "training; no GPU here, so xla=auto leaves it off (on a CPU it "
                          "rarely helps float32)."))
    return (
        (said(N_("Keep the output layer float32")),
         said(N_("End the model with a float32 softmax (mpstudio's templates do): a "
                     "float16 softmax and loss lose precision and can overflow."))),
        (said(N_("Sizes in multiples of 8")),
         said(N_("Tensor Cores need batch size, units and channels in multiples of 8 for "
                     "float16 (16 for int8, 64 is safest); odd sizes fall back to slower "
                     "kernels."))),
        (said(N_("Spend the memory you save")),
         said(N_("Half-precision activations take half the memory: raise the batch size, "
                     "scale the learning rate linearly with it, and warm it up over the first "
                     "few hundred steps."))),
        (said(N_("float16 needs loss scaling, bfloat16 does not")),
         said(N_("Keep dynamic loss scaling on under mixed_float16 (small gradients "
                     "underflow otherwise); bfloat16 has float32's exponent range and needs "
                     "none."))),
        (said(N_("TF32 is the real float32 baseline on Ampere and newer")),
         _tf32_tip(report)),
        (said(N_("XLA on for GPUs")), xla),
    )


def advise(report: HardwareReport, measurements: Sequence[DeviceMeasurement] = (),
           predictions: Mapping[str, Prediction] | None = None,
           model: ModelMeasurement | None = None) -> Advice:
    """``predictions``: the user's model predicted on a device (by its label, "GPU:0"):
    where that device was not measured, its half-precision verdicts come from it.
    ``model``: the user's model timed on one device (``model.device``): its verdicts
    there come from that, before any kernel measurement or prediction."""
    measured = {m.device: m for m in measurements}
    predicted = dict(predictions or {})

    def timed(label: str) -> ModelMeasurement | None:
        return model if model is not None and model.device == label else None

    devices = [
        _device_advice(g.label, said(N_("{name}, compute capability {capability}"),
                                         name=g.name, capability=g.capability_text),
                       gpu_rules(g, report.build), GPU_PREFERENCE, measured.get(g.label),
                       gpu_notes(g, report.build), float8_gpu_rule(g), predicted.get(g.label),
                       timed(g.label) if g.visible_to_tensorflow else None)
        for g in report.gpus
    ]
    if report.tpu.found:
        kind = report.tpu.accelerator_type or "TPU"
        devices.append(_device_advice("TPU", said(N_("{kind}, {cores} cores"),
                                                      kind=kind, cores=report.tpu.cores),
                                      tpu_rules(report.tpu), TPU_PREFERENCE, measured.get("TPU"),
                                      float8=float8_tpu_rule()))
    devices.append(_device_advice("CPU", said(N_("{model}, {cores} logical cores"),
                                                  model=report.cpu.model,
                                                  cores=report.cpu.logical_cores),
                                  cpu_rules(report.cpu), CPU_PREFERENCE,
                                  measured.get("CPU"),
                                  float8=float8_unsupported(said(N_("a CPU ({model})"),
                                                                 model=report.cpu.model)),
                                  prediction=predicted.get("CPU"), model=timed("CPU")))
    usable = [d for d in devices if d.device.startswith("GPU:")]
    tpu = [d for d in devices if d.device == "TPU"]
    run = (usable or tpu or devices[-1:])[0]  # the CPU comes last
    return Advice(tuple(devices), run.device, run.description, run.default,
                  run.default_reason, _tips(report))


# How good a verdict is for a first comparison's half precision, best first.
_FIRST_RANK = (Verdict.RECOMMENDED, Verdict.NO_GAIN, Verdict.MEASURE, Verdict.SLOWER)


def best_half_policy(advice: Advice) -> str:
    """The half precision a first comparison sets against float32 on the run device:
    the recommended one where it is half, else the half type with the best verdict (the
    larger measured or predicted gain, then the device's own order); "" where none runs."""
    if advice.run_policy in ("mixed_float16", "mixed_bfloat16"):
        return advice.run_policy
    device = next((d for d in advice.devices if d.device == advice.run_device), None)
    halves = [v for v in (device.verdicts if device else ())
              if v.policy in ("mixed_float16", "mixed_bfloat16") and v.verdict in _FIRST_RANK]
    if not halves:
        return ""
    best = min(halves, key=lambda v: (_FIRST_RANK.index(v.verdict), -(v.measured or 0.0)))
    return best.policy
