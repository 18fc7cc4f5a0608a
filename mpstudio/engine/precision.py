"""Precision policies and loss scaling, per run.

Keras' dtype policy is process-global; a run sets it only while its model is
built (``policy_scope``) and restores it after, so a float32 run right after a
mixed one is float32 in every layer. Loss scaling is wired by hand (compile
with ``auto_scale_loss=False``): Keras' auto-wrap would drop a fixed scale and
decides from the model-level policy, not from the layers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import keras

from mpstudio.engine.spec import RunSpec


@contextlib.contextmanager
def policy_scope(policy: str) -> Iterator[None]:
    previous = keras.mixed_precision.global_policy()
    keras.mixed_precision.set_global_policy(policy)
    try:
        yield
    finally:
        keras.mixed_precision.set_global_policy(previous)


def _inner_optimizer(spec: RunSpec, loss_scale_factor: float | None) -> keras.Optimizer:
    if spec.optimizer == "adam":
        return keras.optimizers.Adam(spec.learning_rate, loss_scale_factor=loss_scale_factor)
    if spec.optimizer == "sgd":
        return keras.optimizers.SGD(
            spec.learning_rate, momentum=0.9, loss_scale_factor=loss_scale_factor
        )
    raise ValueError(f"unknown optimizer {spec.optimizer!r}")


def make_optimizer(spec: RunSpec) -> keras.Optimizer:
    """The run's optimizer with its loss scaling: dynamic (a LossScaleOptimizer),
    fixed (the inner optimizer's ``loss_scale_factor``) or off (a plain optimizer)."""
    mode = spec.loss_scaling_mode
    ls = spec.loss_scaling
    if mode == "dynamic":
        return keras.optimizers.LossScaleOptimizer(
            _inner_optimizer(spec, None),
            initial_scale=float(ls.initial_scale),
            dynamic_growth_steps=int(ls.growth_steps),
        )
    if mode == "fixed":
        return _inner_optimizer(spec, float(ls.factor))
    return _inner_optimizer(spec, None)


def loss_scaling_note(spec: RunSpec) -> str:
    """One sentence on the loss scaling a run really uses, for the run's report."""
    mode = spec.loss_scaling_mode
    ls = spec.loss_scaling
    if spec.precision == "mixed_bfloat16" and mode == "off":
        return "no loss scaling: bfloat16 has float32's exponent range, none is needed"
    if spec.precision == "float32" and mode == "off":
        return "no loss scaling: float32 gradients do not underflow"
    if mode == "dynamic":
        return (
            f"dynamic loss scaling from {ls.initial_scale:g}, doubled after "
            f"{ls.growth_steps} finite steps, halved and step skipped on overflow"
        )
    if mode == "fixed":
        return (
            f"fixed loss scale {ls.factor:g} "
            "(no overflow detection: a step that overflows diverges)"
        )
    return "no loss scaling: small float16 gradients may underflow to zero"
