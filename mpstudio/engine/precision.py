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
from keras.optimizers.schedules import LearningRateSchedule

from mpstudio.engine.distribute.float8_agreement import agree_overwritten_values
from mpstudio.engine.distribute.lr_plan import LearningRatePlan
from mpstudio.engine.distribute.overflow_agreement import agree_across_replicas
from mpstudio.engine.float8 import keras_policy
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec


@contextlib.contextmanager
def policy_scope(policy: str) -> Iterator[None]:
    """``policy``: a Keras policy or a run's precision ("float8" builds under
    mixed_bfloat16; float8.quantize_float8 then quantizes the built model)."""
    previous = keras.mixed_precision.global_policy()
    keras.mixed_precision.set_global_policy(keras_policy(policy))
    try:
        yield
    finally:
        keras.mixed_precision.set_global_policy(previous)


def learning_rate(plan: LearningRatePlan,
                  adjustable: bool = False) -> float | LearningRateSchedule:
    """The plan's rate as Keras takes it. A warmup is Keras' own CosineDecay with
    ``alpha=1``: linear from 0 to the target over the warmup, then a "decay" to
    alpha x target, i.e. constant. A built-in schedule keeps the saved model
    loadable anywhere (a custom class would have to be importable there).
    ``adjustable``: a plain rate that can be set while training (reduce-on-plateau;
    trainer.aids.lr_control then steps the warmup itself)."""
    if not plan.warmup_steps or adjustable:
        return plan.target
    return keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0, decay_steps=1, alpha=1.0,
        warmup_target=plan.target, warmup_steps=plan.warmup_steps)


def _inner_optimizer(spec: RunSpec, loss_scale_factor: float | None,
                     plan: LearningRatePlan, adjustable: bool) -> keras.Optimizer:
    rate = learning_rate(plan, adjustable)
    if spec.optimizer == "adam":
        return keras.optimizers.Adam(rate, loss_scale_factor=loss_scale_factor)
    if spec.optimizer == "sgd":
        return keras.optimizers.SGD(rate, momentum=0.9, loss_scale_factor=loss_scale_factor)
    raise ValueError(_("unknown optimizer {name!r}").format(name=spec.optimizer))


def make_optimizer(spec: RunSpec, plan: LearningRatePlan | None = None,
                   adjustable: bool = False) -> keras.Optimizer:
    """The run's optimizer with its loss scaling: dynamic (a LossScaleOptimizer whose
    replicas agree on skipping an overflowing step), fixed (the inner optimizer's
    ``loss_scale_factor``) or off (a plain optimizer). Under a strategy its replicas
    also agree on the values it overwrites directly (float8's scales and amax
    histories: distribute.float8_agreement).
    ``plan``: the learning rate after replica scaling and warmup (default: one
    replica, the spec's own rate and warmup)."""
    plan = plan or LearningRatePlan(spec.learning_rate, 1, "none", spec.warmup_steps)
    mode = spec.loss_scaling_mode
    ls = spec.loss_scaling
    if mode == "dynamic":
        optimizer: keras.Optimizer = agree_across_replicas(keras.optimizers.LossScaleOptimizer(
            _inner_optimizer(spec, None, plan, adjustable),
            initial_scale=float(ls.initial_scale),
            dynamic_growth_steps=int(ls.growth_steps),
        ))
    else:
        factor = float(ls.factor) if mode == "fixed" else None
        optimizer = _inner_optimizer(spec, factor, plan, adjustable)
    return agree_overwritten_values(optimizer)


def loss_scaling_note(spec: RunSpec) -> str:
    """One sentence on the loss scaling a run really uses, for the run's report (in the
    language in force: the run's start line, not stored)."""
    mode = spec.loss_scaling_mode
    ls = spec.loss_scaling
    if spec.precision == "float8" and mode == "off":
        return _("no loss scaling: float8 layers keep their own per-tensor scales, and "
                 "bfloat16 elsewhere has float32's exponent range")
    if spec.precision == "mixed_bfloat16" and mode == "off":
        return _("no loss scaling: bfloat16 has float32's exponent range, none is needed")
    if spec.precision == "float32" and mode == "off":
        return _("no loss scaling: float32 gradients do not underflow")
    if mode == "dynamic":
        return _("dynamic loss scaling from {scale:g}, doubled after {steps} finite steps, "
                 "halved and step skipped on overflow").format(
            scale=float(ls.initial_scale), steps=ls.growth_steps)
    if mode == "fixed":
        return _("fixed loss scale {factor:g} (no overflow detection: a step that overflows "
                 "diverges)").format(factor=float(ls.factor))
    return _("no loss scaling: small float16 gradients may underflow to zero")
