"""Both training loops on real tiny models: events, loss scaling, stop, budget, divergence."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpstudio.engine.events import (
    CollectingReporter,
    EpochMetrics,
    LossScaleChanged,
    NumericsDiagnosis,
    RunFailed,
    RunFinished,
    RunStarted,
    RunWarning,
    StepMetrics,
)
from mpstudio.engine.spec import LossScaling, RunSpec, SpecError, TrainingAids
from mpstudio.engine.templates import template_names
from mpstudio.engine.trainer.runner import run

from support.crafted_layers import NaNKernelAt

LOOPS = ["fit", "custom"]


def kinds(reporter: CollectingReporter) -> list[str]:
    return [type(e).__name__ for e in reporter.events]


@pytest.mark.parametrize("loop", LOOPS)
def test_a_run_reports_what_it_measured(tiny_spec, loop):
    spec = tiny_spec.replace(precision="mixed_float16", epochs=2, loop=loop)
    reporter = CollectingReporter()
    result = run(spec, reporter)
    assert result.ok and result.summary.status == "finished"
    steps = reporter.of_type(StepMetrics)
    epochs = reporter.of_type(EpochMetrics)
    per_epoch = reporter.of_type(RunStarted)[0].steps_per_epoch
    assert [s.step for s in steps] == list(range(1, 2 * per_epoch + 1))  # log_every_steps=1
    assert [e.epoch for e in epochs] == [1, 2]
    assert epochs[1].loss < epochs[0].loss  # it learns
    assert epochs[1].val_accuracy is not None and epochs[1].val_accuracy > 0.5
    assert [s.warmup for s in steps[:3]] == [True, True, False]
    assert steps[0].examples_per_sec is None and steps[2].examples_per_sec > 0
    assert all(isinstance(s.loss, float) and s.loss_scale == 2.0**15 for s in steps)
    summary = result.summary
    assert summary.steps_done == 2 * per_epoch and summary.epochs_done == 2
    assert summary.time_to_first_step > summary.steady_step_time > 0
    assert summary.steady_examples_per_sec == pytest.approx(
        spec.batch_size / summary.steady_step_time
    )
    assert summary.final_val_accuracy == epochs[-1].val_accuracy
    assert summary.overflow_steps == 0 and summary.loss_scale_mode == "dynamic"
    assert kinds(reporter)[-1] == "RunFinished"


def test_both_loops_emit_the_same_events(tiny_spec):
    seqs = []
    for loop in LOOPS:
        reporter = CollectingReporter()
        run(tiny_spec.replace(loop=loop, epochs=2), reporter)
        seqs.append(kinds(reporter))
        first = reporter.of_type(StepMetrics)[0]
        assert first.step == 1 and math.isfinite(first.loss)
    assert seqs[0] == seqs[1]


@pytest.mark.parametrize("loop", LOOPS)
def test_window_loss_is_the_mean_of_its_steps(tiny_spec, loop):
    """Reported every 3 steps, each loss equals the mean of the per-step losses of an
    identical run reported every step (same seed: same weights, data and updates)."""
    per_step, windowed = CollectingReporter(), CollectingReporter()
    run(tiny_spec.replace(loop=loop, log_every_steps=1), per_step)
    run(tiny_spec.replace(loop=loop, log_every_steps=3), windowed)
    losses = {s.step: s.loss for s in per_step.of_type(StepMetrics)}
    previous = 0
    for sample in windowed.of_type(StepMetrics):
        window = [losses[i] for i in range(previous + 1, sample.step + 1)]
        assert sample.loss == pytest.approx(sum(window) / len(window), rel=1e-4, abs=1e-5)
        previous = sample.step
    assert previous > 6  # several multi-step windows were checked


@pytest.mark.parametrize("loop", LOOPS)
def test_overflow_skips_the_step_and_halves_the_scale(tiny_spec, loop):
    spec = tiny_spec.replace(
        precision="mixed_float16",
        loss_scaling=LossScaling("dynamic", initial_scale=2.0**60, growth_steps=1000),
        loop=loop,
        steps=12,
    )
    reporter = CollectingReporter()
    result = run(spec, reporter)
    assert result.ok
    steps = reporter.of_type(StepMetrics)
    changes = reporter.of_type(LossScaleChanged)
    assert steps[0].loss_scale == 2.0**59  # step 1 overflowed: skipped, halved
    assert steps[0].overflow_steps == 1
    assert changes and all(c.new == c.old / 2 and c.overflow_steps == 1 for c in changes)
    assert result.summary.overflow_steps >= 2
    assert result.summary.loss_scale_max == 2.0**60
    assert result.summary.loss_scale_final == steps[-1].loss_scale < 2.0**59
    # Two views of the same events: halvings seen in the scale, skips seen in the
    # optimizer's step count (growth is 1000 steps away, so every change is a halving).
    halvings = math.log2(2.0**60 / result.summary.loss_scale_final)
    assert halvings == result.summary.overflow_steps


@pytest.mark.parametrize("loop", LOOPS)
def test_stop_ends_within_one_batch(tiny_spec, loop):
    class StopAfter(CollectingReporter):
        def emit(self, event):
            super().emit(event)
            if isinstance(event, StepMetrics) and event.step == 4:
                self.stop()

    reporter = StopAfter()
    result = run(tiny_spec.replace(epochs=5, loop=loop), reporter)
    assert result.summary.status == "stopped" and result.ok
    assert 4 <= result.summary.steps_done <= 5
    assert result.summary.time_to_first_step is not None
    assert isinstance(reporter.events[-1], RunFinished)
    assert len(reporter.of_type(EpochMetrics)) == 1  # the stopped epoch still reports
    assert reporter.of_type(EpochMetrics)[0].val_loss is None  # validation skipped


def test_a_stop_does_not_wait_for_the_cpus_first_measurement(tiny_spec):
    """On a fresh install (no kept CPU rates) a run measured them as it concluded, 10-20
    s of CPU: the first Stop took 58 s on a loaded 2-core machine. A stopped run goes
    without a prediction then; the next run that ends by itself measures them."""
    from mpstudio.engine.prediction.cpu_rates import _cache_path

    _cache_path().unlink()  # as on a fresh install

    class StopAfter(CollectingReporter):
        def emit(self, event):
            super().emit(event)
            if isinstance(event, StepMetrics) and event.step == 2:
                self.stop()

    result = run(tiny_spec.replace(epochs=3), StopAfter())
    assert result.summary.status == "stopped"
    assert result.summary.predicted is None and not _cache_path().exists()


def test_a_stop_during_a_batch_ends_the_run_before_the_next_batch(tiny_spec):
    """Stop pressed while batch 5 runs (after the monitor looked at its start): Keras
    fit must not start batch 6. It did, and a Stop at step 4 ended after step 6."""
    import keras

    reporter = CollectingReporter()

    class PressStopDuringBatch(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):  # after the monitor's check
            if batch == 4:
                reporter.stop()

    result = run(tiny_spec.replace(epochs=5), reporter,
                 callbacks=lambda spec: [PressStopDuringBatch()])
    assert result.summary.status == "stopped"
    assert result.summary.steps_done == 5  # batch index 4 finished; no batch after it
    assert reporter.of_type(StepMetrics)[-1].step <= 5


@pytest.mark.parametrize("loop", LOOPS)
def test_stop_at_the_end_of_an_epoch_ends_the_run(tiny_spec, loop):
    class StopAtEpochEnd(CollectingReporter):
        def emit(self, event):
            super().emit(event)
            if isinstance(event, RunStarted):
                self.per_epoch = event.steps_per_epoch
            if isinstance(event, StepMetrics) and event.step == self.per_epoch:
                self.stop()

    reporter = StopAtEpochEnd()
    result = run(tiny_spec.replace(epochs=3, loop=loop), reporter)
    assert result.summary.status == "stopped"
    assert result.summary.steps_done == reporter.per_epoch  # no step of epoch 2 ran
    (epoch,) = reporter.of_type(EpochMetrics)
    assert epoch.val_loss is None  # validation skipped


@pytest.mark.parametrize(
    ("error", "kind", "words"),
    [
        (lambda: __import__("tensorflow").errors.ResourceExhaustedError(None, None, "OOM"),
         "out_of_memory", "out of memory at batch size 64"),
        (lambda: RuntimeError("disk on fire"), "error", "RuntimeError: disk on fire"),
    ],
)
def test_an_error_during_training_ends_the_run_with_a_reason(tiny_spec, error, kind, words):
    """The error is raised at step 5 from inside the training loop (the reporter is
    called there), as a real out-of-memory or a crash in a callback would be."""

    class FailAtStep5(CollectingReporter):
        def emit(self, event):
            super().emit(event)
            if isinstance(event, StepMetrics) and event.step == 5:
                raise error()

    reporter = FailAtStep5()
    # Without the retry: this is about the failed attempt's own reason (the retries are
    # tests/engine/trainer/test_training_aids.py's).
    result = run(tiny_spec.replace(epochs=2, aids=TrainingAids(oom_retry=False)), reporter)
    failure = reporter.events[-1]
    assert isinstance(failure, RunFailed) and failure.kind == kind and not result.ok
    assert words in failure.reason and failure.step == 5
    assert failure.summary.status == "failed" and failure.summary.steps_done == 5


@pytest.mark.parametrize("loop", LOOPS)
def test_step_budget_is_exact(tiny_spec, loop):
    reporter = CollectingReporter()
    result = run(tiny_spec.replace(epochs=1, steps=30, loop=loop), reporter)
    per_epoch = reporter.of_type(RunStarted)[0].steps_per_epoch
    assert per_epoch < 30
    assert result.summary.steps_done == 30 and result.summary.status == "finished"
    assert len(reporter.of_type(EpochMetrics)) == math.ceil(30 / per_epoch)


@pytest.mark.parametrize("loop", LOOPS)
def test_divergence_stops_with_an_explanation(tiny_spec, loop):
    """A fixed scale far beyond float16's range turns the weights into NaN."""
    spec = tiny_spec.replace(
        precision="mixed_float16",
        loss_scaling=LossScaling("fixed", factor=1e30),
        epochs=3,
        loop=loop,
    )
    reporter = CollectingReporter()
    result = run(spec, reporter)
    assert not result.ok
    failure = reporter.events[-1]
    assert isinstance(failure, RunFailed) and failure.kind == "diverged"
    assert failure.summary.status == "diverged"
    assert "diverged" in failure.reason and "loss scale 1e+30" in failure.reason
    assert "dynamic loss scaling" in failure.reason
    assert failure.step is not None and f"step {failure.step}" in failure.reason
    assert result.summary.steps_done <= failure.step + 1  # stopped right away


