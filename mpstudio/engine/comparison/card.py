"""The comparison card: a float32 side and a mixed side, each one run or several
trials, reduced to the figures users weigh (speed, time to first step, epoch time,
memory, accuracy, the loss-curve gap, overflow steps, the loss-scale range) and
the verdict. Everything comes from the stored runs, so a card built right after a
comparison and one rebuilt from history a month later are the same card.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from mpstudio.engine.comparison.differences import (
    BATCH_KEYS,
    differences_sentence,
    hardware_differences,
    same_examples,
    spec_differences,
)
from mpstudio.engine.comparison.paired_accuracy import (
    PairedAccuracy,
    decode_hits,
    paired_accuracy,
    unpaired_accuracy,
)
from mpstudio.engine.comparison.sizing import sized_note
from mpstudio.engine.comparison.speed_interval import window_interval
from mpstudio.engine.comparison.verdict import ACCURACY_TOLERANCE_PP, Verdict, VerdictInputs, decide
from mpstudio.engine.events import RunSummary
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.i18n import _
from mpstudio.engine.json_values import json_ready
from mpstudio.engine.memory_estimate import MemoryEstimate
from mpstudio.engine.profiling.op_profile import OpProfile
from mpstudio.engine.profiling.profile_comparison import (
    ProfileComparison,
    compare_profiles,
    slower_reason,
)
from mpstudio.engine.said import render

if TYPE_CHECKING:
    from mpstudio.engine.history.store import RunStore


@dataclass(frozen=True)
class Spread:
    """The median of a figure over trials, with the lowest and highest value."""

    median: float | None
    low: float | None
    high: float | None
    n: int

    @classmethod
    def of(cls, values: Sequence[float | None]) -> Spread:
        seen = [v for v in values if v is not None and math.isfinite(v)]
        if not seen:
            return cls(None, None, None, 0)
        return cls(statistics.median(seen), min(seen), max(seen), len(seen))


@dataclass(frozen=True)
class Side:
    """One side of the card: the figures of its trials."""

    label: str
    precision: str
    run_ids: tuple[int, ...]
    status: str  # finished only when every trial finished
    examples_per_sec: Spread
    time_to_first_step: Spread
    epoch_time: Spread
    peak_memory_bytes: Spread
    final_val_accuracy: Spread
    best_val_accuracy: Spread
    final_loss: Spread
    test_accuracy: Spread
    overflow_steps: Spread
    loss_scale_mode: str
    loss_scale_min: float | None
    loss_scale_max: float | None
    steady_steps: int  # the fewest over the trials
    steady_seconds: float
    steady_step_time: Spread
    data_time_fraction: Spread
    memory_note: str  # in the reader's language
    device: str  # the run's device label, in English as recorded (device_info.device_text)
    # the device memory estimated before each trial (memory_estimate), set against the peak
    estimated_memory_bytes: Spread = Spread(None, None, None, 0)
    # the steady examples/s predicted before each trial (prediction.run_prediction)
    predicted_examples_per_sec: Spread = Spread(None, None, None, 0)
    predicted_bound: str = ""  # what the prediction said bounds the step

    @classmethod
    def of(cls, runs: Sequence[StoredRun]) -> Side:
        if not runs:
            raise ValueError("a side of a comparison needs at least one run")
        summaries = [r.summary for r in runs if r.summary is not None]

        def spread(name: str) -> Spread:
            return Spread.of([getattr(s, name) for s in summaries])

        statuses = [r.status for r in runs]
        status = next((s for s in statuses if s != "finished"), "finished")
        steady = [_steady(s) for s in summaries] or [(0, 0.0)]
        mins = [s.loss_scale_min for s in summaries if s.loss_scale_min is not None]
        maxs = [s.loss_scale_max for s in summaries if s.loss_scale_max is not None]
        first = runs[0]
        return cls(
            label=first.label.split(" · trial")[0],
            precision=str(first.spec.get("precision", first.row.precision)),
            run_ids=tuple(r.id for r in runs),
            status=status,
            examples_per_sec=spread("steady_examples_per_sec"),
            time_to_first_step=spread("time_to_first_step"),
            epoch_time=spread("mean_epoch_time"),
            peak_memory_bytes=spread("peak_memory_bytes"),
            final_val_accuracy=spread("final_val_accuracy"),
            best_val_accuracy=spread("best_val_accuracy"),
            final_loss=spread("final_loss"),
            test_accuracy=spread("test_accuracy"),
            overflow_steps=spread("overflow_steps"),
            loss_scale_mode=summaries[0].loss_scale_mode if summaries else "off",
            loss_scale_min=min(mins) if mins else None,
            loss_scale_max=max(maxs) if maxs else None,
            steady_steps=min(n for n, _ in steady),
            steady_seconds=min(t for _, t in steady),
            steady_step_time=spread("steady_step_time"),
            data_time_fraction=spread("data_time_fraction"),
            memory_note=render(summaries[0].memory_note) if summaries else "",
            device=first.hardware.get("device", ""),
            estimated_memory_bytes=Spread.of([_estimated(s) for s in summaries]),
            predicted_examples_per_sec=Spread.of([_predicted(s, "examples_per_sec")
                                                 for s in summaries]),
            predicted_bound=str(_predicted(s=summaries[0], key="bound") or "")
            if summaries else "",
        )


def _estimated(s: RunSummary) -> float | None:
    estimate = MemoryEstimate.from_dict(s.memory_estimate)
    return float(estimate.total) if estimate is not None else None


def _predicted(s: RunSummary, key: str) -> Any:
    predicted = s.predicted if isinstance(s.predicted, dict) else {}
    return predicted.get(key)


def _steady(s: RunSummary) -> tuple[int, float]:
    """Steps and seconds of steady-state training (after the warm-up)."""
    if not s.steady_step_time:
        return 0, 0.0
    steps = max(0, s.steps_done - s.warmup_steps)
    return steps, steps * s.steady_step_time


@dataclass(frozen=True)
class LossGap:
    """How far the mixed training loss sits from float32's, step by step (the first
    trial of each side)."""

    mean_abs: float | None
    max_abs: float | None
    max_at_step: int | None
    relative: float | None  # mean gap over float32's mean loss on the same steps
    steps_compared: int


def loss_gap(baseline: StoredRun, mixed: StoredRun) -> LossGap:
    """Over the steps both runs sampled. A comparison's runs sample the same steps, so
    each pair of points covers the same window of batches; unrelated runs from the
    history still share their epoch ends."""
    base = {s.step: s.loss for s in baseline.steps}
    other = {s.step: s.loss for s in mixed.steps}
    common = sorted(base.keys() & other.keys())
    if not common:
        return LossGap(None, None, None, None, 0)
    b = np.array([base[k] for k in common], dtype=float)
    m = np.array([other[k] for k in common], dtype=float)
    gap = np.abs(m - b)
    if not np.all(np.isfinite(gap)):  # a diverged run: the gap is infinite from there on
        first_bad = common[int(np.argmax(~np.isfinite(gap)))]
        return LossGap(math.inf, math.inf, first_bad, math.inf, len(common))
    worst = int(np.argmax(gap))
    base_mean = float(np.mean(np.abs(b)))
    return LossGap(
        float(np.mean(gap)), float(gap[worst]), common[worst],
        float(np.mean(gap)) / base_mean if base_mean > 0 else None, len(common),
    )


@dataclass(frozen=True)
class ComparisonCard:
    baseline: Side
    mixed: Side
    speedup: Spread  # mixed over float32 steady examples/s, per trial pair
    memory_saving: float | None  # fraction of float32's median peak memory saved
    accuracy_delta_pp: float | None  # median final validation accuracy, mixed - float32
    best_accuracy_delta_pp: float | None
    loss_gap: LossGap
    verdict: Verdict
    accuracy: PairedAccuracy | None = None  # final validation accuracy, tested
    best_accuracy: PairedAccuracy | None = None
    test_accuracy: PairedAccuracy | None = None
    differences: str = ""  # what differs besides the precision; "" for a fair comparison
    profile: ProfileComparison | None = None  # an opt-in op profile of both sides
    # (float32's batch, mixed's): each side at the largest batch it fit, the learning
    # rate scaled linearly; None when both trained the same batch
    batch_sizes: tuple[int, int] | None = None
    # where mpstudio sized the comparison for timing: what it changed and why (sizing.py)
    sized: str = ""
    sized_steps: int | None = None  # the steps each side trained, when sized
    # (float32, mixed) of the speed pair on synthetic data at a larger batch; the
    # speedup above is then theirs, and the dataset pair's is dataset_speedup
    speed_sides: tuple[Side, Side] | None = None
    dataset_speedup: Spread = Spread(None, None, None, 0)
    speed_batch: int | None = None  # the speed pair's batch
    # synthetic data: one random batch with random labels, so its accuracy means nothing
    random_labels: bool = False
    # the mixed side's graph rewrites unlike a plain script's ("remapping off": float16 on
    # a CPU, trainer/cpu_float16_fusion.py); "" where both trained as a script would
    graph_rewrites: str = ""

    @property
    def trials(self) -> int:
        return min(len(self.baseline.run_ids), len(self.mixed.run_ids))

    @property
    def predicted_speedup(self) -> float | None:
        """Mixed over float32 as predicted before the runs (None: no prediction)."""
        base = self.baseline.predicted_examples_per_sec.median
        half = self.mixed.predicted_examples_per_sec.median
        return half / base if base and half else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = json_ready(asdict(self))
        return out


def _speedups(baseline: Sequence[StoredRun], mixed: Sequence[StoredRun]) -> Spread:
    """Mixed over float32 steady examples/s, trial pair by trial pair."""
    ratios = []
    for b, m in zip(baseline, mixed, strict=False):
        bs = b.summary.steady_examples_per_sec if b.summary else None
        ms = m.summary.steady_examples_per_sec if m.summary else None
        ratios.append(ms / bs if bs and ms else None)
    return Spread.of(ratios)


def build_card(
    baseline: Sequence[StoredRun], mixed: Sequence[StoredRun],
    speed: tuple[Sequence[StoredRun], Sequence[StoredRun]] | None = None,
) -> ComparisonCard:
    """``baseline``/``mixed``: the trials of each side, in order (trial i of one side
    pairs with trial i of the other for the speedup). ``speed``: a speed pair on
    synthetic data at a larger batch (trainer/speed_pair.py), which then gives the
    verdict's speed; the dataset's pair gives the accuracy."""
    base, half = Side.of(baseline), Side.of(mixed)
    speedup = dataset_speedup = _speedups(baseline, mixed)
    timed_runs = (baseline, mixed)
    speed_sides = None
    if speed is not None and speed[0] and speed[1]:
        speed_sides = Side.of(speed[0]), Side.of(speed[1])
        speedup, timed_runs = _speedups(*speed), speed
    timed_base, timed_half = speed_sides or (base, half)
    batches = scaled_batches(baseline[0], mixed[0])
    memory = None
    if base.peak_memory_bytes.median and half.peak_memory_bytes.median is not None \
            and batches is None:  # at its own larger batch, mixed spent what it saved
        memory = 1.0 - half.peak_memory_bytes.median / base.peak_memory_bytes.median
    delta = _delta_pp(base.final_val_accuracy, half.final_val_accuracy)
    best_delta = _delta_pp(base.best_val_accuracy, half.best_val_accuracy)
    # at different batches step n is not the same point of training on both sides
    gap = loss_gap(baseline[0], mixed[0]) if batches is None else LossGap(
        None, None, None, None, 0)
    differences = differences_sentence(
        spec_differences(baseline[0].spec, mixed[0].spec,
                         BATCH_KEYS if batches is not None else frozenset()),
        hardware_differences(baseline[0].hardware, mixed[0].hardware))
    paired = same_examples(baseline[0].spec, mixed[0].spec)
    accuracy = accuracy_test(baseline, mixed, "val_hits", "final_val_accuracy",
                             "val_examples", paired)
    profile = profile_comparison(baseline[0], mixed[0])
    sized = sized_note(mixed[0].spec)
    verdict = decide(VerdictInputs(
        baseline_status=base.status,
        mixed_status=half.status,
        mixed_precision=half.precision,
        speedup=speedup.median,
        speedup_low=speedup.low,
        speedup_high=speedup.high,
        trials=speedup.n,
        accuracy=accuracy,
        steady_steps=min(timed_base.steady_steps, timed_half.steady_steps),
        steady_seconds=min(timed_base.steady_seconds, timed_half.steady_seconds),
        memory_saving=memory,
        on_gpu=half.device.startswith("GPU"),
        mixed_step_time=timed_half.steady_step_time.median,
        data_time_fraction=timed_half.data_time_fraction.median,
        advisor_reason=render(mixed[0].hardware.get("advisor_reason", "")),
        advisor_expected_gain=mixed[0].hardware.get("advisor_verdict") == "recommended",
        baseline_label=baseline_math(baseline[0]),
        differences=differences,
        profile_reason=slower_reason(profile, half.precision, device_phrase(half.device))
        if profile else "",
        epochs=mixed[0].spec.get("epochs"),
        steps=mixed[0].spec.get("steps"),
        window_interval=window_interval(timed_runs[0][0].steps, timed_runs[1][0].steps)
        if speedup.n == 1 else None,
    ))
    return ComparisonCard(
        base, half, speedup, memory, delta, best_delta, gap, verdict, accuracy,
        accuracy_test(baseline, mixed, "best_val_hits", "best_val_accuracy", "val_examples",
                      paired),
        accuracy_test(baseline, mixed, "test_hits", "test_accuracy", "test_examples", paired),
        differences, profile, batches, sized, mixed[0].spec.get("steps") if sized else None,
        speed_sides, dataset_speedup,
        timed_runs[1][0].spec.get("batch_size") if speed_sides else None,
        baseline[0].spec.get("dataset") == "synthetic",
        str(mixed[0].hardware.get("graph_rewrites", "") or ""))


def scaled_batches(baseline: StoredRun, mixed: StoredRun) -> tuple[int, int] | None:
    """(float32's batch, mixed's batch) when one comparison ran each side at a batch of
    its own with the learning rate scaled linearly (the batch-size finder's comparison
    at the largest batches); None when the batches agree or the runs are unrelated."""
    a, b = baseline.spec, mixed.spec
    if baseline.row.comparison is None or baseline.row.comparison != mixed.row.comparison:
        return None
    batch_a, batch_b = a.get("batch_size"), b.get("batch_size")
    rate_a, rate_b = a.get("learning_rate"), b.get("learning_rate")
    if not (isinstance(batch_a, int) and isinstance(batch_b, int) and batch_a != batch_b
            and isinstance(rate_a, (int, float)) and isinstance(rate_b, (int, float))):
        return None
    if not math.isclose(rate_a / batch_a, rate_b / batch_b, rel_tol=1e-6):
        return None
    return batch_a, batch_b


def accuracy_test(baseline: Sequence[StoredRun], mixed: Sequence[StoredRun], hits: str,
                  accuracy: str, examples: str, paired: bool) -> PairedAccuracy | None:
    """Mixed against float32 on one split: paired over the trial pairs when every run
    kept its per-example flags on the same examples; otherwise the unpaired interval
    of the two median accuracies (runs recorded before the flags); None without
    the accuracies or their example counts."""
    pairs = [(b.summary, m.summary) for b, m in zip(baseline, mixed, strict=False)
             if b.summary is not None and m.summary is not None]
    if paired and pairs:
        decoded = [(decode_hits(getattr(b, hits)), decode_hits(getattr(m, hits)))
                   for b, m in pairs]
        flags = [(f, g) for f, g in decoded if f is not None and g is not None]
        if len(flags) == len(decoded):
            test = paired_accuracy([f for f, _ in flags], [g for _, g in flags],
                                   ACCURACY_TOLERANCE_PP)
            if test is not None:
                return test
    base = Spread.of([getattr(r.summary, accuracy) for r in baseline if r.summary])
    half = Spread.of([getattr(r.summary, accuracy) for r in mixed if r.summary])
    base_n = next((getattr(r.summary, examples) for r in baseline
                   if r.summary and getattr(r.summary, examples)), None)
    half_n = next((getattr(r.summary, examples) for r in mixed
                   if r.summary and getattr(r.summary, examples)), None)
    if base.median is None or half.median is None or not base_n or not half_n:
        return None
    return unpaired_accuracy(base.median, base_n, half.median, half_n, ACCURACY_TOLERANCE_PP)


def device_phrase(device: str) -> str:
    """"this CPU", "this GPU", "this TPU" for a run's device label (in the language in
    force: a value inside the profile's sentences)."""
    kind = device.split(":")[0].split(" ")[0].upper()
    return _("this {kind}").format(kind=kind) if kind in ("CPU", "GPU", "TPU") \
        else _("this device")


