"""Precision is per run, and each loss-scaling mode wires the optimizer as Keras 3 needs."""

from __future__ import annotations

import keras

from mpstudio.engine.events import CollectingReporter, RunStarted
from mpstudio.engine.precision import make_optimizer
from mpstudio.engine.spec import LossScaling, RunSpec
from mpstudio.engine.trainer.runner import run

EXPECTED_COMPUTE = {"mixed_float16": "float16", "float32": "float32", "mixed_bfloat16": "bfloat16"}


def test_policies_do_not_leak_between_runs(tiny_spec):
    """mixed_float16, then float32, then mixed_bfloat16 in one process."""
    for policy in ("mixed_float16", "float32", "mixed_bfloat16"):
        reporter = CollectingReporter()
        result = run(tiny_spec.replace(template="mlp_bn", precision=policy, steps=3), reporter)
        assert result.ok, result.failure
        for layer in result.model.layers:
            if type(layer).__name__ in ("InputLayer",) or layer.name == "input_scaling":
                continue  # the uint8 images' scaling computes in float32, as the pipeline did
            want = "float32" if layer.name == "probabilities" else EXPECTED_COMPUTE[policy]
            assert layer.compute_dtype == want, (policy, layer.name, layer.compute_dtype)
            assert layer.variable_dtype == "float32"
        (started,) = reporter.of_type(RunStarted)
        reported = {li.name: li.compute_dtype for li in started.model.layers}
        assert reported["dense_512"] == EXPECTED_COMPUTE[policy]
        assert keras.mixed_precision.global_policy().name == "float32"


def test_dynamic_scaling_uses_a_loss_scale_optimizer():
    spec = RunSpec(loss_scaling=LossScaling("dynamic", initial_scale=256.0, growth_steps=7))
    opt = make_optimizer(spec)
    # exactly Keras' class (the replica agreement is per instance): a saved model's
    # optimizer loads anywhere, without mpstudio
    assert type(opt) is keras.optimizers.LossScaleOptimizer
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(opt))
    assert type(restored) is keras.optimizers.LossScaleOptimizer
    opt.build([keras.Variable(1.0)])
    assert float(opt.dynamic_scale.numpy()) == 256.0
    assert opt.dynamic_growth_steps == 7


def test_fixed_scaling_survives_compile_and_training(tiny_spec):
    """The trap: compile(auto_scale_loss=True) would silently drop a fixed scale."""
    spec = tiny_spec.replace(
        precision="mixed_float16", loss_scaling=LossScaling("fixed", factor=128.0), steps=4
    )
    result = run(spec, CollectingReporter())
    assert result.ok
    opt = result.model.optimizer
    assert not isinstance(opt, keras.optimizers.LossScaleOptimizer)
    assert opt.loss_scale_factor == 128.0
    assert result.summary.loss_scale_final == 128.0 and result.summary.loss_scale_mode == "fixed"


def test_off_means_a_plain_optimizer():
    opt = make_optimizer(RunSpec(loss_scaling=LossScaling("off"), optimizer="sgd"))
    assert type(opt) is keras.optimizers.SGD and opt.loss_scale_factor is None
    assert isinstance(make_optimizer(RunSpec(precision="mixed_float16")),
                      keras.optimizers.LossScaleOptimizer)  # auto under float16
    assert type(make_optimizer(RunSpec(precision="mixed_bfloat16"))) is keras.optimizers.Adam


def test_float16_on_a_cpu_trains_without_the_fused_kernels():
    """TensorFlow's fused float16 MatMul+BiasAdd+activation runs 60x slower than the
    unfused ops on an AVX512-FP16 CPU: a float16 run on a CPU traces without the
    graph optimizer's remapping pass, and puts it back after; other runs keep it."""
    import tensorflow as tf

    from mpstudio.engine.trainer.cpu_float16_fusion import float16_fusion_off

    def remapping():
        return tf.config.optimizer.get_experimental_options().get("remapping", True)

    with float16_fusion_off("mixed_float16", "CPU"):
        assert remapping() is False
    assert remapping() is True
    for precision, kind in (("mixed_bfloat16", "CPU"), ("float32", "CPU"),
                            ("mixed_float16", "GPU")):
        with float16_fusion_off(precision, kind):
            assert remapping() is True
