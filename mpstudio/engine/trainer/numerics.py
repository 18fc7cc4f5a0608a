"""Where a non-finite value first appears: a training step re-run with per-layer checks.

When a run's loss turns NaN/inf, the weights it stopped with are run forward and
backward again, on a few training batches, through a probe model that exposes every
layer's output. The first finding, in this order, names the culprit:
  weights  - a layer's weights are already non-finite (a bad update was applied);
  forward  - the first layer whose output is non-finite although its inputs were not
             (float16 overflows above 65,504);
  gradient - going backward from the scaled loss, the first layer whose gradient is
             non-finite (the loss scale is too high for this model).
Plain TensorFlow ops, no ``enable_check_numerics``: that one is process-wide and
would also trip on the training that goes on in other threads.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.events import NumericsDiagnosis
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said

FLOAT16_MAX = 65504.0


def _finite(value) -> bool:
    return bool(np.all(np.isfinite(np.asarray(value, dtype=np.float64))))


def _describe(layer: keras.layers.Layer) -> Said:
    return said(N_("layer '{layer}' ({type}, computing in {dtype})"), layer=layer.name,
                type=type(layer).__name__, dtype=layer.compute_dtype)


def diagnose(model: keras.Model, batches: Iterable[tuple], loss_fn, scale: float | None,
             step: int, max_batches: int = 4) -> NumericsDiagnosis:
    """Re-run training steps from the model's current weights on up to ``max_batches``
    of ``batches`` (x, y), the loss multiplied by ``scale`` as in training. The
    diagnosis's message is a ``Said``: the history keeps it as its message."""
    for layer in model.layers:
        for weight in layer.weights:
            if not _finite(weight.numpy()):
                return NumericsDiagnosis(
                    step, layer.name, layer.compute_dtype, "weights", said(N_(
                        "{layer} has non-finite weights ({weight}): an update with a "
                        "non-finite gradient was applied. A fixed loss scale (or none) never "
                        "skips such a step: use dynamic loss scaling, or a lower learning "
                        "rate"), layer=_describe(layer), weight=weight.path))
    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    probe = keras.Model(model.inputs, [layer.output for layer in layers])
    factor = float(scale or 1.0)
    tried = 0
    for x, y in itertools.islice(batches, max_batches):
        tried += 1
        with tf.GradientTape() as tape:
            outputs = probe(x, training=True)
            if not isinstance(outputs, (list, tuple)):
                outputs = [outputs]  # a one-layer model's probe has one output, unlisted
            loss = loss_fn(y, outputs[-1])
            if model.losses:
                loss = loss + tf.add_n(model.losses)
            scaled = tf.cast(loss, tf.float32) * factor
        for layer, output in zip(layers, outputs, strict=True):
            if not _finite(output):
                peak = float(np.nanmax(np.abs(np.asarray(output, np.float64))))
                return NumericsDiagnosis(
                    step, layer.name, layer.compute_dtype, "forward",
                    _forward_fix(layer, peak))
        if not math.isfinite(float(loss)):
            return NumericsDiagnosis(
                step, layers[-1].name, layers[-1].compute_dtype, "forward", said(N_(
                    "every layer's output is finite but the loss is {loss}: the loss itself "
                    "overflowed; compute it in float32 (a float32 output layer)"),
                    loss=str(float(loss))))
        grads = tape.gradient(scaled, outputs)
        for layer, grad in reversed(list(zip(layers, grads, strict=True))):
            if grad is not None and not _finite(grad):
                return NumericsDiagnosis(
                    step, layer.name, layer.compute_dtype, "gradient", said(N_(
                        "going backward from the loss x {factor}, the gradient reaching "
                        "{layer} overflowed: the loss scale is too high for this model; use "
                        "dynamic loss scaling or a smaller fixed factor"),
                        factor=f"{factor:g}", layer=_describe(layer)))
    return NumericsDiagnosis(
        step, None, None, "none", said(N_(
            "re-ran {tried} training batch(es) from the weights at step {step} with "
            "per-layer checks: every output and gradient was finite. The non-finite loss "
            "came from particular batches or from the update itself: try a lower learning "
            "rate"), tried=tried, step=step))


def _forward_fix(layer: keras.layers.Layer, peak: float) -> Said:
    """The layer that produced inf/NaN, and what to do about it."""
    if layer.compute_dtype == "float16":
        return said(N_(
            "{layer} produced inf/NaN from finite inputs (float16 overflows above {most}; "
            "largest finite value {peak}): compute this layer in float32 (dtype='float32'), "
            "normalize its inputs, or use mixed_bfloat16, which has float32's range"),
            layer=_describe(layer), most=f"{FLOAT16_MAX:,.0f}", peak=f"{peak:.3g}")
    return said(N_("{layer} produced inf/NaN from finite inputs: check its inputs and "
                   "weights (a division by zero, a log of 0)"), layer=_describe(layer))
