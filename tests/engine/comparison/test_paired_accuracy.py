"""The paired accuracy test: exact values, the interval's coverage, and the outcomes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpstudio.engine.comparison.paired_accuracy import (
    LOSS,
    NO_LOSS,
    SAME,
    UNCLEAR,
    decode_hits,
    encode_hits,
    mcnemar_exact,
    newcombe_paired,
    paired_accuracy,
    unpaired_accuracy,
    wilson,
)


def test_mcnemar_exact_matches_the_binomial_by_hand():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(50, 50) == 1.0
    # thousands of disagreements: no overflow, and the exact sum agrees
    exact = 2 * sum(math.comb(3000, i) for i in range(1400 + 1)) / 2 ** 3000
    assert mcnemar_exact(1400, 1600) == pytest.approx(exact, rel=1e-9)


def test_wilson_interval_known_value():
    # 81 of 263 (Newcombe 1998, table I): 0.2553 to 0.3662
    low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)


def test_newcombe_paired_interval_holds_its_coverage():
    """Simulated pairs with a known true difference: the 95% interval must cover it
    about 95% of the time (the Wald interval covers far less with few disagreements)."""
    rng = np.random.default_rng(7)
    n, trials = 359, 2000
    p_base_only, p_mixed_only, p_both = 0.04, 0.02, 0.80  # true delta: -2 points
    covered = 0
    for _ in range(trials):
        draws = rng.multinomial(n, [p_both, p_base_only, p_mixed_only,
                                    1 - p_both - p_base_only - p_mixed_only])
        low, high = newcombe_paired(*draws)
        covered += low <= p_mixed_only - p_base_only <= high
    assert 0.93 <= covered / trials <= 0.975


def test_outcomes_follow_the_interval():
    n = 100_000
    base = np.arange(n) < 90_000
    assert paired_accuracy([base], [base]).outcome == SAME
    loss = np.arange(n) < 89_000  # 1,000 examples only float32 got right: -1 point
    test = paired_accuracy([base], [loss])
    assert test.outcome == LOSS and test.high_pp < -0.5
    assert test.delta_pp == pytest.approx(-1.0) and test.p_value < 1e-100
    gain = np.arange(n) < 91_000
    assert paired_accuracy([base], [gain]).outcome == NO_LOSS
    small = np.zeros(359, bool)
    small[:300] = True
    other = small.copy()
    other[:30] = False
    other[300:320] = True
    test = paired_accuracy([small], [other])
    assert test.outcome == UNCLEAR and test.low_pp < -0.5 < test.high_pp
    assert test.examples_to_decide == math.ceil(50 / 359 * (1.959963984540054 / 0.005) ** 2)


def test_repeated_identical_trials_do_not_shrink_the_interval():
    """Trials repeat the seed: three identical pairs are one pair's evidence, not three."""
    rng = np.random.default_rng(1)
    base = rng.random(2000) < 0.9
    mixed = base.copy()
    mixed[rng.choice(2000, 60, replace=False)] ^= True
    one = paired_accuracy([base], [mixed])
    three = paired_accuracy([base] * 3, [mixed] * 3)
    assert three.trials == 3 and three.delta_pp == pytest.approx(one.delta_pp)
    assert (three.high_pp - three.low_pp) == pytest.approx(one.high_pp - one.low_pp, rel=0.1)


def test_pairs_of_other_examples_are_not_tested():
    assert paired_accuracy([np.ones(10, bool)], [np.ones(11, bool)]) is None
    assert paired_accuracy([], []) is None


def test_unpaired_interval_is_wider_for_the_same_accuracies():
    n = 1000
    base = np.arange(n) < 900
    paired = paired_accuracy([base], [base])
    unpaired = unpaired_accuracy(0.9, n, 0.9, n)
    assert not unpaired.paired and unpaired.examples_to_decide is None
    assert unpaired.high_pp - unpaired.low_pp > 3 * (paired.high_pp - paired.low_pp)


def test_flags_round_trip_and_damage_reads_as_missing():
    flags = np.random.default_rng(3).random(1003) < 0.5
    assert np.array_equal(decode_hits(encode_hits(flags)), flags)
    assert len(encode_hits(np.ones(10_000, bool))) < 1800  # 1.7 kB in the history
    for damaged in ("", "12", "x:AAAA", "100:AA", "5:!!!!"):
        assert decode_hits(damaged) is None
