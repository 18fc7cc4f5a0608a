"""The device memory estimate: its parts counted exactly on tiny models, set against a
measured peak (injected where TensorFlow's GPU statistics would be read), in the CLI
and beside the window's layer table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from mpstudio.engine import memory_estimate as me
from mpstudio.engine.precision import policy_scope
from mpstudio.engine.spec import RunSpec

MIB = 2**20
SCALARS = 8 + 4  # every optimizer's iteration (int64) and learning rate (float32)


def dense_model(policy: str, input_dtype: str = "float32") -> keras.Model:
    """4 -> Dense(3) -> Dense(2): 15 + 8 parameters."""
    with policy_scope(policy):
        inputs = keras.Input((4,), dtype=input_dtype)
        x = keras.layers.Dense(3)(inputs)
        return keras.Model(inputs, keras.layers.Dense(2)(x))


def built_bytes(optimizer: keras.Optimizer, model: keras.Model) -> int:
    optimizer.build(model.trainable_variables)
    return sum(me.variable_bytes(v) for v in optimizer.variables)


@pytest.mark.parametrize("policy", ["float32", "mixed_float16"])
def test_weights_optimizer_and_gradients_of_a_dense_model_are_exact(policy):
    model = dense_model(policy)
    weights = (4 * 3 + 3 + 3 * 2 + 2) * 4  # float32 master weights under mixed too
    adam = me.estimate_memory(model, 8, keras.optimizers.Adam(), policy)
    assert adam.weights == weights == sum(me.variable_bytes(v) for v in model.variables)
    assert adam.slots_per_variable == 2 and adam.optimizer == 2 * weights + SCALARS
    assert adam.gradients == weights and adam.loss_scale == 0
    assert adam.optimizer == built_bytes(keras.optimizers.Adam(), model)
    momentum = me.estimate_memory(model, 8, keras.optimizers.SGD(momentum=0.9), policy)
    assert momentum.slots_per_variable == 1 and momentum.optimizer == weights + SCALARS
    plain = me.estimate_memory(model, 8, keras.optimizers.SGD(), policy)
    assert plain.slots_per_variable == 0 and plain.optimizer == SCALARS
    # the loss scaler's own state: its iteration, learning rate, good-step counter, scale
    scaled = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam())
    estimate = me.estimate_memory(model, 8, scaled, policy)
    assert estimate.loss_scale == 8 + 4 + 8 + 4 and estimate.optimizer == adam.optimizer
    assert estimate.optimizer_name == "LossScaleOptimizer(Adam)"
    fresh = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam())
    assert estimate.optimizer + estimate.loss_scale == built_bytes(fresh, model)
    assert not scaled.built  # counted on a copy: the run's optimizer is left as it was


def test_the_gradients_of_float32_variables_are_float32_under_mixed_float16():
    model = dense_model("mixed_float16")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.cast(model(np.ones((8, 4), "float32")), tf.float32))
    grads = tape.gradient(loss, model.trainable_variables)
    assert {g.dtype.name for g in grads} == {"float32"}
    estimate = me.estimate_memory(model, 8, keras.optimizers.Adam(), "mixed_float16")
    assert estimate.gradients == sum(me.variable_bytes(g) for g in grads)


def test_activations_by_hand_and_halved_by_float16_layers():
    batch = 8
    cpu = me.PLATFORM_FACTORS["CPU"]
    full = me.estimate_memory(dense_model("float32"), batch, keras.optimizers.SGD(), "float32",
                              "CPU")
    saved = batch * (4 + 3 + 2) * 4  # the input, then each output
    assert me.activation_bytes(dense_model("float32"), batch) == saved
    assert full.activations == int(saved * cpu.activations)
    half = me.estimate_memory(dense_model("mixed_float16", "float16"), batch,
                              keras.optimizers.SGD(), "mixed_float16", "CPU")
    assert half.activations == int(saved / 2 * cpu.half_activations)
    # what the allocator holds beside them: the optimizer update's temporaries, the input
    # batches, rounding
    assert full.temporaries == int(full.gradients * cpu.weight_temporaries)
    assert full.inputs == int(batch * 4 * 4 * cpu.input_batches)
    parts = (full.weights + full.optimizer + full.gradients + full.activations
             + full.temporaries + full.inputs)
    assert full.overhead == int(parts * cpu.overhead)
    assert full.total == parts + full.overhead
    # a GPU's libraries hold their workspace whatever the model
    gpu = me.estimate_memory(dense_model("float32"), batch, keras.optimizers.SGD(), "float32",
                             "GPU")
    assert gpu.overhead >= me.PLATFORM_FACTORS["GPU"].workspace > 0
    assert gpu.device_kind == "GPU" and full.device_kind == "CPU"


def test_attention_keeps_its_scores_and_its_float32_softmax():
    """Keras' attention takes its softmax in float32 under a mixed policy: a half model
    keeps the scores twice (half and float32) and the probabilities twice."""
    def attention(policy: str) -> keras.Model:
        with policy_scope(policy):
            inputs = keras.Input((16, 32))
            return keras.Model(inputs, keras.layers.MultiHeadAttention(2, 8)(inputs, inputs))

    full, half = (me.activation_bytes(attention(p), 1) for p in ("float32", "mixed_float16"))
    scores = 2 * 16 * 16
    projections = 16 * 2 * (8 + 8 + 8 + 8)
    assert full == 2 * 16 * 32 * 4 + projections * 4 + scores * (4 + 4)
    assert half == 16 * 32 * 4 + 16 * 32 * 2 + projections * 2 + scores * (2 + 4 + 4 + 2)


def test_a_conv_models_activations_come_from_its_output_shapes():
    inputs = keras.Input((8, 8, 1))
    x = keras.layers.Conv2D(4, 3, padding="same")(inputs)  # 8x8x4
    x = keras.layers.MaxPooling2D(2)(x)  # 4x4x4
    x = keras.layers.Flatten()(x)  # 64: a view of the pooled output, nothing new kept
    model = keras.Model(inputs, keras.layers.Dense(3)(x))
    per_example = (64 + 256 + 64 + 3) * 4
    assert me.activation_bytes(model, 2) == 2 * per_example
    # a template: uint8 images in, a float32 head out; float16 in between under mixed
    spec = RunSpec(template="cnn", batch_size=16)
    full, mixed = (me.estimate_for_spec(spec, (8, 8, 1), 10, 1 / 16, p)
                   for p in ("float32", "mixed_float16"))
    assert full.weights == mixed.weights and full.optimizer == mixed.optimizer
    assert mixed.activations < full.activations


# ------------------------------------------------------- against the measured peak
class InjectedGpuMemory:
    """TensorFlow's per-device statistics as a GPU keeps them, with a chosen peak."""

    def __init__(self, peak: int) -> None:
        self.peak = peak

    def reset(self, device: str) -> None:
        assert device == "GPU:0"

    def read(self, device: str) -> dict:
        return {"current": 0, "peak": self.peak}


