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

# What bounds a step, in one word (a table's column).
BOUND_WORDS = {"dispatch": N_("dispatch"), "compute": N_("compute"), "memory": N_("memory")}
BOUND_TEXT = {
    "dispatch": N_("the step is dispatch-bound: launching its kernels, not computing them, "
                   "takes most of it, and a faster math cannot shorten that"),
    "compute": N_("the step is compute-bound: its matmuls and convolutions take most of it"),
    "memory": N_("the step is memory-bound: moving activations takes most of it, and half "
                 "types halve those bytes"),
}


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
        gain=gain_phrase(p), baseline=prediction.baseline, why=_(BOUND_TEXT[p.bound]))


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
