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
from typing import Any

from mpstudio.engine.comparison.paired_accuracy import LOSS, UNCLEAR, PairedAccuracy
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.run_labels import status_text
from mpstudio.engine.said import render

ACCURACY_TOLERANCE_PP = 0.5  # mixed may be this many percentage points below float32
WORTH_IT_SPEEDUP = 1.05  # median speedup above this is a real gain
SLOWER_BELOW = 0.95  # median speedup below this is a real loss
MIN_STEADY_STEPS = 20  # per side, after the warm-up
MIN_STEADY_SECONDS = 1.0  # per side: timer noise and scheduling swamp shorter runs
INPUT_BOUND_FRACTION = 0.8  # the input pipeline alone needs this much of a step's time
TINY_STEP_SECONDS = 0.002  # on a GPU, steps this short are kernel-launch bound

RULE = N_(
    "Accuracy is tested on the examples both sides predicted: for each, did float32 get "
    "it right, did mixed? The 95% interval of the change comes from the examples where "
    "they disagree (McNemar's test). Accuracy loss: the whole interval is more than "
    "{tolerance} percentage points below float32, however fast. Worth it: median speedup "
    "above {worth_it:.2f}x and the interval rules out a loss beyond {tolerance} points; if "
    "it cannot, the verdict is can't tell at this size. Slower: median speedup below "
    "{slower:.2f}x. No real gain: in between. Speeds count only with at least {steps} "
    "steps and {seconds:g} s of steady-state training per side; a side that did not "
    "finish, or runs that differ in more than the precision, get no verdict."
)


def rule_text() -> str:
    """``RULE`` in the language in force, with its numbers."""
    return _(RULE).format(tolerance=ACCURACY_TOLERANCE_PP, worth_it=WORTH_IT_SPEEDUP,
                          slower=SLOWER_BELOW, steps=MIN_STEADY_STEPS,
                          seconds=MIN_STEADY_SECONDS)


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
    # the advisor's word on the mixed precision on this device, as the run stored it: a
    # sentence or its message (shown in the reader's language), or an older plain string
    advisor_reason: str | dict[str, Any]
    baseline_label: str = "float32"
    # the advisor recommended this precision here: its reason promised a gain, so it
    # cannot be why the run was slower
    advisor_expected_gain: bool = False
    differences: str = ""  # what differs besides the precision (differences.py)
    profile_reason: str = ""  # the op profile's slowest ops, when one was taken
    epochs: int | None = None  # what the runs were asked for: a too-short run says how many
    steps: int | None = None  # would do (``steps``: a step budget, instead of epochs)
    # one trial: the 95% interval of the speedup over its steady windows (speed_interval)
    window_interval: tuple[float, float] | None = None


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
        return _(": train longer")
    factor = 1.2 * max(MIN_STEADY_STEPS / v.steady_steps, MIN_STEADY_SECONDS / v.steady_seconds)
    times = math.ceil(factor)
    if v.steps:
        return _(": train about {times}x as long ({steps:,} steps), or on more data").format(
            times=times, steps=math.ceil(v.steps * factor))
    if v.epochs:
        return _(": train about {times}x as long ({epochs:,} epochs), or on more data").format(
            times=times, epochs=math.ceil(v.epochs * factor))
    return _(": train about {times}x as long, or on more data").format(times=times)


def _speed(v: VerdictInputs) -> str:
    assert v.speedup is not None
    if v.trials > 1 and v.speedup_low is not None and v.speedup_high is not None:
        return _("{speedup:.2f}x the speed of {baseline} (median of {trials} trials, "
                 "{low:.2f}-{high:.2f}x)").format(
            speedup=v.speedup, baseline=v.baseline_label, trials=v.trials,
            low=v.speedup_low, high=v.speedup_high)
    # one pair of runs says nothing about how much the next pair would vary
    if v.window_interval is not None:
        return _("{speedup:.2f}x the speed of {baseline} (95% interval {low:.2f}-{high:.2f}x "
                 "over one trial's steady windows; 3 trials measure the run-to-run "
                 "spread)").format(speedup=v.speedup, baseline=v.baseline_label,
                                   low=v.window_interval[0], high=v.window_interval[1])
    return _("{speedup:.2f}x the speed of {baseline} (one trial: spread unknown; 3 trials "
             "measure it)").format(speedup=v.speedup, baseline=v.baseline_label)


def _accuracy(v: VerdictInputs) -> str:
    if v.accuracy is None:
        return _("no validation accuracy to test")
    if v.accuracy.paired:
        return _("validation accuracy {interval}").format(interval=v.accuracy.interval_text())
    return _("validation accuracy {interval}, unpaired").format(
        interval=v.accuracy.interval_text())


def _memory(v: VerdictInputs) -> str:
    if v.memory_saving is None:
        return ""
    if v.memory_saving > 0:
        return _(", {percent:.0f}% less peak memory").format(percent=100 * v.memory_saving)
    return _(", {percent:.0f}% more peak memory").format(percent=100 * -v.memory_saving)


