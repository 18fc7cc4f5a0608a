"""A float32 baseline and a mixed run that differ only in precision."""

from __future__ import annotations

import numpy as np
import pytest

from mpstudio.engine.events import CollectingReporter, RunStarted, StepMetrics
from mpstudio.engine.spec import SpecError
from mpstudio.engine.trainer.compare import compare


@pytest.fixture(scope="module")
def comparison_and_events():
    from mpstudio.engine.spec import RunSpec

    spec = RunSpec(template="mlp", precision="mixed_float16", batch_size=64, epochs=2,
                   log_every_steps=1, seed=5)
    reporter = CollectingReporter()
    return compare(spec, reporter), reporter


def test_baseline_is_float32_and_mixed_is_mixed(comparison_and_events):
    result, reporter = comparison_and_events
    base, mixed = result.baseline, result.mixed
    assert base.spec.precision == "float32" and base.spec.loss_scaling_mode == "off"
    assert mixed.spec.precision == "mixed_float16" and mixed.spec.loss_scaling_mode == "dynamic"
    starts = reporter.of_type(RunStarted)
    assert [s.label for s in starts] == ["float32 baseline", "mixed_float16"]
    assert {li.compute_dtype for li in starts[0].model.layers} == {"float32"}
    assert "float16" in {li.compute_dtype for li in starts[1].model.layers}


def test_same_initial_weights(comparison_and_events):
    result, _ = comparison_and_events
    for a, b in zip(result.baseline.initial_weights, result.mixed.initial_weights, strict=True):
        assert np.array_equal(a, b)


def test_same_data_order(comparison_and_events):
    """Same weights and the same first batch: step-1 losses agree to float16 precision,
    and the curves stay together (they would not with another data order)."""
    _, reporter = comparison_and_events
    steps = reporter.of_type(StepMetrics)
    half = len(steps) // 2
    base, mixed = steps[:half], steps[half:]
    assert base[0].loss == pytest.approx(mixed[0].loss, abs=5e-3)
    gaps = [abs(a.loss - b.loss) for a, b in zip(base, mixed, strict=True)]
    assert max(gaps) < 0.05


def test_side_by_side_figures(comparison_and_events):
    result, _ = comparison_and_events
    assert result.speedup is not None and result.speedup > 0
    delta = result.accuracy_delta_pp
    assert delta == pytest.approx(
        100 * (result.mixed.summary.final_val_accuracy
               - result.baseline.summary.final_val_accuracy)
    )
    assert abs(delta) < 5  # float16 with loss scaling matches float32 on this task
    assert result.memory_saving is None  # the CPU reports no peak memory


def test_compare_needs_a_mixed_policy():
    from mpstudio.engine.spec import RunSpec

    with pytest.raises(SpecError, match="choose from: mixed_float16, mixed_bfloat16"):
        compare(RunSpec(precision="float32"), CollectingReporter())


def test_stop_during_baseline_skips_the_mixed_run():
    from mpstudio.engine.spec import RunSpec

    reporter = CollectingReporter()
    reporter.stop()
    result = compare(RunSpec(batch_size=64, epochs=1), reporter)
    assert result.mixed is None and result.speedup is None
    assert result.baseline.summary.status == "stopped"
