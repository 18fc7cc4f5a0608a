"""Are the model's weights still finite? Checked at each epoch's end and at the run's end.

The loss alone does not tell: a fused kernel can hide NaN weights from it. On the CPU
(seen in TensorFlow 2.21, float32 and bfloat16) grappler fuses MatMul+BiasAdd+ReLU
inside a ``tf.function`` into one oneDNN op that returns 0 where a NaN kernel should
give NaN, so a Dense(relu) layer whose weights are all NaN feeds zeros on and the loss
stays finite: the run would end "finished" with a model that is NaN inside.

One ``tf.function`` checks every floating weight (``reduce_all(is_finite)`` each) and
returns one small vector, read once: a pass over the weights per epoch, no per-step
cost. Under a ``tf.distribute`` strategy each replica checks its own copies (in replica
context a mirrored variable reads as the local one) and the per-weight counts of
replicas that saw a non-finite value are summed across replicas, so every replica and
every worker gets the same answer (a worker that stopped alone would leave the others
waiting in a collective).
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.trainer.monitor import NonFiniteWeight


def _checked_weights(model: keras.Model) -> list[tuple[keras.layers.Layer, keras.Variable]]:
    """(layer, weight) for every floating weight, each once, in layer order."""
    seen: set[int] = set()
    out = []
    for layer in model.layers:
        for weight in layer.weights:
            if id(weight) in seen or not keras.backend.is_float_dtype(weight.dtype):
                continue
            seen.add(id(weight))
            out.append((layer, weight))
    return out


class WeightsCheck:
    def __init__(self, model: keras.Model, strategy: tf.distribute.Strategy | None = None):
        self._weights = _checked_weights(model)
        self._replicas = strategy.num_replicas_in_sync if strategy is not None else 1
        variables = [weight for _, weight in self._weights]

        def nonfinite_here() -> tf.Tensor:
            """Per weight: 1.0 where this replica's copy (or the only one) is not finite."""
            return tf.stack([
                1.0 - tf.cast(tf.reduce_all(tf.math.is_finite(tf.convert_to_tensor(v))),
                              tf.float32) for v in variables])

        if strategy is None:
            self._counts = tf.function(nonfinite_here)
        else:
            def across_replicas() -> tf.Tensor:
                per_replica = strategy.run(nonfinite_here)
                return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

            self._counts = tf.function(across_replicas)

    def first_nonfinite(self) -> NonFiniteWeight | None:
        """Waits for the device; None when every weight is finite everywhere."""
        if not self._weights:
            return None
        counts = np.asarray(self._counts())
        bad = np.flatnonzero(counts > 0)
        if not bad.size:
            return None
        layer, weight = self._weights[int(bad[0])]
        return NonFiniteWeight(layer.name, type(layer).__name__, layer.compute_dtype,
                               weight.path, round(float(counts[bad[0]])), self._replicas)