def slower_reason(v: VerdictInputs) -> str:
    """Why mixed precision lost here, from the strongest evidence the runs left."""
    advisor_reason = render(v.advisor_reason)
    if v.profile_reason:
        advisor = (_("; {advisor}").format(advisor=advisor_reason)
                   if advisor_reason and not v.advisor_expected_gain else "")
        return f"{v.profile_reason.rstrip('.')}{advisor}"
    if v.data_time_fraction is not None and v.data_time_fraction >= INPUT_BOUND_FRACTION:
        return _("the run is input-bound: the input pipeline alone takes {percent:.0f}% of a "
                 "training step's time, so faster math cannot help (cache the data, "
                 "prefetch, or decode faster)").format(
            percent=100 * min(v.data_time_fraction, 1.0))
    if v.on_gpu and v.mixed_step_time is not None and v.mixed_step_time < TINY_STEP_SECONDS:
        return _("the model is too small to fill the GPU: a step takes {ms:.2f} ms, mostly "
                 "kernel launches and casts (a larger batch or model shows the "
                 "gain)").format(ms=1000 * v.mixed_step_time)
    if advisor_reason and v.advisor_expected_gain:
        # "AMX multiplies bfloat16 many times faster" after a slower run read as a
        # contradiction: say what was expected, and how to find where the time went
        return _("the hardware check expected a gain here ({advisor}), but this model did "
                 "not get one; profile its ops (--profile, or Profile ops in the window) to "
                 "see where the time went").format(advisor=advisor_reason)
    if advisor_reason:
        return advisor_reason
    return _("this device gains nothing from half-precision math")


def decide(v: VerdictInputs) -> Verdict:
    mixed, baseline = v.mixed_precision, v.baseline_label
    if v.baseline_status != "finished" or v.mixed_status != "finished":
        if v.mixed_status == "diverged" and v.baseline_status == "finished":
            return Verdict("incomplete", _(
                "Not worth it as set up: {mixed} diverged where {baseline} trained; see the "
                "run's advice (loss scaling, learning rate).").format(
                    mixed=mixed, baseline=baseline))
        return Verdict("incomplete", _(
            "No verdict: the {baseline} side {baseline_status} and the {mixed} side "
            "{mixed_status}; compare two finished runs.").format(
                baseline=baseline, mixed=mixed, baseline_status=status_text(v.baseline_status),
                mixed_status=status_text(v.mixed_status)))
    if v.differences:
        return Verdict("differs", v.differences)
    if v.accuracy is not None and v.accuracy.outcome == LOSS:
        lost = _("Not worth it as set up: {mixed} lost {points:.2f} percentage points of "
                 "validation accuracy (95% interval {low:+.2f} to {high:+.2f}, wholly beyond "
                 "-{tolerance})").format(mixed=mixed, points=-v.accuracy.delta_pp,
                                         low=v.accuracy.low_pp, high=v.accuracy.high_pp,
                                         tolerance=ACCURACY_TOLERANCE_PP)
        if not v.speedup:
            return Verdict("accuracy_loss", _("{lost}.").format(lost=lost))
        joined = (_("{lost}, although it ran at {speed}.") if v.speedup > WORTH_IT_SPEEDUP
                  else _("{lost}, and it ran at {speed}."))
        return Verdict("accuracy_loss", joined.format(lost=lost, speed=_speed(v)))
    if (v.speedup is None or v.steady_steps < MIN_STEADY_STEPS
            or v.steady_seconds < MIN_STEADY_SECONDS):
        return Verdict("too_short", _(
            "Too short to time: {steps} steady steps in {seconds:.2f} s on the shorter side; "
            "a speedup needs at least {min_steps} steps and {min_seconds:g} s after the "
            "warm-up{longer} ({accuracy}).").format(
                steps=v.steady_steps, seconds=v.steady_seconds, min_steps=MIN_STEADY_STEPS,
                min_seconds=MIN_STEADY_SECONDS, longer=_longer(v), accuracy=_accuracy(v)))
    if v.speedup < SLOWER_BELOW:
        return Verdict("slower", _("Slower on this hardware: {mixed} ran at {speed}; "
                                   "{reason}.").format(mixed=mixed, speed=_speed(v),
                                                       reason=slower_reason(v)))
    if v.speedup > WORTH_IT_SPEEDUP:
        if v.accuracy is not None and v.accuracy.outcome == UNCLEAR:
            return Verdict("cant_tell", _(
                "Faster, but the accuracy cost can't be told at this size: {mixed} ran at "
                "{speed} with {accuracy}; {undecided}.").format(
                    mixed=mixed, speed=_speed(v), accuracy=_accuracy(v),
                    undecided=v.accuracy.undecided_text()))
        return Verdict("worth_it", _("Worth it: {mixed} ran at {speed} with "
                                     "{accuracy}{memory}.").format(
            mixed=mixed, speed=_speed(v), accuracy=_accuracy(v), memory=_memory(v)))
    if v.memory_saving and v.memory_saving > 0:
        tail = _("; it only saves memory{memory}").format(memory=_memory(v))
    else:
        tail = _("; keep float32 unless you need the memory")
    return Verdict("no_gain", _("No real speed gain: {mixed} ran at {speed} with "
                                "{accuracy}{tail}.").format(
        mixed=mixed, speed=_speed(v), accuracy=_accuracy(v), tail=tail))
