"""The training aids on real tiny runs: early stopping, reduce-on-plateau with warmup,
the best-epoch checkpoint, out-of-memory retries, the numerics diagnosis, the float16
pattern warnings and the gradient-underflow view; and their command-line switches."""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest
import tensorflow as tf

from mpstudio.cli import main
from mpstudio.engine.event_codec import event_from_json
from mpstudio.engine.events import (
    AidAction,
    CollectingReporter,
    EpochMetrics,
    GradientUnderflow,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunFinished,
    RunStarted,
)
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.run_models import model_file
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.precision import policy_scope
from mpstudio.engine.spec import LossScaling, RunSpec, TrainingAids
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.engine.trainer.aids.underflow import underflow_fraction
from mpstudio.engine.trainer.fragile_layers import fragile_patterns
from mpstudio.engine.trainer.numerics import diagnose
from mpstudio.engine.trainer.oom_retry import failed_allocation
from mpstudio.engine.trainer.runner import run

from support.crafted_layers import diagnosed_boost

# Adam's steps are about the learning rate: at 1e-30 no float32 weight moves at all, so
# every epoch's metrics are exactly the first one's and nothing ever "improves".
FROZEN = 1e-30


def aided(**aids) -> RunSpec:
    return RunSpec(precision="mixed_float16", batch_size=64, epochs=6, aids=TrainingAids(**aids))


def actions(reporter: CollectingReporter, aid: str) -> list[AidAction]:
    return [a for a in reporter.of_type(AidAction) if a.aid == aid]


# ------------------------------------------------------------------------- spec
def test_aids_round_trip_and_impossible_settings_are_named():
    spec = aided(early_stopping=True, patience=4, monitor="val_accuracy", tensorboard=True,
                 reduce_lr_on_plateau=True, lr_factor=0.2, underflow_every=25,
                 oom_retry=False, min_batch_size=16, diagnose_numerics=True)
    assert RunSpec.from_toml(spec.to_toml()) == spec
    bad = RunSpec(validation_split=0, aids=TrainingAids(
        early_stopping=True, patience=0, lr_factor=1.5, monitor="f1", underflow_every=-1))
    problems = " | ".join(spec_problems(bad))
    for part in ("unknown monitor 'f1'", "patience must be a positive integer",
                 "learning-rate factor must be between 0 and 1", "underflow every"):
        assert part in problems, problems
    no_val = spec_problems(RunSpec(validation_split=0, aids=TrainingAids(best_checkpoint=True)))
    assert any("needs validation data" in p for p in no_val)
    assert spec_problems(RunSpec(validation_split=0, aids=TrainingAids(
        best_checkpoint=True, monitor="loss"))) == []
    warned = RunSpec(precision="float32", aids=TrainingAids(underflow_every=10)).warnings()
    assert any("gradient-underflow view is for mixed_float16" in w for w in warned)


# ------------------------------------------------------------- epoch-end aids
def test_early_stopping_stops_after_patience_epochs_without_improvement():
    reporter = CollectingReporter()
    result = run(aided(early_stopping=True, patience=2).replace(learning_rate=FROZEN), reporter)
    assert result.summary.status == "finished"
    assert result.summary.epochs_done == 3  # epoch 1 is the best; 2 and 3 do not improve
    [stop] = actions(reporter, "early_stopping")
    assert stop.epoch == 3 and "has not improved for 2 epochs" in stop.message
    assert "restoring epoch 1's weights" in stop.message
    assert result.summary.kept_epoch == 1
    assert "stopped early after epoch 3 (val_loss stopped improving)" in result.summary.aids


class _RecordWeights(keras.callbacks.Callback):
    """Keeps each epoch's weights, and makes the last epoch a bad one (a huge rate)."""

    def __init__(self, last_epoch: int):
        super().__init__()
        self.last_epoch = last_epoch
        self.weights: list[list[np.ndarray]] = []

    def on_epoch_begin(self, epoch, logs=None):
        if epoch + 1 == self.last_epoch:
            self.model.optimizer.learning_rate.assign(0.5)

    def on_epoch_end(self, epoch, logs=None):
        self.weights.append([w.copy() for w in self.model.get_weights()])