@pytest.mark.parametrize("precision", ["float32", "mixed_bfloat16"])
@pytest.mark.parametrize("loop", LOOPS)
def test_nan_weights_behind_a_finite_loss_end_the_run_as_diverged(tiny_spec, loop, precision,
                                                                  monkeypatch):
    """Issue 34: divergence was read from the loss only. An mlp's hidden Dense(relu)
    gets a NaN kernel at step 3, and the layer after it hides the NaN from the loss (as
    some CPUs' fused MatMul+BiasAdd+ReLU does: recreated by support.crafted_layers, so
    it holds on every CPU): every loss stays finite and the run ended "finished" with a
    NaN layer, kept for export. The weights check at the epoch's end ends it as
    diverged, naming the layer, and the history keeps no model of it."""
    from mpstudio.engine.history.recorder import RecordingReporter
    from mpstudio.engine.history.run_models import model_file
    from mpstudio.engine.templates import registry

    from support.crafted_layers import nan_hiding_template

    entry = nan_hiding_template()
    monkeypatch.setitem(registry._TEMPLATES._entries, entry.name, entry)
    spec = tiny_spec.replace(template=entry.name, precision=precision, loop=loop, epochs=2)
    reporter = CollectingReporter()
    recorder = RecordingReporter(reporter)
    poison = NaNKernelAt(step=3, layer="dense_1024")
    try:
        result = run(spec, recorder, callbacks=lambda _spec: [poison])
        recorder.keep_model(result)  # as the run session does: a good run's model is kept
        stored = recorder.stored()
    finally:
        recorder.close()
    assert poison.done
    kernel = result.model.get_layer("dense_1024").kernel.numpy()
    assert np.isnan(kernel).all()  # the weights really are NaN at the end...
    epochs = reporter.of_type(EpochMetrics)
    losses = [s.loss for s in reporter.of_type(StepMetrics)] + [e.loss for e in epochs]
    losses += [e.val_loss for e in epochs]
    assert len(losses) > 3 and all(math.isfinite(x) for x in losses)  # ...the loss never said so

    failure = reporter.events[-1]
    assert isinstance(failure, RunFailed) and failure.kind == "diverged" and not result.ok
    assert failure.summary.status == "diverged"
    assert failure.reason.startswith("training diverged: layer 'dense_1024' (Dense, computing "
                                     f"in {'bfloat16' if precision != 'float32' else 'float32'})")
    assert "non-finite weights (dense_1024/kernel) at the end of epoch 1" in failure.reason
    assert "although the loss stayed" in failure.reason
    per_epoch = reporter.of_type(RunStarted)[0].steps_per_epoch
    assert failure.step == per_epoch and result.summary.epochs_done == 1  # stopped there
    diagnosis = reporter.of_type(NumericsDiagnosis)
    assert diagnosis == [result.diagnosis]
    assert (diagnosis[0].layer, diagnosis[0].stage) == ("dense_1024", "weights")
    assert stored[0].row.status == "diverged"
    assert model_file(stored[0].id) is None  # nothing kept to export


