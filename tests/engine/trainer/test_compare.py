"""A float32 baseline and a mixed run that differ only in precision."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest

from mpstudio.engine.comparison.card import card_for_comparison
from mpstudio.engine.comparison.card_text import card_rows
from mpstudio.engine.comparison.paired_accuracy import decode_hits
from mpstudio.engine.events import CollectingReporter, RunStarted, StepMetrics
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.spec import SpecError
from mpstudio.engine.trainer.compare import compare


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A real comparison with two trials a side, recorded in a history file."""
    from mpstudio.engine.spec import RunSpec

    path = tmp_path_factory.mktemp("history") / "h.sqlite3"
    spec = RunSpec(template="mlp", precision="mixed_float16", batch_size=64, epochs=2,
                   log_every_steps=1, seed=5)
    reporter = CollectingReporter()
    recorder = RecordingReporter(reporter, lambda: RunStore(path))
    result = compare(spec, recorder, repeats=2)
    recorder.close()
    return result, reporter, path, recorder.run_ids


@pytest.fixture(scope="module")
def comparison_and_events(recorded):
    result, reporter, _, _ = recorded
    return result, reporter


def test_baseline_is_float32_and_mixed_is_mixed(comparison_and_events):
    result, reporter = comparison_and_events
    base, mixed = result.baseline, result.mixed
    assert base.spec.precision == "float32" and base.spec.loss_scaling_mode == "off"
    assert mixed.spec.precision == "mixed_float16" and mixed.spec.loss_scaling_mode == "dynamic"
    starts = reporter.of_type(RunStarted)
    assert [s.label for s in starts] == [
        "float32 baseline · trial 1/2", "mixed_float16 · trial 1/2",
        "float32 baseline · trial 2/2", "mixed_float16 · trial 2/2"]
    assert [(s.role, s.trial, s.trials) for s in starts] == [
        ("baseline", 1, 2), ("mixed", 1, 2), ("baseline", 2, 2), ("mixed", 2, 2)]
    assert len({s.comparison for s in starts}) == 1 and starts[0].comparison
    computed = {li.compute_dtype for li in starts[0].model.layers if li.kind != "InputLayer"}
    assert computed == {"float32"}
    assert starts[0].model.layers[0].compute_dtype == "uint8"  # digits arrive as stored
    assert "float16" in {li.compute_dtype for li in starts[1].model.layers}


def test_same_initial_weights(comparison_and_events):
    result, _ = comparison_and_events
    first = result.baseline.initial_weights
    for other in result.results[1:]:
        for a, b in zip(first, other.initial_weights, strict=True):
            assert np.array_equal(a, b)


def test_same_data_order(comparison_and_events):
    """Same weights and the same first batch: step-1 losses agree to float16 precision,
    and the curves stay together (they would not with another data order)."""
    _, reporter = comparison_and_events
    steps = reporter.of_type(StepMetrics)
    quarter = len(steps) // 4
    base, mixed = steps[:quarter], steps[quarter:2 * quarter]
    assert [s.step for s in base] == [s.step for s in mixed]  # the same sample windows
    assert base[0].loss == pytest.approx(mixed[0].loss, abs=5e-3)
    gaps = [abs(a.loss - b.loss) for a, b in zip(base, mixed, strict=True)]
    assert max(gaps) < 0.05


def test_side_by_side_figures(comparison_and_events):
    result, _ = comparison_and_events
    ratios = [m.summary.steady_examples_per_sec / b.summary.steady_examples_per_sec
              for b, m in zip(result.baselines, result.mixeds, strict=True)]
    assert result.speedup == pytest.approx(statistics.median(ratios))
    delta = result.accuracy_delta_pp
    base_acc = statistics.median(r.summary.final_val_accuracy for r in result.baselines)
    mixed_acc = statistics.median(r.summary.final_val_accuracy for r in result.mixeds)
    assert delta == pytest.approx(100 * (mixed_acc - base_acc))
    assert abs(delta) < 5  # float16 with loss scaling matches float32 on this task
    assert result.memory_saving is None  # the CPU reports no peak memory


