"""Dynamic loss scaling that skips an overflowing step on every replica.

Keras 3.15's LossScaleOptimizer decides "are all gradients finite?" per replica,
BEFORE the cross-replica sum: under a merge-call strategy (Mirrored,
MultiWorkerMirrored) it keeps replica 0's answer (``_tf_apply``), so an inf on
replica 1 is summed into the update: the weights become inf/NaN, the scale does
not drop, and the step counts as applied. Under a no-merge-call strategy (TPU)
each replica branches on its own answer, so the replicas disagree.

The fix agrees first: each replica counts its own non-finite verdict, the counts
are summed across replicas (one scalar all-reduce), and where any replica
overflowed every replica's gradients are made non-finite, so Keras' own logic
skips the step and halves the scale everywhere, identically. Nothing changes
when all are finite (a multiply by exactly 1) or on a single device.

The method is replaced on the instance, not by a subclass, so a saved model's
optimizer is still a plain ``keras.optimizers.LossScaleOptimizer`` that loads
anywhere without mpstudio.
"""

from __future__ import annotations

from collections.abc import Sequence

import keras
import tensorflow as tf


def agree_across_replicas(optimizer: keras.optimizers.LossScaleOptimizer,
                          ) -> keras.optimizers.LossScaleOptimizer:
    """Make ``optimizer.apply`` skip a step on every replica when any replica overflows."""
    keras_apply = optimizer.apply

    def apply(grads: Sequence, trainable_variables=None):
        grads = list(grads)
        context = tf.distribute.get_replica_context()
        if context is not None and context.num_replicas_in_sync > 1:
            overflowed_here = 1.0 - tf.cast(optimizer.check_finite(grads), tf.float32)
            overflowed = context.all_reduce(tf.distribute.ReduceOp.SUM, overflowed_here)
            grads = _poisoned_if(overflowed > 0.0, grads)
        return keras_apply(grads, trainable_variables)

    optimizer.apply = apply
    return optimizer


def _poisoned_if(condition: tf.Tensor, grads: list) -> list:
    """``grads`` with one gradient multiplied by NaN when ``condition``, else by 1."""
    for i, grad in enumerate(grads):
        if grad is None:
            continue
        values = grad.values if isinstance(grad, tf.IndexedSlices) else grad
        factor = tf.where(condition, tf.constant(float("nan"), values.dtype),
                          tf.constant(1.0, values.dtype))
        if isinstance(grad, tf.IndexedSlices):
            grads[i] = tf.IndexedSlices(values * factor, grad.indices, grad.dense_shape)
        else:
            grads[i] = grad * factor
        return grads
    return grads