def test_the_weights_are_checked_once_per_epoch_not_per_step(tiny_spec, monkeypatch):
    """The weights check is one pass over the weights at each epoch's end (the run's end
    adds none when it is an epoch's end), and a healthy run still finishes."""
    from mpstudio.engine.trainer.weights_check import WeightsCheck

    calls = []
    check = WeightsCheck.first_nonfinite

    def counted(self):
        calls.append(1)
        return check(self)

    monkeypatch.setattr(WeightsCheck, "first_nonfinite", counted)
    reporter = CollectingReporter()
    result = run(tiny_spec.replace(epochs=2), reporter)
    assert result.ok and result.summary.status == "finished"
    assert result.summary.steps_done > 20 and len(calls) == 2


def test_bad_spec_raises_before_training(tiny_spec):
    reporter = CollectingReporter()
    with pytest.raises(SpecError, match="batch size must be a positive integer"):
        run(tiny_spec.replace(batch_size=0), reporter)
    assert reporter.events == []


def test_warnings_are_reported(tiny_spec, monkeypatch):
    """A CPU without bfloat16 instructions injected (on an AMX Xeon, this one's own
    detection says nothing of slow half math, rightly): its warning reaches the run."""
    from mpstudio.engine.hardware import detect_cpu
    from mpstudio.engine.hardware.report import CpuInfo

    monkeypatch.setattr(detect_cpu, "detect_cpu", lambda: CpuInfo(
        "an x86-64 CPU without AVX-512", "x86_64", 2, 2, None, frozenset({"avx2"})))
    reporter = CollectingReporter()
    run(tiny_spec.replace(precision="mixed_bfloat16",
                          loss_scaling=LossScaling("dynamic"), steps=2), reporter)
    messages = [w.message for w in reporter.of_type(RunWarning)]
    assert any("no benefit under mixed_bfloat16" in m for m in messages)
    assert any("on a CPU" in m for m in messages)