@pytest.fixture
def measured_on_a_gpu(monkeypatch):
    """mpstudio sees an A100 and reads its peak through TensorFlow's memory calls (the
    math still runs on this CPU): 3 MiB measured."""
    from mpstudio.engine import device_info
    from mpstudio.engine.hardware.detect_gpu import TfGpu

    stats = InjectedGpuMemory(3 * MIB)
    monkeypatch.setattr(device_info, "visible_gpus", lambda: [TfGpu("NVIDIA A100", (8, 0))])
    monkeypatch.setattr(tf.config.experimental, "get_memory_info", stats.read)
    monkeypatch.setattr(tf.config.experimental, "reset_memory_stats", stats.reset)
    return stats


def test_error_is_signed_and_missing_without_a_measurement():
    assert me.estimate_error(3 * MIB, 4 * MIB) == pytest.approx(-0.25)
    assert me.estimate_error(3 * MIB, None) is None
    assert me.versus_measured(3 * MIB, 4 * MIB) == \
        "estimated 3.0 MiB, measured 4.0 MiB (error -25%)"
    assert me.versus_measured(3 * MIB, None, "not reported by the CPU") == \
        "estimated 3.0 MiB, not measured (not reported by the CPU)"


def test_a_comparison_stores_its_estimates_and_the_card_sets_them_against_the_peak(
        tiny_spec, measured_on_a_gpu):
    from mpstudio.engine.comparison.card_text import card_rows
    from mpstudio.engine.event_text import summary_rows
    from mpstudio.engine.events import CollectingReporter, RunStarted
    from mpstudio.engine.history.store import RunStore
    from mpstudio.engine.run_session import train_session
    from mpstudio.engine.trainer.compare_options import CompareOptions

    reporter = CollectingReporter()
    spec = tiny_spec.replace(precision="mixed_float16", xla="off", steps=2)
    session = train_session(spec, reporter, CompareOptions(1, "auto", False))
    starts = reporter.of_type(RunStarted)
    assert [s.model.memory[0].policy for s in starts] == ["float32", "mixed_float16"]
    stored = [RunStore().run(run.id) for run in session.stored]  # read back
    estimates = [me.MemoryEstimate.from_dict(r.summary.memory_estimate) for r in stored]
    assert estimates == [s.model.memory[0] for s in starts]  # kept with each run
    base, mixed = estimates
    assert mixed.activations < base.activations and mixed.loss_scale > 0 == base.loss_scale
    error = (mixed.total - 3 * MIB) / (3 * MIB)
    expected = f"estimated {mixed.total / MIB:,.1f} MiB, measured 3.0 MiB " \
               f"(error {100 * error:+.0f}%)"
    assert dict(summary_rows(stored[1].summary))["memory estimate"] == expected
    (row,) = [r for r in card_rows(session.card) if r.name == "memory estimate"]
    assert row.mixed == expected and row.baseline.startswith(
        f"estimated {base.total / MIB:,.1f} MiB, measured 3.0 MiB")


