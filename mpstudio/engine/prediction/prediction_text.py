"""A prediction in words: the one place its sentences are made, for the command line,
the hardware check, the setup panel and the comparison card."""

from __future__ import annotations

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.prediction.predict import (
    FLOAT32,
    NO_GAIN,
    PrecisionPrediction,
    Prediction,
)
from mpstudio.engine.said import Said, clauses, said

# What bounds a step, in one word (a table's column).
BOUND_WORDS = {"dispatch": N_("dispatch"), "compute": N_("compute"), "memory": N_("memory"),
               "launch": N_("launch")}
BOUND_TEXT = {
    "dispatch": N_("the step is dispatch-bound: launching its kernels, not computing them, "
                   "takes most of it, and a faster math cannot shorten that"),
    "compute": N_("the step is compute-bound: its matmuls and convolutions take most of it"),
    "memory": N_("the step is memory-bound: moving activations takes most of it, and half "
                 "types halve those bytes"),
}
# A step bound by what half types shorten, that still does not gain: what stops it.
BOUND_ONLY = {"compute": N_("the step is compute-bound"),
              "memory": N_("the step is memory-bound")}
STOPPED_BY = {
    "optimizer": N_("but {share:.0%} of it is the optimizer's float32 update of every weight "
                    "and the half copies a mixed policy makes, which half types do not "
                    "shorten"),
    "launch": N_("but {share:.0%} of it is its kernels' fixed cost, which half types do not "
                 "shorten"),
    "float32": N_("but {share:.0%} of its arithmetic stays in float32 (layers kept in "
                  "float32, or sizes Tensor Cores cannot take)"),
    "no_tensor_cores": N_("but this device has no Tensor Cores for {dtype}: its products "
                          "run at float32's rate"),
    "cpu": N_("but this CPU computes {dtype} no faster than float32 (its kernels measured "
              "{ratio:.2f}x float32's)"),
}


def why(prediction: Prediction, precision: str) -> Said:
    """What bounds the step and why that gives the gain predicted: a step whose bound
    half types shorten (memory, compute) but that gains nothing is told what stops it,
    from the numbers, never left to read as a contradiction."""
    p = prediction.predictions[precision]
    if p.bound not in BOUND_ONLY or p.speedup is None:
        return said(BOUND_TEXT[p.bound])
    if p.speedup >= NO_GAIN[1] and not (p.bound == "compute" and p.half_share < 0.5):
        return said(BOUND_TEXT[p.bound])
    return clauses(said(BOUND_ONLY[p.bound]), _stopper(prediction, p))


def _stopper(prediction: Prediction, p: PrecisionPrediction) -> Said:
    step = p.step
    dtype = "bfloat16" if "bfloat16" in p.precision else "float16"
    if step is None or not step.seconds:
        return said(STOPPED_BY["float32"], share=1 - p.half_share)
    if prediction.device_kind == "CPU":
        ratio = prediction.half_rate_ratio.get(dtype)
        if ratio is not None and ratio <= 1.05:
            return said(STOPPED_BY["cpu"], dtype=dtype, ratio=ratio)
    maths = {t.math for t in step.layers if t.math}
    if maths and maths <= {"float32", "tf32"} and prediction.device_kind == "GPU":
        return said(STOPPED_BY["no_tensor_cores"], dtype=dtype)
    float32_compute = sum(t.compute for t in step.layers if t.math in ("float32", "tf32"))
    shares = {"optimizer": step.optimizer / step.seconds,
              "launch": step.launch / step.seconds,
              "float32": 1 - p.half_share if float32_compute else 0.0}
    largest = max(shares, key=lambda k: shares[k])
    return said(STOPPED_BY[largest], share=shares[largest])


def speedup_range(p: PrecisionPrediction) -> str:
    return f"{p.speedup_low:.2f}-{p.speedup_high:.2f}x"


def gain_phrase(p: PrecisionPrediction) -> str:
    """"about 1.8x (1.5-2.1x)", "no gain expected (0.9-1.1x)" or "slower: about 0.7x"."""
    low, high = NO_GAIN
    if p.speedup is None:
        return ""
    if p.speedup >= high:
        return _("about {speedup:.1f}x ({range})").format(speedup=p.speedup,
                                                          range=speedup_range(p))
    if p.speedup > low:
        return _("no gain expected ({range})").format(range=speedup_range(p))
    return _("slower: about {speedup:.2f}x ({range})").format(speedup=p.speedup,
                                                              range=speedup_range(p))


def precision_line(prediction: Prediction, precision: str) -> str:
    """"mixed_float16 on NVIDIA H200 at batch 256: no gain expected (0.86-1.16x), the
    step is dispatch-bound: ..."."""
    from mpstudio.engine.templates.user_model import with_inputs

    p = prediction.predictions[precision]
    return _("{precision} on {device} at batch {batch}: {gain} over {baseline}; {why}").format(
        precision=precision, device=prediction.device,
        batch=with_inputs(prediction.batch_size, prediction.inputs),
        gain=gain_phrase(p), baseline=prediction.baseline, why=why(prediction, precision))


def half_share_note(p: PrecisionPrediction) -> str | None:
    """Where part of the arithmetic stays float32 (a head, a pinned layer, sizes Tensor
    Cores cannot take)."""
    if p.precision == FLOAT32 or p.half_share >= 0.995:
        return None
    return _("{share:.0%} of its matmul and convolution work computes in the half type; "
             "the rest stays float32").format(share=p.half_share)


def larger_batch_line(prediction: Prediction, larger: Prediction | None) -> str | None:
    """"at batch 2048: about 1.8x (1.5-2.1x)" where a larger batch gains clearly more;
    where none does and this batch gains nothing either, that the model is too small."""
    if larger is None:
        now = prediction.best_half()
        if now is not None and now.speedup is not None and now.speedup < NO_GAIN[1]:
            return _("no larger batch is predicted to gain either: the model is too small "
                     "for this device to show a gain")
        return None
    now, then = prediction.best_half(), larger.best_half()
    if then is None or then.speedup is None:
        return None
    if now is not None and now.speedup is not None and then.speedup < now.speedup + 0.15:
        return None
    return _("at batch {batch}: {precision} {gain}").format(
        batch=larger.batch_size, precision=then.precision, gain=gain_phrase(then))