def test_the_best_checkpoint_is_the_model_the_run_keeps_for_export():
    recorder = RecordingReporter(CollectingReporter())
    spy = _RecordWeights(last_epoch=4)
    spec = aided(best_checkpoint=True, reduce_lr_on_plateau=True).replace(
        learning_rate=0.01, epochs=4)
    result = run(spec, recorder, callbacks=lambda _: [spy])
    recorder.keep_model(result)
    recorder.close()
    epochs = recorder.inner.of_type(EpochMetrics)
    best = min(range(4), key=lambda i: epochs[i].val_loss)
    assert best < 3, "the last epoch (rate 0.5) should be the worst"
    assert result.summary.kept_epoch == best + 1
    for kept, at_best in zip(result.model.get_weights(), spy.weights[best], strict=True):
        np.testing.assert_array_equal(kept, at_best)
    assert all(w.dtype == np.float32 for w in result.model.get_weights())
    kept_file = keras.saving.load_model(model_file(recorder.run_ids[0]))
    for saved, at_best in zip(kept_file.get_weights(), spy.weights[best], strict=True):
        np.testing.assert_array_equal(saved, at_best)
    assert actions(recorder.inner, "best_checkpoint")[-1].epoch == best + 1


class _RateSpy(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.rates: list[float] = []

    def on_train_batch_begin(self, batch, logs=None):
        self.rates.append(float(self.model.optimizer.learning_rate.numpy()))


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_plateau_cuts_the_rate_and_the_warmup_still_ramps(loop):
    """Reduce-on-plateau needs a settable rate, so the warmup is stepped by the engine:
    each step's rate must still be the plan's (target x step / warmup)."""
    reporter = CollectingReporter()
    spy = _RateSpy()
    spec = aided(reduce_lr_on_plateau=True, lr_patience=1, min_learning_rate=0.0).replace(
        learning_rate=FROZEN, warmup_steps=4, loop=loop, epochs=3)
    result = run(spec, reporter, callbacks=lambda _: [spy])
    assert result.ok
    assert spy.rates[:6] == pytest.approx([0, FROZEN / 4, FROZEN / 2, 3 * FROZEN / 4,
                                           FROZEN, FROZEN], rel=1e-6)
    cuts = actions(reporter, "reduce_lr")
    assert [c.epoch for c in cuts] == [2, 3]
    assert [c.value for c in cuts] == pytest.approx([FROZEN / 2, FROZEN / 4], rel=1e-6)
    steps_per_epoch = reporter.of_type(RunStarted)[0].steps_per_epoch
    epoch_3 = spy.rates[2 * steps_per_epoch:]
    assert epoch_3 == pytest.approx([FROZEN / 2] * len(epoch_3), rel=1e-6)
    assert "learning rate cut to" in result.summary.aids


# ------------------------------------------------------------------- memory
class _MemoryLimit(keras.callbacks.Callback):
    """Raises TensorFlow's out-of-memory error on the first batch above ``limit``."""

    def __init__(self, batch_size: int, limit: int):
        super().__init__()
        self.batch_size, self.limit = batch_size, limit

    def on_train_batch_begin(self, batch, logs=None):
        if self.batch_size > self.limit:
            raise tf.errors.ResourceExhaustedError(
                None, None, f"OOM when allocating tensor with shape[{self.batch_size},1024] "
                "and type float on /job:localhost/replica:0/task:0/device:GPU:0")


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_out_of_memory_retries_at_half_the_batch_until_it_fits(loop):
    recorder = RecordingReporter(CollectingReporter())
    spec = RunSpec(precision="mixed_float16", batch_size=128, epochs=1, learning_rate=0.004,
                   loop=loop)
    result = run(spec, recorder, callbacks=lambda s: [_MemoryLimit(s.batch_size, 32)])
    recorder.keep_model(result)
    recorder.close()
    events = recorder.inner
    retries = events.of_type(OomRetry)
    assert [(r.failed_batch_size, r.batch_size) for r in retries] == [(128, 64), (64, 32)]
    assert [r.learning_rate for r in retries] == pytest.approx([0.002, 0.001])
    failures = events.of_type(RunFailed)
    assert [f.kind for f in failures] == ["out_of_memory"] * 2
    assert "batch size 128" in failures[0].reason
    assert "could not allocate a 128x1024 float tensor (0 MiB)" in failures[0].reason
    assert result.ok and result.summary.status == "finished"
    assert result.spec.batch_size == 32 and result.spec.learning_rate == pytest.approx(0.001)
    assert result.summary.largest_batch_fit == 32 and result.summary.oom_retries == 2
    with RunStore() as store:
        rows = sorted(store.runs(), key=lambda r: r.id)
        assert [r.status for r in rows] == ["failed", "failed", "finished"]
        assert store.run(rows[-1].id).summary.largest_batch_fit == 32
    assert model_file(rows[-1].id) is not None and model_file(rows[0].id) is None


def test_retries_stop_at_the_floor_and_can_be_turned_off():
    reporter = CollectingReporter()
    floor = RunSpec(batch_size=128, epochs=1, aids=TrainingAids(min_batch_size=64))
    result = run(floor, reporter, callbacks=lambda s: [_MemoryLimit(s.batch_size, 32)])
    assert len(reporter.of_type(OomRetry)) == 1  # 128 -> 64, and 32 is below the floor
    assert result.failure.kind == "out_of_memory" and "batch size 64" in result.failure.reason
    off = CollectingReporter()
    result = run(floor.replace(aids=TrainingAids(oom_retry=False)), off,
                 callbacks=lambda s: [_MemoryLimit(s.batch_size, 32)])
    assert off.of_type(OomRetry) == [] and "batch size 128" in result.failure.reason
    assert failed_allocation("no shape here") == ""


# ----------------------------------------------------------------- numerics
def test_the_diagnosis_names_the_first_layer_that_overflows_float16():
    model, x, found = diagnosed_boost(step=7)
    assert isinstance(found, NumericsDiagnosis)
    assert (found.layer, found.dtype, found.stage, found.step) == ("boost", "float16",
                                                                   "forward", 7)
    assert "float16 overflows above 65,504" in found.message
    one_layer = keras.Model(model.inputs, model.get_layer("hidden").output)
    healthy = diagnose(one_layer, [(x, np.zeros((16, 16)))], keras.losses.MeanSquaredError(),
                       1.0, step=3)
    assert healthy.stage == "none" and healthy.layer is None


def test_a_diverged_run_is_diagnosed_when_asked():
    reporter = CollectingReporter()
    spec = RunSpec(precision="mixed_float16", batch_size=64, epochs=2,
                   loss_scaling=LossScaling(mode="fixed", factor=1e30),
                   aids=TrainingAids(diagnose_numerics=True))
    result = run(spec, reporter)
    assert result.summary.status == "diverged"
    [found] = reporter.of_type(NumericsDiagnosis)
    assert found.stage == "weights" and found.dtype == "float16"
    assert found.layer in {layer.name for layer in result.model.layers}
    assert "loss scale 1e+30" in result.failure.reason
    assert f"Diagnosis: layer '{found.layer}'" in result.failure.reason
    quiet = CollectingReporter()
    run(spec.replace(aids=TrainingAids()), quiet)
    assert quiet.of_type(NumericsDiagnosis) == []  # off by default


class HalfPrecisionNorm(keras.layers.Layer):
    """A hand-written normalization that really adds its epsilon in the compute dtype."""

    def __init__(self, epsilon: float, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def call(self, x):
        mean = keras.ops.mean(x, axis=-1, keepdims=True)
        variance = keras.ops.var(x, axis=-1, keepdims=True)
        return (x - mean) / keras.ops.sqrt(variance + self.epsilon)


class CustomLayerNorm(keras.layers.LayerNormalization):
    """A subclass that replaced Keras' float32 computation with its own."""

    def call(self, x):
        return HalfPrecisionNorm.call(self, x)


def test_float16_fragile_layers_are_named_before_training():
    with policy_scope("mixed_float16"):
        inputs = keras.Input((10, 8))
        x = keras.layers.MultiHeadAttention(2, 4, name="attention")(inputs, inputs)
        x = HalfPrecisionNorm(1e-6, name="own_norm")(x)
        x = CustomLayerNorm(epsilon=1e-6, name="custom_ln")(x)
        # Keras' own normalizations add epsilon in float32: nothing to warn about
        x = keras.layers.LayerNormalization(epsilon=1e-6, name="ln")(x)
        x = keras.layers.BatchNormalization(epsilon=1e-6, name="bn")(x)
        x = keras.layers.GroupNormalization(2, epsilon=1e-6, name="gn")(x)
        x = keras.layers.Flatten()(x)
        outputs = keras.layers.Dense(3, activation="softmax", name="probs")(x)
        model = keras.Model(inputs, outputs)
    warnings = " | ".join(fragile_patterns(model))
    assert "layer 'attention' (MultiHeadAttention)" in warnings
    assert "layer 'own_norm' (HalfPrecisionNorm) adds epsilon 1e-06 in float16" in warnings
    assert "layer 'custom_ln' (CustomLayerNorm) adds epsilon 1e-06" in warnings
    for computes_in_float32 in ("'ln'", "'bn'", "'gn'"):
        assert computes_in_float32 not in warnings
    assert "layer 'probs' (Dense) computes a softmax in float16" in warnings
    assert "the model's output is float16" in warnings
    for template in ("mlp", "transformer"):  # the transformer: three LayerNormalizations
        reporter = CollectingReporter()
        run(RunSpec(template=template, precision="mixed_float16", epochs=1, steps=2),
            reporter)
        said = " | ".join(w.message for w in reporter.events
                          if type(w).__name__ == "RunWarning")
        assert "epsilon" not in said, template
        assert ("MultiHeadAttention" in said) == (template == "transformer")


# ---------------------------------------------------------- gradient underflow
def test_underflow_fraction_counts_what_float16_rounds_to_zero():
    grads = np.array([0.0, 1e-9, 1e-8, 1e-3, -2e-9])
    assert underflow_fraction(grads, 1.0) == pytest.approx(3 / 4)  # 1e-8, 1e-9, 2e-9 < 2^-25
    assert underflow_fraction(grads, 2.0**15) == 0.0
    assert underflow_fraction(np.zeros(4), 1.0) == 0.0


def _underflow_run(mode: str) -> tuple[list[GradientUnderflow], RunFinished]:
    reporter = CollectingReporter()
    spec = RunSpec(precision="mixed_float16", epochs=4, batch_size=32, learning_rate=0.02,
                   loss_scaling=LossScaling(mode=mode), aids=TrainingAids(underflow_every=20))
    run(spec, reporter)
    return reporter.of_type(GradientUnderflow), reporter.of_type(RunFinished)[0]


def test_without_loss_scaling_more_of_the_gradient_underflows():
    """As the model fits, its gradients shrink: without scaling float16 loses a growing
    share of them; at the dynamic scale almost none."""
    off, off_end = _underflow_run("off")
    on, _ = _underflow_run("dynamic")
    assert [e.step for e in off] == [20 * i for i in range(1, len(off) + 1)]
    assert off[-1].scale == 1.0 and off[-1].scaled == off[-1].unscaled
    assert on[-1].scale > 1.0
    assert off[-1].scaled > 0.01, "a fitted model's gradients should partly underflow"
    assert off[-1].scaled > 10 * on[-1].scaled
    assert off[-1].unscaled > off[0].unscaled  # it grows as the loss falls
    assert {layer.dtype for layer in off[-1].layers} == {"float16"}
    assert {layer.layer for layer in off[-1].layers} == {"dense_1024", "logits"}
    assert off_end.summary.underflow_scaled == off[-1].scaled
    assert all(e.seconds < 5 for e in off)


# ----------------------------------------------------------------------- CLI
def test_the_command_line_switches_reach_the_run(capsys):
    code = main(["train", "--epochs", "5", "--batch-size", "64", "--lr", str(FROZEN),
                 "--early-stopping", "1", "--best-checkpoint", "--underflow-every", "5",
                 "--diagnose", "--events"])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    events = [event_from_json(line) for line in lines if line.get("event") != "Done"]
    spec = next(e for e in events if isinstance(e, RunStarted)).spec
    assert spec["aids"]["early_stopping"] and spec["aids"]["patience"] == 1
    assert spec["aids"]["best_checkpoint"] and spec["aids"]["diagnose_numerics"]
    assert any(isinstance(e, AidAction) and e.aid == "early_stopping" for e in events)
    underflow = [e for e in events if isinstance(e, GradientUnderflow)]
    assert underflow and all(e.step % 5 == 0 for e in underflow) and underflow[0].layers
    done = lines[-1]
    assert done["summary"]["epochs_done"] == 2 and done["summary"]["kept_epoch"] == 1


def test_lr_scaled_from_applies_the_linear_rule(capsys):
    assert main(["train", "--batch-size", "256", "--lr", "0.001", "--lr-scaled-from", "128",
                 "--steps", "2", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["spec"]["learning_rate"] == pytest.approx(0.002)
