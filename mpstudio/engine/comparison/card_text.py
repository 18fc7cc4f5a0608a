"""The card as rows of text, the same for the window, the terminal and the HTML report:
(figure, float32 side, mixed side, change)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from mpstudio.engine.comparison.card import ComparisonCard, Side, Spread
from mpstudio.engine.comparison.paired_accuracy import PairedAccuracy
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.memory_estimate import assumptions, versus_measured
from mpstudio.engine.profiling.profile_comparison import ROW_HEADERS
from mpstudio.engine.trainer.cpu_float16_fusion import PLAIN_SCRIPT_SAME, REMAPPING_OFF


@dataclass(frozen=True)
class CardRow:
    name: str
    baseline: str
    mixed: str
    change: str
    tip: str = ""  # what the figure means


def _num(value: float | None, spec: str, unit: str = "") -> str:
    return _("n/a") if value is None else f"{value:{spec}}{unit}"


def spread_text(s: Spread, spec: str, unit: str = "", scale: float = 1.0) -> str:
    """"1,234" for one trial; "1,234 (1,200-1,260)" for the median of several."""
    if s.median is None:
        return _("n/a")
    text = f"{s.median * scale:{spec}}{unit}"
    if s.n > 1 and s.low is not None and s.high is not None and s.low != s.high:
        text += f" ({s.low * scale:{spec}}-{s.high * scale:{spec}})"
    return text


def _pct(s: Spread) -> str:
    return spread_text(s, ".2f", "%", 100.0)


def _mib(s: Spread) -> str:
    return spread_text(s, ",.1f", " MiB", 1 / 2**20)


def scale_range_text(mode: str, low: float | None, high: float | None) -> str:
    """"off", "dynamic 32768" or "dynamic 8192 .. 32768" (also the CLI's summaries)."""
    if mode == "off" or low is None:
        return _("off")
    if low == high or high is None:
        return f"{_(mode)} {low:g}"
    return f"{_(mode)} {low:g} .. {high:g}"


def _scale_range(side: Side) -> str:
    return scale_range_text(side.loss_scale_mode, side.loss_scale_min, side.loss_scale_max)


# Loss-scaling modes as the card names them.
MODE_WORDS = (N_("dynamic"), N_("fixed"), N_("off"))


def _ratio_change(base: Spread, mixed: Spread, lower_is_better: bool) -> str:
    if not base.median or mixed.median is None:
        return ""
    ratio = mixed.median / base.median
    if lower_is_better:
        return _("{ratio:.2f}x the time").format(ratio=ratio)
    return f"{ratio:.2f}x"


def loss_gap_text(card: ComparisonCard) -> str:
    gap = card.loss_gap
    if gap.mean_abs is None:
        return _("n/a")
    if not math.isfinite(gap.mean_abs):
        return _("inf from step {step}").format(step=gap.max_at_step)
    rel = f" ({100 * gap.relative:.1f}%)" if gap.relative is not None else ""
    return _("{mean:.4f}{relative}, max {max:.4f} @{step}").format(
        mean=gap.mean_abs, relative=rel, max=gap.max_abs, step=gap.max_at_step)


def card_rows(card: ComparisonCard) -> list[CardRow]:
    b, m = card.baseline, card.mixed
    # with a speed pair the dataset's own pair has its own ratio (speed_rows)
    own = card.dataset_speedup if card.speed_sides else card.speedup
    speed = spread_text(own, ".2f", "x") if own.median else ""
    memory = ""
    if card.memory_saving is not None:
        memory = (_("{percent:.1f}% saved").format(percent=100 * card.memory_saving)
                  if card.memory_saving >= 0
                  else _("{percent:.1f}% more").format(percent=100 * -card.memory_saving))
    delta = _tested(card.accuracy, card.accuracy_delta_pp)
    best = _tested(card.best_accuracy, card.best_accuracy_delta_pp)
    if card.random_labels:  # the verdict ignores it; so does the card
        delta = best = _("not compared: random labels")
    estimates = _estimate_rows(b, m)
    steady = CardRow(_("steady examples/s"), spread_text(b.examples_per_sec, ",.0f"),
                     spread_text(m.examples_per_sec, ",.0f"), speed,
                     _("training throughput after the warm-up; median (lowest-highest) over "
                       "trials") if card.speedup.n > 1 else
                     _("training throughput after the warm-up; one trial a side, so the "
                       "spread is unknown (3 trials measure it)"))
    # the rows that qualify the speed follow it: the batch each side ran (the finder's
    # comparison), the speed pair, the prediction, the length mpstudio sized
    qualifiers = [row for row in (_batch_row(card), speed_pair_row(card), predicted_row(card),
                                  _length_row(card), _rewrites_row(card)) if row is not None]
    test = None
    if b.test_accuracy.median is not None or m.test_accuracy.median is not None:
        test = CardRow(_("test accuracy"), _pct(b.test_accuracy), _pct(m.test_accuracy),
                       _tested(card.test_accuracy, _delta_pp(b.test_accuracy, m.test_accuracy)),
                       _tested_tip(card.test_accuracy))
    rows = [
        steady,
        *qualifiers,
        CardRow(_("time to first step"), spread_text(b.time_to_first_step, ".2f", " s"),
                spread_text(m.time_to_first_step, ".2f", " s"),
                _ratio_change(b.time_to_first_step, m.time_to_first_step, True),
                _("tracing, XLA compilation and the first batch")),
        CardRow(_("epoch time"), spread_text(b.epoch_time, ".2f", " s"),
                spread_text(m.epoch_time, ".2f", " s"),
                _ratio_change(b.epoch_time, m.epoch_time, True),
                _("mean over full epochs, the first (tracing) left out when there are more")),
        CardRow(_("peak device memory"), _mib(b.peak_memory_bytes), _mib(m.peak_memory_bytes),
                memory, _("peak allocated on the device during the run")
                if b.peak_memory_bytes.median is not None else
                _("n/a: {why}").format(
                    why=b.memory_note or _("the device does not report it"))),
        *estimates,
        CardRow(_("final val accuracy"), _pct(b.final_val_accuracy), _pct(m.final_val_accuracy),
                delta, _tested_tip(card.accuracy)),
        CardRow(_("best val accuracy"), _pct(b.best_val_accuracy), _pct(m.best_val_accuracy), best,
                _tested_tip(card.best_accuracy)),
        *([test] if test is not None else []),
        CardRow(_("final train loss"), spread_text(b.final_loss, ".4f"),
                spread_text(m.final_loss, ".4f"), ""),
        CardRow(_("loss-curve gap"), "", loss_gap_text(card), "",
                _("mean |mixed loss - float32 loss| over the steps both runs sampled (as a "
                  "share of float32's loss), and the largest gap with its step")),
        CardRow(_("overflow (skipped) steps"), spread_text(b.overflow_steps, ".0f"),
                spread_text(m.overflow_steps, ".0f"), "",
                _("steps dynamic loss scaling skipped because a gradient was inf/NaN")),
        CardRow(_("loss scale"), _scale_range(b), _scale_range(m), ""),
    ]
    rows.append(CardRow(_("status"), _(b.status), _(m.status), ""))
    return rows


def _batch_row(card: ComparisonCard) -> CardRow | None:
    """The finder's comparison: each side at its largest batch."""
    if card.batch_sizes is None:
        return None
    base_batch, mixed_batch = card.batch_sizes
    return CardRow(
        _("batch size"), f"{base_batch:,}", f"{mixed_batch:,}",
        f"{mixed_batch / base_batch:.2f}x",
        _("each side at the largest batch that fit in memory, the learning rate scaled "
          "linearly with the batch; throughput counts examples, so the speedup includes "
          "the larger batch mixed precision made room for"))


def _rewrites_row(card: ComparisonCard) -> CardRow | None:
    """float16 on a CPU trains with TensorFlow's remapping pass off (its fused float16
    kernels are pathological there): the speed is not what a plain script gets."""
    notes = card_notes(card)
    if not notes:
        return None
    return CardRow(_("graph rewrites"), _("TensorFlow's default"), _("remapping pass off"),
                   "", notes[0])


def card_notes(card: ComparisonCard) -> list[str]:
    """What a reader of the card's figures must know beside them, one sentence each:
    printed under the card (CLI, report), a row's tip in the window."""
    if card.graph_rewrites != REMAPPING_OFF:
        return []
    return [_("Measured with TensorFlow's remapping pass off for float16, as mpstudio does "
              "on a CPU (its fused float16 kernels are many times slower there); a plain "
              "Keras script gets those kernels unless it turns the pass off too: "
              "`{call}`.").format(call=PLAIN_SCRIPT_SAME)]


def _length_row(card: ComparisonCard) -> CardRow | None:
    """The steps a comparison mpstudio sized for timing trained (comparison/sizing.py)."""
    if not (card.sized and card.sized_steps):
        return None
    length = _("{steps:,} steps").format(steps=card.sized_steps)
    return CardRow(_("training length"), length, length, _("sized by mpstudio"), card.sized)


def speed_pair_row(card: ComparisonCard) -> CardRow | None:
    """The speed pair's examples/s on synthetic data at the batch the device needs (the
    verdict's speed), where the comparison timed one (trainer/speed_pair.py)."""
    if card.speed_sides is None:
        return None
    b, m = card.speed_sides
    batch = card.speed_batch or 0
    return CardRow(
        _("examples/s, synthetic batch {batch:,}").format(batch=batch),
        spread_text(b.examples_per_sec, ",.0f"), spread_text(m.examples_per_sec, ",.0f"),
        spread_text(card.speedup, ".2f", "x") if card.speedup.median else "",
        _("the verdict's speed: the same model on one random batch of the dataset's shape, "
          "repeated, at the batch the prediction says this device needs to show the gain "
          "(more than the dataset holds); the rows below are the dataset's, at your batch"))


def predicted_row(card: ComparisonCard) -> CardRow | None:
    """Predicted examples/s on each side and the predicted speedup, with why the
    measurement differs where it does."""
    b, m, predicted = card.baseline, card.mixed, card.predicted_speedup
    if predicted is None:
        return None
    return CardRow(_("predicted examples/s"), spread_text(b.predicted_examples_per_sec, ",.0f"),
                   spread_text(m.predicted_examples_per_sec, ",.0f"),
                   f"{predicted:.2f}x", prediction_gap_text(card))


def prediction_gap_text(card: ComparisonCard) -> str:
    """Why the measured speedup differs from the predicted one, in one sentence."""
    from mpstudio.engine.prediction.prediction_text import BOUND_TEXT

    predicted, measured = card.predicted_speedup, card.speedup.median
    bound = card.mixed.predicted_bound
    why = _(BOUND_TEXT[bound]) if bound in BOUND_TEXT else ""
    if predicted is None:
        return ""
    if measured is None:
        return _("predicted before the run from the device's rates and the model's layers; "
                 "{why}").format(why=why)
    gap = measured / predicted - 1
    if abs(gap) <= 0.15:
        return _("predicted {predicted:.2f}x, measured {measured:.2f}x: as predicted "
                 "({why})").format(predicted=predicted, measured=measured, why=why)
    fraction = card.mixed.data_time_fraction.median
    if gap < 0 and fraction is not None and fraction > 0.3:
        reason = _("the input pipeline held the steps back ({share:.0%} of a step waited "
                   "for data), which the prediction does not count").format(share=fraction)
    elif card.mixed.steady_seconds < 2:
        reason = _("too little steady time to measure the speed reliably")
    elif gap < 0:
        reason = _("the framework's own work per step (casts, loss scaling, launches) cost "
                   "more here than the device's rates predict")
    else:
        reason = _("the half type's kernels ran closer to the device's peak than predicted")
    return _("predicted {predicted:.2f}x, measured {measured:.2f}x: {reason}").format(
        predicted=predicted, measured=measured, reason=reason)


def _versus(side: Side) -> str:
    estimated, measured = side.estimated_memory_bytes.median, side.peak_memory_bytes.median
    if estimated is None:
        return _("n/a")
    return versus_measured(int(estimated), None if measured is None else int(measured))


def _estimate_rows(b: Side, m: Side) -> list[CardRow]:
    """The memory estimated before the runs against their measured peaks (medians over
    trials); none for runs stored without an estimate."""
    if b.estimated_memory_bytes.median is None and m.estimated_memory_bytes.median is None:
        return []
    return [CardRow(_("memory estimate"), _versus(b), _versus(m), "",
                    _("estimated before the run from the built model: {assumptions}; error "
                      "= (estimated - measured) / measured").format(
                        assumptions=assumptions()))]


def _delta_pp(base: Spread, mixed: Spread) -> float | None:
    if base.median is None or mixed.median is None:
        return None
    return 100 * (mixed.median - base.median)


def _tested(test: PairedAccuracy | None, delta_pp: float | None) -> str:
    """"-1.39 pp" over "(-3.90 to +1.11)": the change with its 95% interval."""
    if test is not None:
        # two lines: the change, then its interval (narrow columns stay readable)
        return _("{delta:+.2f} pp\n({low:+.2f} to {high:+.2f})").format(
            delta=test.delta_pp, low=test.low_pp, high=test.high_pp)
    return "" if delta_pp is None else f"{delta_pp:+.2f} pp"


def _tested_tip(test: PairedAccuracy | None) -> str:
    if test is None:
        return _("percentage points, mixed minus float32")
    return _("percentage points, mixed minus float32, with the 95% interval; {evidence}").format(
        evidence=test.evidence_text())


def side_heading(side: Side) -> str:
    """"float32 baseline (#3, #5, #7)"."""
    ids = ", ".join(f"#{i}" for i in side.run_ids)
    return f"{side.label} ({ids})"


@dataclass(frozen=True)
class ProfileTable:
    """The op-by-op table of a profiled comparison, the same in every front end."""

    headers: tuple[str, ...]
    rows: list[tuple[str, ...]]
    note: str


PROFILE_ROWS = 12  # the op types that lost most; the rest are noise at this scale
PROFILE_TITLE = N_("Why, op by op (ms per step, most time lost first)")


def profile_title() -> str:
    """``PROFILE_TITLE`` in the language in force."""
    return _(PROFILE_TITLE)


def profile_table(card: ComparisonCard) -> ProfileTable | None:
    """None when the comparison took no profile (it is opt-in)."""
    p = card.profile
    if p is None:
        return None
    note = _("Op profile of a few steady steps of each side's first trial, {device}: "
             "float32 {float32_ms:.2f} ms/step, mixed {mixed_ms:.2f} ms/step; mixed "
             "precision added {casts:.0f} casts per step ({casts_ms:.2f} ms); waiting for "
             "input {float32_wait:.0%} / {mixed_wait:.0%} of the step. Ops run in parallel, "
             "so shares can add up to more than 100%.").format(
        device=p.device_kind, float32_ms=1000 * p.float32_step_time,
        mixed_ms=1000 * p.mixed_step_time, casts=p.casts_added_count,
        casts_ms=1000 * p.casts_added_seconds, float32_wait=p.float32_input_wait,
        mixed_wait=p.mixed_input_wait)
    rows = p.rows_text(PROFILE_ROWS)
    headers = tuple(_(h) for h in ROW_HEADERS)
    if all(row[-1] in ("-", "") for row in rows):  # no kernels to judge (a CPU, a TPU)
        return ProfileTable(headers[:-1], [row[:-1] for row in rows], note)
    return ProfileTable(headers, rows, note)
