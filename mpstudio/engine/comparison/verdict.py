"""The one-sentence answer to "was mixed precision worth it?", by a rule users can read.

The rule, in order (the first that applies decides):
1. Either side did not finish (stopped, failed, diverged, interrupted): no verdict on
   speed; a mixed run that diverged where float32 did not is "not worth it as set up".
2. The two runs differ in more than the precision and its loss scaling (another
   template, dataset, batch, machine...): no verdict; the card says what differs.
3. Accuracy is tested on the examples both sides predicted (paired_accuracy): the
   95% interval of the change in validation accuracy lies wholly below -0.5
   percentage points: "accuracy loss", however fast it was.
4. Too little steady-state time to trust a speed ratio (each side needs 20 steps and
   1 s after the warm-up): "too short to time".
5. Median speedup below 0.95x: "slower on this hardware", with the reason the evidence
   points to (the op profile's slowest ops, waiting for data, a model too small to
   fill the GPU, or the advisor's word on this device).
6. Median speedup above 1.05x: "worth it" when the interval rules out a loss beyond
   0.5 points; "can't tell at this size" when it does not (with the number of
   examples that would decide it).
7. Otherwise: "no real speed gain" (it may still save memory).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mpstudio.engine.comparison.paired_accuracy import LOSS, UNCLEAR, PairedAccuracy

ACCURACY_TOLERANCE_PP = 0.5  # mixed may be this many percentage points below float32
WORTH_IT_SPEEDUP = 1.05  # median speedup above this is a real gain
SLOWER_BELOW = 0.95  # median speedup below this is a real loss
MIN_STEADY_STEPS = 20  # per side, after the warm-up
MIN_STEADY_SECONDS = 1.0  # per side: timer noise and scheduling swamp shorter runs
INPUT_BOUND_FRACTION = 0.8  # the input pipeline alone needs this much of a step's time
TINY_STEP_SECONDS = 0.002  # on a GPU, steps this short are kernel-launch bound

RULE = (
    f"Accuracy is tested on the examples both sides predicted: for each, did float32 get "
    f"it right, did mixed? The 95% interval of the change comes from the examples where "
    f"they disagree (McNemar's test). Accuracy loss: the whole interval is more than "
    f"{ACCURACY_TOLERANCE_PP} percentage points below float32, however fast. Worth it: "
    f"median speedup above {WORTH_IT_SPEEDUP:.2f}x and the interval rules out a loss "
    f"beyond {ACCURACY_TOLERANCE_PP} points; if it cannot, the verdict is can't tell at "
    f"this size. Slower: median speedup below {SLOWER_BELOW:.2f}x. No real gain: in "
    f"between. Speeds count only with at least {MIN_STEADY_STEPS} steps and "
    f"{MIN_STEADY_SECONDS:g} s of steady-state training per side; a side that did not "
    "finish, or runs that differ in more than the precision, get no verdict."
)


@dataclass(frozen=True)
class VerdictInputs:
    """What the rule looks at (ComparisonCard fills it from the stored runs)."""

    baseline_status: str
    mixed_status: str
    mixed_precision: str
    speedup: float | None  # median over trial pairs
    speedup_low: float | None
    speedup_high: float | None
    trials: int
    accuracy: PairedAccuracy | None  # final validation accuracy, mixed against float32
    steady_steps: int  # the smaller side's
    steady_seconds: float  # the smaller side's
    memory_saving: float | None  # fraction of float32's peak memory saved
    on_gpu: bool
    mixed_step_time: float | None  # steady seconds per step of the mixed run
    data_time_fraction: float | None  # of the mixed run
    advisor_reason: str  # the advisor's word on the mixed precision on this device
    baseline_label: str = "float32"
    differences: str = ""  # what differs besides the precision (differences.py)
    profile_reason: str = ""  # the op profile's slowest ops, when one was taken
    epochs: int | None = None  # what the runs were asked for: a too-short run says how many
    steps: int | None = None  # would do (``steps``: a step budget, instead of epochs)


# How each kind reads at a glance, the same in every front end: good, bad or warn.
TONES = {"worth_it": "good", "accuracy_loss": "bad", "incomplete": "bad"}


def tone_of(kind: str) -> str:
    """good | bad | warn (slower, no gain, too short, can't tell, differs...)."""
    return TONES.get(kind, "warn")


@dataclass(frozen=True)
class Verdict:
    # worth_it | accuracy_loss | slower | no_gain | cant_tell | too_short | incomplete
    # | differs
    kind: str
    sentence: str


def _longer(v: VerdictInputs) -> str:
    """"; train about 15x as long (75 epochs)": what reaches the timing minimum, with a
    fifth to spare (the warm-up is not timed, and a second run varies)."""
    if v.steady_steps <= 0 or v.steady_seconds <= 0:
        return ": train longer"
    factor = 1.2 * max(MIN_STEADY_STEPS / v.steady_steps, MIN_STEADY_SECONDS / v.steady_seconds)
    times = math.ceil(factor)
    if v.steps:
        what = f" ({math.ceil(v.steps * factor):,} steps)"
    elif v.epochs:
        what = f" ({math.ceil(v.epochs * factor):,} epochs)"
    else:
        what = ""
    return f": train about {times}x as long{what}, or on more data"


def _speed(v: VerdictInputs) -> str:
    assert v.speedup is not None
    text = f"{v.speedup:.2f}x the speed of {v.baseline_label}"
    if v.trials > 1 and v.speedup_low is not None and v.speedup_high is not None:
        text += f" (median of {v.trials} trials, {v.speedup_low:.2f}-{v.speedup_high:.2f}x)"
    else:  # one pair of runs says nothing about how much the next pair would vary
        text += " (one trial: spread unknown; 3 trials measure it)"
    return text


def _accuracy(v: VerdictInputs) -> str:
    if v.accuracy is None:
        return "no validation accuracy to test"
    unpaired = "" if v.accuracy.paired else ", unpaired"
    return f"validation accuracy {v.accuracy.interval_text()}{unpaired}"


def _memory(v: VerdictInputs) -> str:
    if v.memory_saving is None:
        return ""
    if v.memory_saving > 0:
        return f", {100 * v.memory_saving:.0f}% less peak memory"
    return f", {100 * -v.memory_saving:.0f}% more peak memory"


def slower_reason(v: VerdictInputs) -> str:
    """Why mixed precision lost here, from the strongest evidence the runs left."""
    if v.profile_reason:
        advisor = f"; {v.advisor_reason}" if v.advisor_reason else ""
        return f"{v.profile_reason.rstrip('.')}{advisor}"
    if v.data_time_fraction is not None and v.data_time_fraction >= INPUT_BOUND_FRACTION:
        return (f"the run is input-bound: the input pipeline alone takes "
                f"{100 * min(v.data_time_fraction, 1.0):.0f}% of a training step's time, so "
                "faster math cannot help (cache the data, prefetch, or decode faster)")
    if v.on_gpu and v.mixed_step_time is not None and v.mixed_step_time < TINY_STEP_SECONDS:
        return (f"the model is too small to fill the GPU: a step takes "
                f"{1000 * v.mixed_step_time:.2f} ms, mostly kernel launches and casts "
                "(a larger batch or model shows the gain)")
    if v.advisor_reason:
        return v.advisor_reason
    return "this device gains nothing from half-precision math"


def decide(v: VerdictInputs) -> Verdict:
    if v.baseline_status != "finished" or v.mixed_status != "finished":
        if v.mixed_status == "diverged" and v.baseline_status == "finished":
            return Verdict("incomplete", (
                f"Not worth it as set up: {v.mixed_precision} diverged where "
                f"{v.baseline_label} trained; see the run's advice (loss scaling, learning "
                "rate)."))
        return Verdict("incomplete", (
            f"No verdict: the {v.baseline_label} side {v.baseline_status} and the "
            f"{v.mixed_precision} side {v.mixed_status}; compare two finished runs."))
    if v.differences:
        return Verdict("differs", v.differences)
    if v.accuracy is not None and v.accuracy.outcome == LOSS:
        speed = ""
        if v.speedup:
            speed = (f", although it ran at {_speed(v)}" if v.speedup > WORTH_IT_SPEEDUP
                     else f", and it ran at {_speed(v)}")
        return Verdict("accuracy_loss", (
            f"Not worth it as set up: {v.mixed_precision} lost "
            f"{-v.accuracy.delta_pp:.2f} percentage points of validation accuracy (95% "
            f"interval {v.accuracy.low_pp:+.2f} to {v.accuracy.high_pp:+.2f}, wholly "
            f"beyond -{ACCURACY_TOLERANCE_PP}){speed}."))
    if (v.speedup is None or v.steady_steps < MIN_STEADY_STEPS
            or v.steady_seconds < MIN_STEADY_SECONDS):
        return Verdict("too_short", (
            f"Too short to time: {v.steady_steps} steady steps in {v.steady_seconds:.2f} s on "
            f"the shorter side; a speedup needs at least {MIN_STEADY_STEPS} steps and "
            f"{MIN_STEADY_SECONDS:g} s after the warm-up{_longer(v)} "
            f"({_accuracy(v)})."))
    if v.speedup < SLOWER_BELOW:
        return Verdict("slower", (
            f"Slower on this hardware: {v.mixed_precision} ran at {_speed(v)}; "
            f"{slower_reason(v)}."))
    if v.speedup > WORTH_IT_SPEEDUP:
        if v.accuracy is not None and v.accuracy.outcome == UNCLEAR:
            return Verdict("cant_tell", (
                f"Faster, but the accuracy cost can't be told at this size: "
                f"{v.mixed_precision} ran at {_speed(v)} with {_accuracy(v)}; "
                f"{v.accuracy.undecided_text()}."))
        return Verdict("worth_it", (
            f"Worth it: {v.mixed_precision} ran at {_speed(v)} with {_accuracy(v)}"
            f"{_memory(v)}."))
    saving = _memory(v)
    tail = (f"; it only saves memory{saving}" if v.memory_saving and v.memory_saving > 0
            else "; keep float32 unless you need the memory")
    return Verdict("no_gain", (
        f"No real speed gain: {v.mixed_precision} ran at {_speed(v)} with {_accuracy(v)}"
        f"{tail}."))