def test_the_card_says_what_the_stored_metrics_say(recorded):
    """Every figure on the card is recomputed here from the rows in the history file."""
    result, _, path, run_ids = recorded
    with RunStore(path) as store:
        runs = [store.run(i) for i in run_ids]
        card = card_for_comparison(runs)
        raw = store._conn.execute(
            "SELECT id, summary FROM runs ORDER BY id").fetchall()
    summaries = {run_id: json.loads(text) for run_id, text in raw}
    base_ids = [r.id for r in runs if r.row.role == "baseline"]
    mixed_ids = [r.id for r in runs if r.row.role == "mixed"]
    assert card.baseline.run_ids == tuple(base_ids) and card.mixed.run_ids == tuple(mixed_ids)

    def med(ids, key):
        return statistics.median(summaries[i][key] for i in ids)

    speed = "steady_examples_per_sec"
    assert card.baseline.examples_per_sec.median == pytest.approx(med(base_ids, speed))
    assert card.mixed.examples_per_sec.median == pytest.approx(med(mixed_ids, speed))
    assert card.speedup.median == pytest.approx(statistics.median(
        summaries[m][speed] / summaries[b][speed]
        for b, m in zip(base_ids, mixed_ids, strict=True)))
    assert card.speedup.median == pytest.approx(result.speedup)
    val = "final_val_accuracy"
    assert card.accuracy_delta_pp == pytest.approx(
        100 * (med(mixed_ids, val) - med(base_ids, val)))
    assert card.mixed.time_to_first_step.median == pytest.approx(
        med(mixed_ids, "time_to_first_step"))
    assert card.mixed.overflow_steps.median == med(mixed_ids, "overflow_steps")
    assert card.mixed.loss_scale_max == max(summaries[i]["loss_scale_max"] for i in mixed_ids)
    # The loss gap: the first trials' step losses, at the steps both sampled.
    base_loss = {s.step: s.loss for s in runs[0].steps}
    mixed_loss = {s.step: s.loss for s in runs[1].steps}
    gaps = [abs(mixed_loss[k] - base_loss[k]) for k in base_loss]
    assert card.loss_gap.steps_compared == len(base_loss) == len(mixed_loss)
    assert card.loss_gap.mean_abs == pytest.approx(sum(gaps) / len(gaps))
    assert card.loss_gap.max_abs == pytest.approx(max(gaps))
    rows = {r.name: r for r in card_rows(card)}
    assert rows["steady examples/s"].change.startswith(f"{card.speedup.median:.2f}x")
    # Accuracy is tested on the examples both sides predicted: each run's flags are its
    # own validation accuracy, example by example, and every trial pair takes part.
    for run in runs:
        flags = decode_hits(run.summary.val_hits)
        assert len(flags) == run.summary.val_examples
        assert flags.mean() == pytest.approx(run.summary.final_val_accuracy, abs=1e-6)
    assert card.accuracy.paired and card.accuracy.trials == len(mixed_ids)
    assert rows["final val accuracy"].change == (
        f"{card.accuracy.delta_pp:+.2f} pp\n({card.accuracy.low_pp:+.2f} to "
        f"{card.accuracy.high_pp:+.2f})")
    assert card.best_accuracy is not None and card.best_accuracy.paired
    # This CPU has no fast float16 and the runs are seconds long: an honest card says so.
    assert card.verdict.kind in ("too_short", "slower", "no_gain")


def test_every_run_records_its_circumstances(recorded):
    _, _, path, run_ids = recorded
    with RunStore(path) as store:
        run = store.run(run_ids[1])
    assert run.hardware["float32_math"] == "float32"  # a CPU has no TF32
    assert run.hardware["advisor_verdict"] and run.hardware["advisor_reason"]
    fraction = run.summary.data_time_fraction
    assert fraction is not None and 0 < fraction < 5


def test_compare_needs_a_mixed_policy():
    from mpstudio.engine.spec import RunSpec

    with pytest.raises(SpecError, match="choose from: mixed_float16, mixed_bfloat16"):
        compare(RunSpec(precision="float32"), CollectingReporter())