def test_on_the_cpu_the_summary_says_not_measured(tiny_spec):
    from mpstudio.engine.event_text import summary_rows
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.trainer import runner

    result = runner.run(tiny_spec.replace(steps=2), CollectingReporter())
    assert result.summary.peak_memory_bytes is None
    text = dict(summary_rows(result.summary))["memory estimate"]
    assert text.startswith("estimated ") and text.endswith(
        "not measured (not reported by the CPU)")


# ------------------------------------------------------------------------ the CLI
def mpstudio(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpstudio", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "MPSTUDIO_LANG": "en"})


def test_the_cli_estimates_without_training():
    done = mpstudio("train", "--estimate-only", "--template", "cnn", "--batch-size", "16",
                    "--precision", "mixed_float16")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    expected = [me.estimate_for_spec(RunSpec(template="cnn", batch_size=16), (8, 8, 1), 10,
                                     1 / 16, p) for p in ("mixed_float16", "float32")]
    assert lines[:2] == [f"{e.policy}: memory estimate: {me.estimate_line(e)}"
                         for e in expected]
    assert lines[2].startswith("per device at batch 16; what the backward pass keeps")
    as_json = mpstudio("compare", "--estimate-only", "--json", "--optimizer", "sgd")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert [e["policy"] for e in data["estimates"]] == ["mixed_float16", "float32"]
    for e in data["estimates"]:
        assert e["slots_per_variable"] == 1 and e["total"] == sum(
            e[k] for k in ("weights", "optimizer", "gradients", "activations", "loss_scale",
                           "temporaries", "inputs", "overhead"))
    assert "the allocator's rounding" in data["assumptions"]


def test_a_cpu_run_measures_its_peak_under_tensorflows_counting_allocator(tmp_path):
    """TF_CPU_ALLOCATOR_USE_BFC=true: the CPU reports a real peak, so the card sets the
    estimate against a measurement and computes the memory saving, on this machine."""
    done = subprocess.run(
        [sys.executable, "-m", "mpstudio", "compare", "--steps", "12", "--batch-size", "64",
         "--json"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "MPSTUDIO_LANG": "en", "TF_CPU_ALLOCATOR_USE_BFC": "true",
             "MPSTUDIO_HISTORY": str(tmp_path / "history.sqlite3")})
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    for run in data["runs"]:
        summary = run["summary"]
        assert summary["peak_memory_bytes"] > 0
        assert summary["memory_note"] == "CPU:0 peak of this run"
        assert summary["memory_estimate"]["total"] > 0
    assert data["memory_saving"] is not None  # measured on both sides


# --------------------------------------------------------------------- the window
def test_the_window_shows_the_estimate_and_follows_the_batch_size(qtbot, window):
    from devtools.gui_driving import select

    layers = window.setup.layers
    select(window.setup.precision, "mixed_float16")
    window.setup.batch_size.setValue(32)
    qtbot.waitUntil(lambda: layers.summary is not None and layers.summary.memory
                    and layers.summary.memory[0].batch_size == 32
                    and layers.summary.policy == "mixed_float16", timeout=60_000)
    chosen, baseline = layers.summary.memory
    # on this CPU a half model holds its float32 weights and their half copies
    assert baseline.policy == "float32" and chosen.activations < baseline.activations
    assert baseline.optimizer_name == "Adam" and baseline.loss_scale == 0  # as compare runs it
    text = layers.memory.text()
    assert layers.memory.isVisible() and "at batch 32" in text
    assert f"{chosen.total / MIB:,.1f} MiB" in text and f"{baseline.total / MIB:,.1f}" in text
    assert "activations" in layers.memory.toolTip()
    window.setup.batch_size.setValue(64)
    qtbot.waitUntil(lambda: layers.summary.memory[0].batch_size == 64, timeout=60_000)
    doubled = layers.summary.memory[0]
    assert doubled.activations in (2 * chosen.activations, 2 * chosen.activations + 1)
    assert doubled.weights == chosen.weights
    assert "at batch 64" in layers.memory.text()


@pytest.mark.slow
@pytest.mark.parametrize(("template", "precision", "batch"), [
    ("transformer", "mixed_bfloat16", 128), ("cnn", "float32", 128),
    ("lstm", "mixed_float16", 256)])
def test_the_estimate_is_within_35_percent_of_the_cpus_measured_peak(
        tmp_path, template, precision, batch):
    """A real run on 32x32x3 images under TensorFlow's counting CPU allocator: its peak
    against the estimate it printed at its start (every template at two batches and
    three precisions: benchmarks/memory_estimate_accuracy.py)."""
    done = subprocess.run(
        [sys.executable, "-m", "mpstudio", "train", "--template", template, "--precision",
         precision, "--batch-size", str(batch), "--dataset", "synthetic", "--synthetic-shape",
         "32,32,3", "--synthetic-classes", "10", "--synthetic-samples", str(3 * batch),
         "--steps", "2", "--json"], capture_output=True, text=True, timeout=240,
        env={**os.environ, "MPSTUDIO_LANG": "en", "TF_CPU_ALLOCATOR_USE_BFC": "true",
             "MPSTUDIO_HISTORY": str(tmp_path / "history.sqlite3")})
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    estimated, measured = summary["memory_estimate"]["total"], summary["peak_memory_bytes"]
    assert summary["memory_estimate"]["device_kind"] == "CPU"
    assert abs(estimated / measured - 1) <= 0.35, (estimated, measured)


def test_the_setup_shows_the_payoff_predicted_on_this_machine(qtbot, window):
    """Under the layer table, before Run: the chosen precision predicted on this machine's
    device (a CPU here, its rates measured once by the engine) at the batch set up."""
    from devtools.gui_driving import select

    layers = window.setup.layers
    select(window.setup.precision, "mixed_bfloat16")
    window.setup.batch_size.setValue(48)
    qtbot.waitUntil(lambda: layers.summary is not None and layers.summary.payoff
                    and "batch 48" in layers.summary.payoff
                    and layers.summary.policy == "mixed_bfloat16", timeout=90_000)
    text = layers.payoff.text()
    assert layers.payoff.isVisible() and text.startswith("Predicted: mixed_bfloat16 on ")
    assert "at batch 48" in text and "over float32" in text and "-bound" in text


def test_a_files_inputs_are_read_once_while_it_is_unchanged(tmp_path, monkeypatch):
    """Every hardware check predicts the setup's model from its data's shape; a large
    CSV was read whole each time. The file is read again only once it has changed."""
    from mpstudio.engine.datasets import registry

    table = tmp_path / "table.csv"
    table.write_text("a,b,label\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(50)))
    reads: list[str] = []
    real = registry.inspect_dataset

    def counted(dataset, options):
        reads.append(dataset)
        return real(dataset, options)

    monkeypatch.setattr(registry, "inspect_dataset", counted)
    spec = RunSpec(dataset=str(table))
    assert me.model_inputs(spec)[:2] == ((2,), 2)
    assert me.model_inputs(spec)[:2] == ((2,), 2) and len(reads) == 1
    table.write_text("a,b,c,label\n" + "".join(f"{i},1,2,{i % 4}\n" for i in range(50)))
    os.utime(table, ns=(1, 10**18))  # a new modification time, whatever the clock says
    assert me.model_inputs(spec)[:2] == ((3,), 4) and len(reads) == 2