# every registered template but the mlp, which most other tests train
@pytest.mark.parametrize("template", [t for t in template_names() if t != "mlp"])
def test_every_template_trains_under_mixed_float16(template):
    spec = RunSpec(template=template, precision="mixed_float16", batch_size=32, steps=3,
                   log_every_steps=1, loop="custom")
    result = run(spec, CollectingReporter())
    assert result.ok and result.summary.steps_done == 3
    assert math.isfinite(result.summary.final_loss)


def test_synthetic_data_trains(tiny_spec):
    spec = tiny_spec.replace(
        dataset="synthetic", template="cnn", steps=4,
        dataset_options={"shape": [16, 16, 3], "classes": 4, "samples": 256},
    )
    result = run(spec, CollectingReporter())
    assert result.ok and result.summary.steps_done == 4


@pytest.mark.parametrize("loop", LOOPS)
def test_xla_on_compiles_both_loops(tiny_spec, loop):
    reporter = CollectingReporter()
    result = run(tiny_spec.replace(precision="mixed_bfloat16", xla="on", steps=4, loop=loop),
                 reporter)
    assert result.ok and result.summary.xla and reporter.of_type(RunStarted)[0].xla
    assert result.summary.steps_done == 4


def test_xla_auto_is_off_on_a_cpu_only_machine(tiny_spec):
    result = run(tiny_spec.replace(steps=2), CollectingReporter())
    assert result.summary.xla is False
