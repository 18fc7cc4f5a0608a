"""Templates: built under the asked policy, float32 output, sizes that suit Tensor Cores."""

from __future__ import annotations

import itertools
import re

import keras
import numpy as np
import pytest

from mpstudio.engine.model_summary import describe_model
from mpstudio.engine.templates import build_model, template_names
from mpstudio.engine.templates.registry import input_problem
from mpstudio.engine.templates.sequence import patch_size

COMPUTE = {"float32": "float32", "mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}
STRUCTURAL = ("InputLayer",)  # layers with no computation of their own


TEMPLATES = template_names()  # every test below covers a template as soon as it registers


def test_the_registry_holds_the_classic_templates_in_order():
    """A new template joins the tests by registering; these six are what the docs and the
    window's defaults name, and their order is the picker's."""
    assert TEMPLATES[:6] == ["mlp", "mlp_bn", "cnn", "resnet", "transformer", "lstm"]


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("policy", ["float32", "mixed_float16", "mixed_bfloat16"])
def test_template_builds_under_policy_with_float32_output(template, policy):
    model = build_model(template, (8, 8, 1), 10, policy)
    summary = describe_model(model, policy)
    assert summary.params > 0 and summary.trainable_params <= summary.params
    *body, head = [li for li in summary.layers if li.kind not in STRUCTURAL]
    assert (head.kind, head.compute_dtype) == ("Activation", "float32")
    for layer in body:
        assert layer.compute_dtype == COMPUTE[policy], layer
        assert layer.variable_dtype == "float32", layer
    out = model(np.zeros((2, 8, 8, 1), np.float32))
    assert out.dtype == "float32" and tuple(out.shape) == (2, 10)
    assert np.allclose(np.sum(np.asarray(out), axis=1), 1.0, atol=1e-3)
    assert keras.mixed_precision.global_policy().name == "float32"  # restored


@pytest.mark.parametrize("template", TEMPLATES)
def test_hidden_widths_are_multiples_of_8(template):
    model = build_model(template, (8, 8, 1), 10, "float32")
    for layer in model.layers:
        width = getattr(layer, "units", None) or getattr(layer, "filters", None)
        if width and layer.name != "logits":
            assert width % 8 == 0, (layer.name, width)


def test_templates_take_other_shapes():
    assert build_model("cnn", (32, 32, 3), 4, "float32").output_shape == (None, 4)
    assert build_model("transformer", (28, 28, 1), 10, "float32").output_shape == (None, 10)
    assert build_model("lstm", (20, 6), 3, "float32").output_shape == (None, 3)
    assert build_model("mlp", (13,), 2, "float32").output_shape == (None, 2)
    assert patch_size(8, 8) == 2 and patch_size(32, 32) == 4 and patch_size(28, 28) == 4


def test_a_combination_that_cannot_work_is_refused_with_a_reason():
    reason = input_problem("cnn", (13,))
    assert reason and "'cnn'" in reason and "flat" in reason and "mlp" in reason
    with pytest.raises(ValueError, match="templates that fit: mlp, mlp_bn"):
        build_model("lstm", (13,), 2, "float32")
    assert input_problem("mlp", (13,)) is None


@pytest.mark.parametrize("template", TEMPLATES)
def test_uint8_images_are_scaled_by_the_first_layer_and_add_no_parameters(template):
    """Asked for (the data is uint8 images divided by 16), every template takes uint8
    and scales it first, in float32; on the same weights it computes what the float
    model computes on the images scaled on the host."""
    plain = build_model(template, (8, 8, 1), 10, "mixed_float16")
    scaled = build_model(template, (8, 8, 1), 10, "mixed_float16", input_scale=1 / 16)
    assert plain.inputs[0].dtype == "float32" and scaled.inputs[0].dtype == "uint8"
    assert not any(type(layer).__name__ == "Rescaling" for layer in plain.layers)
    first = scaled.layers[1]
    assert (first.name, type(first).__name__, first.compute_dtype) == (
        "input_scaling", "Rescaling", "float32")
    assert scaled.count_params() == plain.count_params()
    scaled.set_weights(plain.get_weights())
    x = np.random.default_rng(0).integers(0, 17, (4, 8, 8, 1)).astype(np.uint8)
    np.testing.assert_array_equal(scaled(x), plain(x.astype(np.float32) / 16))
    assert keras.mixed_precision.global_policy().name == "float32"


def test_the_layer_table_says_what_the_input_scaling_does():
    plain = describe_model(build_model("cnn", (8, 8, 1), 10, "mixed_float16"), "mixed_float16")
    summary = describe_model(build_model("cnn", (8, 8, 1), 10, "mixed_float16",
                                         input_scale=1 / 255), "mixed_float16")
    row = summary.layers[1]
    assert (row.name, row.kind, row.compute_dtype, row.params) == (
        "input_scaling", "Rescaling 1/255", "float32", 0)
    assert re.search(r"\ninput_scaling +Rescaling 1/255 +float32 +float32 +0 ", summary.as_table())
    assert summary.params == plain.params and len(summary.layers) == len(plain.layers) + 1


def test_a_builder_that_ignores_the_scaling_is_refused(monkeypatch):
    """A float model fed uint8 would silently read the pixels as 0..255."""
    from mpstudio.engine.templates import registry

    def own_input(input_shape, num_classes):
        inputs = keras.Input(input_shape)
        return keras.Model(inputs, keras.layers.Dense(num_classes)(
            keras.layers.Flatten()(inputs)))

    monkeypatch.setattr(registry, "resolve", lambda builder: own_input)
    assert build_model("mlp", (8, 8, 1), 10, "float32").inputs[0].dtype == "float32"
    with pytest.raises(ValueError, match=r"does not scale its inputs as asked.*model_input"):
        build_model("mlp", (8, 8, 1), 10, "float32", input_scale=1 / 16)


def test_summary_table_lists_dtypes():
    summary = describe_model(build_model("mlp", (8, 8, 1), 10, "mixed_float16"), "mixed_float16")
    table = summary.as_table()
    assert "dense_1024" in table and "float16" in table
    assert summary.output_dtype == "float32"
    assert summary.params == 64 * 1024 + 1024 + 1024 * 10 + 10


@pytest.mark.slow
@pytest.mark.parametrize("template", template_names())
def test_validation_follows_training_on_the_default_demo(template):
    """The window's default run (digits, 5 epochs of batch 128, about 55 steps) of each
    template in float32: validation accuracy must not fall epoch over epoch. With
    Keras' BatchNormalization momentum of 0.99 the cnn's fell 65% -> 50% -> 36% while
    its training accuracy climbed (the moving statistics cannot follow 33 steps).
    One epoch may dip by at most 2 examples of the 359 (0.6 points): noise, not a
    trend; the last epoch must be within that of the best. (The lstm's dipped 17
    examples at epoch 3 before its rows were normalized.)"""
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.runner import run

    spec = RunSpec(template=template, precision="float32")  # the window's defaults
    result = run(spec, CollectingReporter())
    assert result.ok, result.failure
    val = [e.val_accuracy for e in result.epochs]
    slack = 2.5 / result.summary.val_examples  # 2 examples, and float32 rounding
    falls = [(i + 1, a, b) for i, (a, b) in enumerate(itertools.pairwise(val))
             if b < a - slack]
    assert not falls, f"{template}: validation accuracy fell (epoch, before, after): {falls}"
    assert val[-1] >= max(val) - slack, f"{template}: {val}"
