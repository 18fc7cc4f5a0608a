"""A comparison sized so its speed can be timed: the decision on a CPU and on an injected
H200 (the table's rates, the templates costed for real), the single trial's speed
interval, and a real sized comparison on this CPU that ends with a timed verdict where
the same comparison as set is too short to time."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from mpstudio.engine.comparison.sizing import (
    MOST_SIDE_SECONDS,
    TARGET_STEADY_SECONDS,
    TARGET_STEADY_STEPS,
    ComparisonSize,
    StepForecast,
    as_set,
    beyond_data_warning,
    plan_size,
    sized_note,
    sized_spec,
)
from mpstudio.engine.comparison.speed_interval import window_interval
from mpstudio.engine.comparison.verdict import MIN_STEADY_SECONDS, MIN_STEADY_STEPS
from mpstudio.engine.events import StepMetrics
from mpstudio.engine.spec import RunSpec, SpecError

WARMUP = 2


def test_a_short_comparison_is_lengthened_to_whole_epochs_of_steady_time():
    fast = StepForecast(128, 0.001, 0.0012)  # 1 ms steps: 33 steps are 33 ms
    size = plan_size(33, 128, 11, WARMUP, fast)
    assert size.sized and size.batch_size is None
    assert size.steps % 11 == 0  # whole epochs
    steady = size.steps - WARMUP
    assert steady * 0.001 >= TARGET_STEADY_SECONDS and steady >= TARGET_STEADY_STEPS
    assert steady * 0.001 < TARGET_STEADY_SECONDS + 11 * 0.001  # no more than an epoch over


def test_a_comparison_long_enough_trains_as_set():
    size = plan_size(5000, 128, 11, WARMUP, StepForecast(128, 0.001, 0.001))
    assert not size.sized and size.steps is None


def test_a_slow_side_bounds_the_length():
    """The float16 side 50x slower than float32 (oneDNN's float16 convolutions on an
    AVX512-FP16 CPU): the budget bounds the slow side, and still leaves the verdict's
    minimum number of steady steps."""
    size = plan_size(10, 32, 10, WARMUP, StepForecast(32, 0.01, 0.5))
    steady = size.steps - WARMUP
    assert steady >= 2 * MIN_STEADY_STEPS
    assert (steady - 10) * 0.5 <= MOST_SIDE_SECONDS  # within an epoch of the bound


def test_a_gpu_batch_that_fits_the_data_is_taken_with_the_learning_rate_scaled():
    now, larger = StepForecast(128, 0.0006, 0.0007), StepForecast(2048, 0.004, 0.002)
    size = plan_size(33, 128, 11, WARMUP, now, larger, train_examples=65_536)
    assert size.batch_size == 2048 and size.batch_beyond_data == 0
    spec = sized_spec(RunSpec(batch_size=128, epochs=3, learning_rate=1e-3), size)
    assert spec.batch_size == 2048 and spec.learning_rate == pytest.approx(16e-3)
    assert spec.sized_from == {"steps": 33, "batch_size": 128, "epochs": 3}
    back = as_set(spec)  # a History re-run fills the form with what the user set
    assert (back.batch_size, back.epochs, back.steps, back.sized_from) == (128, 3, None, {})
    assert back.learning_rate == pytest.approx(1e-3)
    # a batch larger than the training split is not taken: the user is told instead
    small = plan_size(33, 128, 11, WARMUP, now, larger, train_examples=1_150)
    assert small.batch_size is None and small.batch_beyond_data == 2048
    assert "batch 2,048" in beyond_data_warning("H200", small)


def test_on_an_injected_h200_the_prediction_sizes_the_batch_it_needs():
    """The table's H200 and the templates costed for real: digits' cnn needs a batch
    larger than digits holds; on synthetic data of 65,536 examples it is taken."""
    from mpstudio.engine.prediction.device_rates import gpu_rates
    from mpstudio.engine.prediction.for_comparison import size_for

    h200 = gpu_rates("NVIDIA H200")
    digits = size_for(RunSpec(template="cnn", precision="mixed_float16", epochs=3), h200, 2)
    assert digits is not None and digits.batch_size is None
    assert digits.batch_beyond_data > 1_438
    assert digits.steps is not None and digits.steps > 10 * digits.user_steps
    synthetic = RunSpec(dataset="synthetic", template="cnn", precision="mixed_float16",
                        epochs=3, dataset_options={"samples": 65_536, "shape": [32, 32, 3],
                                                   "classes": 10})
    size = size_for(synthetic, h200, 2)
    assert size is not None and 128 < size.batch_size <= 65_536


def test_the_spec_keeps_what_the_user_set_and_refuses_nonsense():
    spec = sized_spec(RunSpec(epochs=3), ComparisonSize(33, 128, steps=990))
    assert RunSpec.from_dict(spec.to_dict()) == spec
    assert "sized_from" not in RunSpec().to_dict()
    assert spec.setting_problems() == []
    assert RunSpec(sized_from={"steps": -1}).setting_problems()
    with pytest.raises(SpecError):
        RunSpec.from_dict({"sized_from": 5})
    note = sized_note(spec.to_dict())
    assert "990 steps (you set 3 epochs, 33 steps)" in note
    assert sized_note(RunSpec().to_dict()) == ""


def _windows(rate: float, n: int, noise: float, seed: int) -> list[StepMetrics]:
    rng = np.random.default_rng(seed)
    out = [StepMetrics(2, 1, 1.0, 0.5, None, 0, None, 0.5, True)]
    for i in range(n):
        per_step = 1 / (rate * (1 + noise * rng.standard_normal()))
        out.append(StepMetrics(2 + 10 * (i + 1), 1, 1.0, 0.5, None, 0, 128 / per_step,
                               per_step, False))
    return out


def test_one_trials_speed_interval_comes_from_its_steady_windows():
    base, half = _windows(100.0, 40, 0.05, 1), _windows(200.0, 40, 0.05, 2)
    low, high = window_interval(base, half)
    assert low < 2.0 < high and high - low < 0.2
    assert window_interval(base, half) == (low, high)  # seeded: a rebuilt card agrees
    assert window_interval(base[:4], half) is None  # too few windows to pin it down


def test_the_command_line_sizes_only_what_the_user_left_unset():
    from mpstudio.cli.train_command import sizes_comparison

    def args(**given) -> argparse.Namespace:
        values = {"sizing": "auto", "epochs": None, "steps": None, "batch_size": None,
                  "config": None}
        return argparse.Namespace(**{**values, **given})

    assert sizes_comparison(args())
    assert not sizes_comparison(args(epochs=3))
    assert not sizes_comparison(args(batch_size=64))
    assert not sizes_comparison(args(sizing="off"))


@pytest.mark.slow
def test_a_sized_comparison_on_this_cpu_ends_with_a_timed_verdict():
    """The window's defaults (digits, mlp, batch 128) at one epoch: as set, each side has
    well under a second of steady time ("too short to time"); sized, the card has a
    timed verdict with the single trial's interval, and says what mpstudio changed."""
    from mpstudio.engine.comparison.card_text import card_rows
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.run_session import train_session
    from mpstudio.engine.trainer.compare_options import CompareOptions

    spec = RunSpec(template="mlp", precision="mixed_bfloat16", epochs=1)
    as_set_card = train_session(spec, CollectingReporter(), CompareOptions()).card
    assert as_set_card.verdict.kind == "too_short"
    session = train_session(spec, CollectingReporter(), CompareOptions(size=True))
    card = session.card
    assert card.verdict.kind != "too_short", card.verdict.sentence
    assert card.baseline.steady_seconds >= MIN_STEADY_SECONDS
    assert "steady windows" in card.verdict.sentence  # the speed's interval
    assert session.results[0].spec.steps == session.results[1].spec.steps > 11
    length = next(r for r in card_rows(card) if r.change == "sized by mpstudio")
    assert "you set 1 epoch," in length.tip


