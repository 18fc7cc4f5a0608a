"""Images stay uint8 to the device and the model scales them (issue 18): uint8 batches
from every image source, the scaling as the model's first layer, the same training
numbers as the host scaling it replaces, and the diagnosis that feeds it batches."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.pipeline import make_dataset, scaling_transform, stratified_split
from mpstudio.engine.datasets.registry import load_dataset, read_source
from mpstudio.engine.events import CollectingReporter, RunStarted, StepMetrics
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.templates import build_model
from mpstudio.engine.templates.model_input import scale_on_host
from mpstudio.engine.trainer import run_inputs, runner
from mpstudio.engine.trainer.numerics import diagnose

from support.user_data_files import iris_like_rows, learnable_images, write_csv, write_image_folder


def _run(spec: RunSpec):
    reporter = CollectingReporter()
    result = runner.run(spec, reporter)
    assert result.ok, result.failure
    return result, reporter


def test_an_image_folder_trains_on_uint8_batches_that_its_first_layer_scales(tmp_path):
    folder = write_image_folder(tmp_path / "pets", per_class=16, size=(8, 8))
    spec = RunSpec(dataset=str(folder), template="cnn", precision="mixed_float16",
                   batch_size=8, steps=2, validation_split=0.25,
                   dataset_options={"image_size": [8, 8]})
    bundle = load_dataset(spec)
    x, _ = next(iter(bundle.train))
    assert x.dtype == tf.uint8 and int(tf.reduce_max(x)) > 150  # the pixels as stored
    assert bundle.input_scale == 1 / 255 and 0 < bundle.value_range[1] <= 1
    result, reporter = _run(spec)
    model = result.model
    assert model.inputs[0].dtype == "uint8"
    first = model.layers[1]
    assert (first.name, first.scale, first.compute_dtype) == ("input_scaling", 1 / 255, "float32")
    (started,) = reporter.of_type(RunStarted)
    assert started.model.layers[1].kind == "Rescaling 1/255"
    assert "inside the model" in started.data_report.scaling


def test_tables_and_float_images_are_scaled_on_the_host_and_the_model_has_no_scaling(
        tmp_path):
    csv = write_csv(tmp_path / "t.csv", ["a", "b", "big", "n", "label"], iris_like_rows())
    result, _ = _run(RunSpec(dataset=str(csv), template="mlp", batch_size=16, steps=2))
    assert result.model.inputs[0].dtype == "float32"
    assert "input_scaling" not in {layer.name for layer in result.model.layers}
    # uint8 training images with a float test split: every split must be uint8 to be
    # scaled inside, so these are all scaled on the host (as float32)
    x, y = learnable_images(64)
    path = tmp_path / "mixed.npz"
    np.savez(path, x_train=x, y_train=y, x_test=x[:8].astype(np.float32), y_test=y[:8])
    data = read_source(str(path), {})
    assert data.x_train.dtype == np.uint8 and data.in_model_scale() is None
    bundle = load_dataset(RunSpec(dataset=str(path), batch_size=16))
    assert bundle.input_scale is None and bundle.train.element_spec[0].dtype == tf.float32


# ------------------------------------------------------------- the same numbers
def _host_scaled_bundle(spec: RunSpec, ctx=None, replicas: int = 1) -> DataBundle:
    """The pipeline as it was: the same arrays, split and shuffled from the same seed,
    each batch cast to float32 and scaled on the host; the model takes floats."""
    data = read_source(spec.dataset, spec.dataset_options)
    train_idx, val_idx = stratified_split(data.y_train, spec.validation_split, spec.seed)
    x_train = data.x_train[train_idx]
    transform, lo, hi = scaling_transform(data.scaling, x_train)

    def pipeline(x, y, training):
        return make_dataset(x, y, spec.batch_size, spec.data, spec.seed, training, transform)

    return DataBundle(
        data.name, pipeline(x_train, data.y_train[train_idx], True),
        pipeline(data.x_train[val_idx], data.y_train[val_idx], False), data.input_shape,
        len(data.class_names), data.class_names, len(train_idx), len(val_idx),
        spec.batch_size, len(train_idx) // spec.batch_size, (lo, hi))


def _losses(spec: RunSpec) -> tuple[np.ndarray, np.ndarray, keras.Model]:
    result, reporter = _run(spec)
    steps = np.array([e.loss for e in reporter.of_type(StepMetrics)])
    epochs = np.array([(e.loss, e.val_loss) for e in result.epochs])
    return steps, epochs, result.model


def _images_npz(tmp_path) -> str:
    # uint8 pixels 0..240: divided by 255, not a power of 2; 48 training images, 6
    # batches of 8: the 12 steps cross an epoch's end (both pipelines reshuffle)
    x, y = learnable_images(60)
    np.savez(tmp_path / "images.npz", x_train=x, y_train=y)
    return str(tmp_path / "images.npz")


# Tolerance: rtol 1e-6 (about 8 float32 ulps) on every step's and epoch's loss. The
# scaling layer computes float32(x) * float32(1/divisor), the very product the host
# computed, so the first real layer sees the same bits and the runs match exactly
# (measured: 0.0 difference); the margin only allows for a reduction order TensorFlow
# might pick differently in another graph. A real change of the inputs is far above it:
# scaling under the policy (float16 rounds 10 of the 256 values of x/255 differently,
# bfloat16 holds 1/255 as about 1/254) moved the 12 losses of the images.npz cases by
# up to 6% (cnn, float16) and 0.08% (mlp, bfloat16): those cases then fail here.
# Batches of 8: a cnn's float16 filter gradients cost some 100x float32's on a CPU, in
# proportion to the batch (at 32 each cnn · float16 case took 22 s of CPU).
@pytest.mark.parametrize(("dataset", "template", "precision"), [
    ("digits", "mlp", "float32"),
    ("digits", "mlp", "mixed_float16"),
    ("digits", "cnn", "float32"),
    ("digits", "cnn", "mixed_float16"),
    ("images.npz", "cnn", "mixed_float16"),
    ("images.npz", "mlp", "mixed_bfloat16"),
])
def test_scaling_inside_the_model_trains_exactly_as_scaling_on_the_host(
        dataset, template, precision, tmp_path, monkeypatch):
    path = "digits" if dataset == "digits" else _images_npz(tmp_path)
    spec = RunSpec(dataset=path, template=template, precision=precision, batch_size=8,
                   steps=12, log_every_steps=1, validation_split=0.2, seed=5)
    inside_steps, inside_epochs, inside = _losses(spec)
    monkeypatch.setattr(run_inputs, "load_dataset", _host_scaled_bundle)
    host_steps, host_epochs, host = _losses(spec)
    assert inside.inputs[0].dtype == "uint8" and host.inputs[0].dtype == "float32"
    assert len(inside_steps) == len(host_steps) == 12
    np.testing.assert_allclose(inside_steps, host_steps, rtol=1e-6, atol=0)
    np.testing.assert_allclose(inside_epochs, host_epochs, rtol=1e-6, atol=0)


def test_the_scaling_computes_in_float32_because_the_policy_would_round_the_scale():
    """What decided the layer's dtype, on all 256 uint8 values: in float32 it is the
    host's product bit for bit, under every policy, once the next layer casts it."""
    pixels = np.arange(256, dtype=np.uint8)
    host = tf.constant(scale_on_host(pixels, 1 / 255))
    for policy, half in (("mixed_float16", tf.float16), ("mixed_bfloat16", tf.bfloat16)):
        model = build_model("mlp", (256,), 2, policy, input_scale=1 / 255)
        scaled = model.get_layer("input_scaling")(pixels)
        assert scaled.dtype == tf.float32
        np.testing.assert_array_equal(tf.cast(scaled, half), tf.cast(host, half))
        # under the policy the product is rounded in 16 bits: a few values move by one
        # float16 unit; bfloat16 holds 1/255 as about 1/254 and merges two of 256 levels
        in_policy = tf.cast(pixels, half) * tf.cast(1 / 255, half)
        moved = int(np.sum(tf.cast(in_policy, tf.float32) != tf.cast(tf.cast(host, half),
                                                                        tf.float32)))
        assert moved == (10 if half == tf.float16 else 126)
    bf16_scale = tf.cast(1 / 255, tf.bfloat16)
    assert float(tf.cast(bf16_scale, tf.float32)) == (1 + 2**-7) / 256  # about 1/254
    merged = tf.cast(tf.cast(pixels, tf.bfloat16) * bf16_scale, tf.float32)
    assert len(np.unique(merged.numpy())) == 255


# ------------------------------------------------- what feeds the model batches
def test_the_numerics_diagnosis_runs_on_uint8_batches():
    bundle = load_dataset(RunSpec(batch_size=32))
    model = build_model("cnn", bundle.input_shape, bundle.num_classes, "mixed_float16",
                        input_scale=bundle.input_scale)
    loss = keras.losses.SparseCategoricalCrossentropy()
    healthy = diagnose(model, iter(bundle.train), loss, scale=1.0, step=3)
    assert healthy.stage == "none" and "re-ran 4 training batch(es)" in healthy.message
    overflow = diagnose(model, iter(bundle.train), loss, scale=1e30, step=3)
    assert overflow.stage == "gradient" and overflow.dtype == "float16"
    assert overflow.layer != "input_scaling"