def test_stop_during_baseline_skips_the_mixed_run():
    from mpstudio.engine.spec import RunSpec

    reporter = CollectingReporter()
    reporter.stop()
    result = compare(RunSpec(batch_size=64, epochs=1), reporter, repeats=3)
    assert result.mixed is None and result.speedup is None
    assert result.baseline.summary.status == "stopped" and len(result.baselines) == 1


def test_comparison_options_are_checked():
    from mpstudio.engine.spec import RunSpec

    with pytest.raises(SpecError, match="repeats must be a whole number from 1 to 10"):
        compare(RunSpec(), CollectingReporter(), repeats=0)
    with pytest.raises(SpecError, match="baseline must be one of: auto, float32, tf32"):
        compare(RunSpec(), CollectingReporter(), baseline="fp32")


def test_a_profiled_comparison_says_which_ops_lost_the_time(tmp_path, monkeypatch):
    """cnn under mixed_float16 on this CPU (no fast float16 math): the profile of each
    side's steps ranks the convolutions' gradients first, counts the casts mixed
    precision added, and the verdict's reason names the op. Nothing of the trace is
    left in the temp folder (this test's own: a test profiling beside it, in another
    worker or checkout, has its own folders in the shared one).

    Batch 16: the float16 filter gradients' cost grows with the batch (at 64 the
    comparison took 50 s of CPU), while the float32 side's steps, overhead-bound, time
    alike at 16 and 64 (under 1 s of steady time in 40 steps on a 2-core CPU: "too
    short" at either). 640 examples a side train both to some 70%: no spurious accuracy
    loss between two barely started models (batch 8 left them 11 points apart)."""
    import tempfile

    from mpstudio.engine.spec import RunSpec

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    path = tmp_path / "h.sqlite3"
    spec = RunSpec(template="cnn", precision="mixed_float16", batch_size=16, steps=40)
    recorder = RecordingReporter(CollectingReporter(), lambda: RunStore(path))
    result = compare(spec, recorder, profile=True)
    recorder.close()
    with RunStore(path) as store:
        card = card_for_comparison([store.run(i) for i in recorder.run_ids])
    assert result.baseline.summary.op_profile and result.mixed.summary.op_profile
    assert card.profile is not None and card.profile.casts_added_count > 0
    top = card.profile.rows[0]
    assert top.op_type.startswith("Conv2D") and top.ratio > 1.5
    assert card.verdict.kind in ("slower", "too_short")
    if card.verdict.kind == "slower":
        assert f"{top.op_type} in float16 took" in card.verdict.sentence
    assert tempfile.gettempdir() == str(temp)  # where the profile's folders went
    assert not list(temp.glob("mpstudio-profile-*"))


def test_synthetic_data_gets_no_accuracy_verdict(tmp_path):
    """Synthetic data repeats one random batch with random labels: its "examples" are
    32 examples over and over, so a paired test on them would be falsely sure (it
    called a 2-of-32 difference a 6-point loss with a tight interval). No accuracy
    test there: the card judges the speed alone."""
    from mpstudio.engine.spec import RunSpec

    path = tmp_path / "h.sqlite3"
    spec = RunSpec(dataset="synthetic", dataset_options={"shape": [8, 8, 3], "samples": 512},
                   template="mlp", precision="mixed_float16", batch_size=32, steps=30)
    recorder = RecordingReporter(CollectingReporter(), lambda: RunStore(path))
    compare(spec, recorder)
    recorder.close()
    with RunStore(path) as store:
        runs = [store.run(i) for i in recorder.run_ids]
    assert all(r.summary.val_hits == "" and r.summary.val_examples is None for r in runs)
    card = card_for_comparison(runs)
    assert card.accuracy is None and card.verdict.kind != "accuracy_loss"
    assert "lost" not in card.verdict.sentence
    # ... nor on the card: its accuracy rows say why they compare nothing (a replayed
    # synthetic card showed "-6.25 pp")
    rows = {r.name: r for r in card_rows(card)}
    for name in ("final val accuracy", "best val accuracy"):
        assert rows[name].change == "not compared: random labels"