@pytest.mark.slow
def test_a_batch_beyond_the_data_is_timed_on_synthetic_data_beside_the_dataset():
    """What an H200 meets with digits' cnn (the batch it needs is beyond digits' 1,438
    training examples), recreated on this CPU with the plan an H200 gives, at a batch a
    CPU times quickly: accuracy from digits at the user's batch, the verdict's speed from
    a synthetic pair at the larger batch, and the card says which is which."""
    from mpstudio.engine.comparison.card import card_for_comparison
    from mpstudio.engine.comparison.card_text import card_rows
    from mpstudio.engine.events import CollectingReporter, RunWarning
    from mpstudio.engine.history.recorder import RecordingReporter
    from mpstudio.engine.trainer.compare import compare

    plan = ComparisonSize(user_steps=11, user_batch=128, batch_beyond_data=2048,
                          speed_steps=120)
    collected = CollectingReporter()
    recorder = RecordingReporter(collected)
    spec = RunSpec(template="mlp", precision="mixed_bfloat16", epochs=1)
    result = compare(spec, recorder, keep=recorder.keep_model, size=plan)
    stored = recorder.stored()
    recorder.close()
    assert [r.spec.dataset for r in result.results] == ["digits", "digits", "synthetic",
                                                        "synthetic"]
    speed = result.speed[1].spec
    assert (speed.batch_size, speed.steps, speed.dataset_options["shape"]) == (2048, 120,
                                                                               [8, 8, 1])
    assert any(isinstance(e, RunWarning) and "synthetic" in e.message
               for e in collected.events)
    card = card_for_comparison(stored)
    assert card.speed_batch == 2048 and card.speed_sides is not None
    rows = {r.name: r for r in card_rows(card)}
    timed = rows["examples/s, synthetic batch 2,048"]
    assert timed.change == f"{card.speedup.median:.2f}x"  # the verdict's speed
    assert rows["steady examples/s"].change == f"{card.dataset_speedup.median:.2f}x"
    assert card.accuracy is not None  # from digits: synthetic accuracy is not tested
    assert card.verdict.kind != "too_short", card.verdict.sentence