def profile_comparison(baseline: StoredRun, mixed: StoredRun) -> ProfileComparison | None:
    """Both sides' op profiles side by side, when both took one."""
    base = baseline.summary.op_profile if baseline.summary else None
    half = mixed.summary.op_profile if mixed.summary else None
    if not base or not half:
        return None
    try:
        return compare_profiles(OpProfile.from_dict(base), OpProfile.from_dict(half))
    except (KeyError, TypeError, ValueError):  # a profile from another release
        return None


def card_for_comparison(runs: Sequence[StoredRun]) -> ComparisonCard | None:
    """The card of one comparison's runs (baseline and mixed trials, any order); None
    when one side never ran (stopped during the first baseline). A trial pair the user
    stopped is left out when an earlier pair is whole."""
    def side(role: str) -> list[StoredRun]:
        return sorted((r for r in runs if r.row.role == role), key=lambda r: r.row.trial)

    pairs = list(zip(side("baseline"), side("mixed"), strict=False))
    whole = [(b, m) for b, m in pairs if "stopped" not in (b.status, m.status)]
    pairs = whole or pairs
    if not pairs:
        return None
    speed = side("speed_baseline"), side("speed_mixed")  # trainer/speed_pair.py
    return build_card([b for b, _ in pairs], [m for _, m in pairs],
                      speed if all(speed) else None)


def sides_from_history(store: RunStore, a: int, b: int) -> tuple[list[StoredRun],
                                                                    list[StoredRun]]:
    """Two runs picked from the history as a card's sides: the float32 run is the
    baseline when exactly one is float32, otherwise ``a``. Each brings the other trials
    of its side when it was part of a repeated comparison."""
    first, second = store.side_of(a), store.side_of(b)
    if second[0].row.precision == "float32" and first[0].row.precision != "float32":
        first, second = second, first
    return first, second


def baseline_math(run: StoredRun) -> str:
    """What the float32 side computed in: "TF32" or "float32"."""
    return run.hardware.get("float32_math") or "float32"


def _delta_pp(base: Spread, mixed: Spread) -> float | None:
    if base.median is None or mixed.median is None:
        return None
    return 100.0 * (mixed.median - base.median)
