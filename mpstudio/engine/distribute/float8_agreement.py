"""float8's scales and amax histories, identical on every replica of a strategy.

Keras 3.15 float8 layers (keras/src/layers/core/dense.py ``_float8_build``, and
einsum_dense.py alike) keep six float32 variables per layer: a scale and an amax
history for the inputs, the kernel and the output gradient. They are created with
``overwrite_with_gradient=True`` and the default ``aggregation="none"``: their
"gradient" is the new value, computed from what this replica saw (the largest
|input| of its share of the batch, the largest |output gradient|), and the
optimizer's ``apply`` assigns it directly (base_optimizer.py,
``_overwrite_variables_directly_with_gradients``), in replica context, before any
cross-replica sum. A MirroredVariable with aggregation NONE updated in replica
context updates only that replica's copy (tensorflow/python/distribute/values.py,
``_on_write_update_replica``), so the copies drift apart (seen after 4 steps on two
logical CPU devices, in both loops) and a save keeps replica 0's.

The fix agrees first, as the optimizer's own variables are: in ``apply``, each
replica's new values of every overwritten variable are gathered from all replicas
(one ``all_gather`` of one flat vector per step) and each replica takes the
element-wise largest. For an amax history that is exactly what one device would have
recorded for the whole global batch (the largest |value| over all of it: delayed
scaling's meaning; NVIDIA's Transformer Engine reduces amax with a maximum across
data-parallel ranks too); a new scale is computed from the previous scale and
history, which are already identical, so the largest is that same value. Every
replica then assigns the same numbers. Changing the variables' aggregation instead
would mean re-creating what ``model.quantize`` made, and no aggregation takes a
maximum (MEAN would understate the amax and clip values; ONLY_FIRST_REPLICA would
ignore what the other replicas saw).

As in overflow_agreement, the method is replaced on the instance: a saved model's
optimizer stays a plain Keras one. Nothing changes on one device, or for a model
without such variables (the check happens once, when the step is traced).
"""

from __future__ import annotations

from collections.abc import Sequence

import keras
import tensorflow as tf


def _overwritten(variable) -> bool:
    return bool(getattr(variable, "overwrite_with_gradient", False))


def agree_overwritten_values(optimizer: keras.Optimizer) -> keras.Optimizer:
    """Make ``optimizer.apply`` give every replica the same values for the variables
    it overwrites with their "gradient" (float8's scales and amax histories)."""
    keras_apply = optimizer.apply

    def apply(grads: Sequence, trainable_variables=None):
        context = tf.distribute.get_replica_context()
        if (trainable_variables is None or context is None
                or context.num_replicas_in_sync <= 1):
            return keras_apply(grads, trainable_variables)
        variables = list(trainable_variables)
        grads = list(grads)
        chosen = [i for i, (g, v) in enumerate(zip(grads, variables, strict=True))
                  if g is not None and _overwritten(v)]
        if chosen:
            agreed = _largest_across_replicas(context, [grads[i] for i in chosen])
            for i, value in zip(chosen, agreed, strict=True):
                grads[i] = value
        return keras_apply(grads, variables)

    optimizer.apply = apply
    return optimizer


def _largest_across_replicas(context: tf.distribute.ReplicaContext,
                             values: list[tf.Tensor]) -> list[tf.Tensor]:
    """Each of ``values``, replaced by its element-wise maximum over all replicas: one
    collective for all of them (flattened, concatenated, gathered along a new axis)."""
    flat = tf.concat([tf.reshape(tf.cast(v, tf.float32), [-1]) for v in values], axis=0)
    gathered = context.all_gather(flat[tf.newaxis], axis=0)  # [replicas, n]
    largest = tf.reduce_max(gathered, axis=0)
    out, start = [], 0
    for value in values:
        size = value.shape.num_elements()
        out.append(tf.cast(tf.reshape(largest[start:start + size], tf.shape(value)),
                           value.dtype))
        start += size
    return out
