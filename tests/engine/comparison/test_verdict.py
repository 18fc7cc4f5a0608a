"""The comparison card's verdict follows its written rule, on crafted runs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mpstudio.engine.comparison.card import build_card, card_for_comparison
from mpstudio.engine.comparison.card_text import card_rows
from mpstudio.engine.comparison.paired_accuracy import encode_hits, paired_accuracy
from mpstudio.engine.comparison.verdict import (
    ACCURACY_TOLERANCE_PP,
    VerdictInputs,
    decide,
    rule_text,
)

from support.stored_runs import run

GPU = "GPU:0 NVIDIA H100 80GB HBM3 (compute capability 9.0)"


def card(base_speed, mixed_speed, base_val, mixed_val, **mixed_kw):
    return build_card([run(1, "float32", base_speed, base_val, **{
        k: v for k, v in mixed_kw.items() if k in ("device", "float32_math", "steps_done")})],
        [run(2, "mixed_float16", mixed_speed, mixed_val, **mixed_kw)])


def test_worth_it_when_faster_and_accuracy_holds():
    c = card(1000, 2500, 0.900, 0.898, device=GPU, memory=None)
    assert c.verdict.kind == "worth_it"
    assert "2.50x" in c.verdict.sentence
    assert "validation accuracy -0.20 pp (95% interval -0.23 to -0.17)" in c.verdict.sentence


def test_accuracy_loss_beats_any_speedup():
    c = card(1000, 3000, 0.900, 0.900 - (ACCURACY_TOLERANCE_PP + 0.1) / 100, device=GPU)
    assert c.verdict.kind == "accuracy_loss"
    assert "lost 0.60 percentage points" in c.verdict.sentence
    assert "95% interval -0.6" in c.verdict.sentence and "although it ran at 3.00x" in \
        c.verdict.sentence


@pytest.mark.parametrize(("mixed_speed", "joined", "not_said"), [
    (440, ", and it ran at 0.44x the speed", "although"),  # less accurate and slower
    (1800, ", although it ran at 1.80x the speed", ", and it ran"),  # a trade-off
])
def test_an_accuracy_loss_joins_the_speed_by_what_it_was(mixed_speed, joined, not_said):
    c = card(1000, mixed_speed, 0.900, 0.7524)
    assert c.verdict.kind == "accuracy_loss"
    assert "lost 14.76 percentage points" in c.verdict.sentence
    assert joined in c.verdict.sentence and not_said not in c.verdict.sentence


def test_a_loss_at_the_tolerance_cannot_be_ruled_out():
    """-0.5 points measured: its interval reaches past -0.5, so "worth it" is not earned."""
    c = card(1000, 2000, 0.900, 0.895, device=GPU)
    assert c.accuracy_delta_pp == pytest.approx(-0.5)
    assert c.verdict.kind == "cant_tell"
    assert c.accuracy.low_pp < -0.5 < c.accuracy.high_pp


def test_the_default_demos_noise_is_not_called_a_loss():
    """359 validation examples (digits): a 3-point drop from 40 disagreements either
    way is well inside the noise, so neither a loss nor worth it."""
    n = 359
    base = np.zeros(n, bool)
    base[:300] = True
    mixed = base.copy()
    mixed[:30] = False  # 30 examples only float32 got right ...
    mixed[300:320] = True  # ... and 20 only mixed got right: -10 examples, -2.8 points
    runs = [run(1, "float32", 1000, base.mean(), device=GPU, examples=0),
            run(2, "mixed_float16", 2000, mixed.mean(), device=GPU, examples=0)]
    for r, hits in zip(runs, (base, mixed), strict=True):
        object.__setattr__(r, "summary", dataclasses.replace(
            r.summary, val_examples=n, val_hits=encode_hits(hits)))
    c = build_card(runs[:1], runs[1:])
    assert c.accuracy.delta_pp == pytest.approx(-100 * 10 / n)
    assert c.accuracy.outcome == "unclear" and c.verdict.kind == "cant_tell"
    assert "disagree on 13.9% of the 359 examples" in c.verdict.sentence
    assert "needs about" in c.verdict.sentence


def test_old_runs_without_flags_get_the_wider_unpaired_interval():
    c = build_card([run(1, "float32", 1000, 0.90, device=GPU, examples=0)],
                   [run(2, "mixed_float16", 2000, 0.90, device=GPU, examples=0)])
    assert c.accuracy is None  # no example counts either: nothing to test
    base = run(1, "float32", 1000, 0.90, device=GPU)
    mixed = run(2, "mixed_float16", 2000, 0.90, device=GPU)
    for r in (base, mixed):
        object.__setattr__(r, "summary", dataclasses.replace(r.summary, val_hits=""))
    c = build_card([base], [mixed])
    assert not c.accuracy.paired and c.accuracy.p_value is None
    assert "unpaired" in c.verdict.sentence
    paired = paired_accuracy([np.arange(100_000) < 90_000], [np.arange(100_000) < 90_000])
    assert c.accuracy.high_pp - c.accuracy.low_pp > paired.high_pp - paired.low_pp


def test_runs_that_differ_in_more_than_precision_get_no_verdict():
    """A cnn against an mlp: the 0.09x and the lost points measure the models."""
    c = build_card([run(1, "float32", 1000, 0.95, device=GPU, spec={"template": "cnn"})],
                   [run(2, "mixed_float16", 90, 0.31, device=GPU, spec={"template": "mlp"})])
    assert c.verdict.kind == "differs"
    assert "template cnn vs mlp" in c.verdict.sentence and "no verdict" in c.verdict.sentence
    other_machine = run(2, "mixed_float16", 2000, 0.95, device=GPU)
    other_machine.hardware["tensorflow"] = "2.20.0"
    base = run(1, "float32", 1000, 0.95, device=GPU)
    base.hardware["tensorflow"] = "2.21.0"
    c = build_card([base], [other_machine])
    assert c.verdict.kind == "differs" and "tensorflow 2.21.0 vs 2.20.0" in c.verdict.sentence


def test_the_advisors_words_are_not_a_hardware_difference():
    base = run(1, "float32", 1000, 0.9, device=GPU, advisor="float32 is the reference")
    c = build_card([base], [run(2, "mixed_float16", 2000, 0.9, device=GPU)])
    assert c.verdict.kind == "worth_it"


def test_slower_names_the_advisors_reason_on_a_cpu():
    c = card(1000, 600, 0.9, 0.9)
    assert c.verdict.kind == "slower"
    assert "Slower on this hardware" in c.verdict.sentence
    assert "no native float16 arithmetic on this CPU" in c.verdict.sentence


def test_slower_where_the_advice_expected_a_gain_does_not_cite_it_as_the_cause():
    """On an AMX CPU the advice recommends mixed_bfloat16 ("AMX multiplies bfloat16 many
    times faster"); a model that still ran slower must not end its verdict on that
    promise as if it were the reason."""
    amx = "AMX tile units multiply bfloat16 many times faster than float32"
    c = card(1000, 600, 0.9, 0.9, advisor=amx, advisor_verdict="recommended")
    assert c.verdict.kind == "slower"
    assert "the hardware check expected a gain here (" + amx in c.verdict.sentence
    assert "profile its ops" in c.verdict.sentence
    assert not c.verdict.sentence.rstrip(".").endswith(amx)


def test_slower_because_input_bound():
    c = card(1000, 900, 0.9, 0.9, device=GPU, data_fraction=0.93)
    assert c.verdict.kind == "slower" and "input-bound" in c.verdict.sentence
    assert "93%" in c.verdict.sentence


def test_slower_because_the_model_is_too_small_for_the_gpu():
    # 32 examples at 40,000/s: 0.8 ms a step, 4 s of steady steps
    c = card(50_000, 40_000, 0.9, 0.9, device=GPU, steps_done=5000)
    assert c.verdict.kind == "slower" and "too small to fill the GPU" in c.verdict.sentence


def test_no_gain_in_between_mentions_memory():
    c = build_card([run(1, "float32", 1000, 0.9, device=GPU, memory=8_000_000_000)],
                   [run(2, "mixed_float16", 1020, 0.9, device=GPU, memory=5_000_000_000)])
    assert c.verdict.kind == "no_gain"
    assert c.memory_saving == pytest.approx(0.375)
    assert "saves memory, 38% less peak memory" in c.verdict.sentence
    assert "37.5% saved" in {r.change for r in card_rows(c)}


def test_too_short_to_time_says_how_much_longer_would_do():
    """The window's first comparison (5 epochs of the digits) read "too short to time" with
    no word on what would do: now it says how many times as long, in the runs' epochs."""
    import math

    c = build_card([run(1, "float32", 1000, 0.9, steps_done=10, spec={"epochs": 5})],
                   [run(2, "mixed_float16", 3000, 0.9, steps_done=10, spec={"epochs": 5})])
    sentence = c.verdict.sentence
    assert c.verdict.kind == "too_short" and "8 steady steps" in sentence
    seconds = min(c.baseline.steady_seconds, c.mixed.steady_seconds)
    factor = 1.2 * max(20 / 8, 1.0 / seconds)
    assert f"train about {math.ceil(factor)}x as long ({math.ceil(5 * factor)} epochs)" \
        in sentence
    budget = build_card([run(1, "float32", 1000, 0.9, steps_done=10, spec={"steps": 10})],
                        [run(2, "mixed_float16", 3000, 0.9, steps_done=10, spec={"steps": 10})])
    assert f"({math.ceil(10 * factor)} steps), or on more data" in budget.verdict.sentence


def test_a_side_that_did_not_finish_gets_no_speed_verdict():
    c = build_card([run(1, "float32", 1000, 0.9)],
                   [run(2, "mixed_float16", 3000, 0.9, status="diverged")])
    assert c.verdict.kind == "incomplete" and "diverged where float32" in c.verdict.sentence
    c = build_card([run(1, "float32", 1000, 0.9, status="stopped")],
                   [run(2, "mixed_float16", 3000, 0.9)])
    assert c.verdict.kind == "incomplete" and "No verdict" in c.verdict.sentence


def test_the_baseline_is_named_for_what_it_computed():
    c = card(1000, 2500, 0.9, 0.9, device=GPU, float32_math="TF32")
    assert "the speed of TF32" in c.verdict.sentence


def test_medians_and_spread_over_trials():
    base = [run(1, "float32", 1000, 0.90, role="baseline", trial=1, device=GPU),
            run(3, "float32", 1100, 0.90, role="baseline", trial=2, device=GPU),
            run(5, "float32", 900, 0.90, role="baseline", trial=3, device=GPU)]
    mixed = [run(2, "mixed_float16", 2000, 0.90, role="mixed", trial=1, device=GPU),
             run(4, "mixed_float16", 2420, 0.90, role="mixed", trial=2, device=GPU),
             run(6, "mixed_float16", 1980, 0.90, role="mixed", trial=3, device=GPU)]
    c = card_for_comparison(list(reversed(base + mixed)))  # any order in, trial order used
    assert c.trials == 3 and c.baseline.run_ids == (1, 3, 5)
    assert c.speedup.median == pytest.approx(2.2) and c.speedup.low == pytest.approx(2.0)
    assert c.speedup.high == pytest.approx(2.2)
    assert c.baseline.examples_per_sec.median == 1000
    assert card_rows(c)[0].baseline == "1,000 (900-1,100)"
    assert "median of 3 trials" in c.verdict.sentence
    assert c.accuracy.trials == 3


def test_one_trial_says_its_spread_is_unknown():
    assert "one trial: spread unknown" in card(1000, 2500, 0.9, 0.9, device=GPU).verdict.sentence


def test_a_stopped_trial_is_left_out_when_an_earlier_one_is_whole():
    runs = [run(1, "float32", 1000, 0.9, role="baseline", trial=1),
            run(2, "mixed_float16", 2000, 0.9, role="mixed", trial=1, device=GPU),
            run(3, "float32", 1000, 0.9, role="baseline", trial=2, status="stopped")]
    c = card_for_comparison(runs)
    assert c.trials == 1 and c.baseline.status == "finished"
    assert card_for_comparison(runs[:1]) is None  # no mixed run at all


def test_the_rule_is_written_with_the_thresholds_it_uses():
    rule = rule_text()
    assert "0.5 percentage points" in rule and "1.05x" in rule and "0.95x" in rule
    inputs = VerdictInputs("finished", "finished", "mixed_bfloat16", 1.06, None, None, 1,
                           paired_accuracy([np.ones(10_000, bool)], [np.ones(10_000, bool)]),
                           100, 5.0, None, True, 0.01, None, "")
    assert decide(inputs).kind == "worth_it"
    assert decide(dataclasses.replace(inputs, speedup=1.04)).kind == "no_gain"
    assert decide(dataclasses.replace(inputs, speedup=0.94)).kind == "slower"
