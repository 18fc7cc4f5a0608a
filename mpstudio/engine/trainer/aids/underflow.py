"""The gradient-underflow view: how much of a float16 run's gradient float16 itself
would round to zero, without loss scaling and at the scale in force.

Every ``every`` steps, on one fixed training batch, the weight gradients are computed
as training computes them (float16 math) for the loss times a probe scale P (the
run's dynamic scale, else 2^15, lowered until nothing overflows); divided by P they
estimate the true gradient. Of its nonzero values, the fraction with |g| x s at or
below 2^-25 (what float16 rounds to 0) is reported for s = 1 (no loss scaling) and
s = the scale in force, overall and per float16 layer. Values too small to show even
at P are invisible here, so the fraction without scaling is a lower bound.

Cost: one forward and backward pass on one batch, plus a device sync and a copy of
the gradients to the host, every ``every`` steps: about 1/every more compute (2% at
50). The probe runs in inference mode (no dropout, no batch-norm update), so it
leaves the run's state untouched. Off by default.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.events import (
    GradientUnderflow,
    LayerUnderflow,
    Reporter,
    RunSummary,
    RunWarning,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.run_setup import PreparedRun

FLOAT16_ROUNDS_TO_ZERO = 2.0**-25  # half the smallest float16 subnormal (2^-24)
PROBE_SCALE = 2.0**15
MAX_PROBE_TRIES = 8


def underflow_fraction(true_grad: np.ndarray, scale: float) -> float:
    """Of the nonzero values of ``true_grad``, the fraction float16 holds as 0 once
    multiplied by ``scale``."""
    nonzero = np.abs(true_grad[true_grad != 0])
    if not nonzero.size:
        return 0.0
    return float(np.mean(nonzero * scale <= FLOAT16_ROUNDS_TO_ZERO))


class UnderflowProbe(TrainingAid):
    def __init__(self, model: keras.Model, loss_fn: keras.losses.Loss, batch: tuple,
                 every: int, reporter: Reporter, scale_in_force: Callable[[], float | None]):
        self.every = every
        self.reporter = reporter
        self.scale_in_force = scale_in_force
        self.last: GradientUnderflow | None = None
        self.total_seconds = 0.0
        self._x, self._y = batch
        variables = model.trainable_variables
        owner = {id(v): layer for layer in model.layers for v in layer.trainable_weights}
        self._layers = [owner.get(id(v)) for v in variables]

        @tf.function
        def gradients(x: tf.Tensor, y: tf.Tensor, probe_scale: tf.Tensor) -> list[tf.Tensor]:
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=False))
                scaled = tf.cast(loss, tf.float32) * probe_scale
            return tape.gradient(scaled, variables)

        self._gradients = gradients

    @classmethod
    def attach(cls, run: PreparedRun) -> UnderflowProbe | None:
        """On a float16 run whose spec asks for it (``aids.underflow_every``)."""
        spec = run.spec
        if not spec.aids.underflow_every or spec.precision != "mixed_float16":
            return None
        if run.placement.strategy is not None:
            run.reporter.emit(RunWarning(_("the gradient-underflow view samples one device's "
                                           "gradients and is off under a tf.distribute "
                                           "strategy")))
            return None
        batch = next(iter(run.bundle.train))
        probe = cls(run.model, keras.losses.SparseCategoricalCrossentropy(), batch,
                    spec.aids.underflow_every, run.reporter, run.monitor.state.scale)
        run.monitor.after_step_hooks.append(probe.after_step)
        return probe

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        last = self.last  # the run's last sample
        return dataclasses.replace(summary,
                                   underflow_unscaled=last.unscaled if last else None,
                                   underflow_scaled=last.scaled if last else None)

    def after_step(self, steps: int, epoch: int) -> None:
        if steps % self.every == 0:
            self.sample(steps, epoch)

    def sample(self, step: int, epoch: int) -> GradientUnderflow:
        started = time.perf_counter()
        in_force = self.scale_in_force() or 1.0
        probe = in_force if in_force > 1.0 else PROBE_SCALE
        for _try in range(MAX_PROBE_TRIES):
            grads = [None if g is None else np.asarray(g, np.float64)
                     for g in self._gradients(self._x, self._y, tf.constant(probe, tf.float32))]
            if all(g is None or np.all(np.isfinite(g)) for g in grads):
                break
            probe /= 4.0
        per_layer: dict[str, list[np.ndarray]] = {}
        dtypes: dict[str, str] = {}
        for layer, grad in zip(self._layers, grads, strict=True):
            if layer is None or grad is None or layer.compute_dtype != "float16":
                continue  # only float16 math underflows in float16
            per_layer.setdefault(layer.name, []).append(grad.ravel() / probe)
            dtypes[layer.name] = layer.compute_dtype
        layers = []
        for name, parts in per_layer.items():
            values = np.concatenate(parts)
            layers.append(LayerUnderflow(
                name, dtypes[name], int(np.count_nonzero(values)),
                underflow_fraction(values, 1.0), underflow_fraction(values, in_force)))
        everything = np.concatenate([np.concatenate(p) for p in per_layer.values()]) \
            if per_layer else np.zeros(0)
        seconds = time.perf_counter() - started
        self.total_seconds += seconds
        event = GradientUnderflow(
            step=step, epoch=epoch, scale=float(in_force),
            unscaled=underflow_fraction(everything, 1.0),
            scaled=underflow_fraction(everything, in_force),
            layers=tuple(layers), seconds=seconds)
        self.last = event
        self.reporter.emit(event)
        return event
