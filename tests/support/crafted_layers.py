"""Crafted layers and template builders that recreate GPU-only conditions on the CPU.

``OverflowOnReplica`` passes its input through unchanged, and on the backward pass
turns the gradient into inf on one replica of a tf.distribute strategy: what a
float16 overflow of a scaled gradient looks like on one GPU of several (a replica
whose batch happened to hold the large values). Builders follow the template
signature ``(input_shape, num_classes) -> keras.Model`` so a test can register them
as templates and train them through the real run path.
"""

from __future__ import annotations

import keras
import tensorflow as tf

from mpstudio.engine.templates.model_input import model_input
from mpstudio.engine.templates.registry import FLAT, IMAGE, SEQUENCE, TemplateEntry


class OverflowOnReplica(keras.layers.Layer):
    def __init__(self, replica: int, **kwargs):
        super().__init__(**kwargs)
        self.replica = replica

    def call(self, inputs):
        replica = self.replica

        @tf.custom_gradient
        def identity(x):
            def grad(dy):
                here = tf.distribute.get_replica_context().replica_id_in_sync_group
                inf = tf.fill(tf.shape(dy), tf.constant(float("inf"), dy.dtype))
                return tf.where(tf.equal(here, replica), inf, dy)

            return tf.identity(x), grad

        return identity(inputs)


def _dense_with_overflow(input_shape, num_classes: int, replica: int | None) -> keras.Model:
    inputs, x = model_input(input_shape)  # uint8 images scaled by the model, as templates do
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(16, activation="relu", name="hidden")(x)
    if replica is not None:
        x = OverflowOnReplica(replica, name=f"overflow_on_replica_{replica}")(x)
    x = keras.layers.Dense(num_classes, name="logits")(x)
    outputs = keras.layers.Activation("softmax", dtype="float32", name="softmax")(x)
    return keras.Model(inputs, outputs)


def overflow_on_replica_0(input_shape, num_classes: int) -> keras.Model:
    return _dense_with_overflow(input_shape, num_classes, 0)


def overflow_on_replica_1(input_shape, num_classes: int) -> keras.Model:
    return _dense_with_overflow(input_shape, num_classes, 1)


def no_overflow(input_shape, num_classes: int) -> keras.Model:
    return _dense_with_overflow(input_shape, num_classes, None)


def crafted_templates() -> list[TemplateEntry]:
    """Template entries for the builders above (``support.crafted_layers`` must be importable)."""
    kinds = frozenset({IMAGE, SEQUENCE, FLAT})
    return [TemplateEntry(name, f"crafted: {name}", f"support.crafted_layers:{name}", kinds)
            for name in ("overflow_on_replica_0", "overflow_on_replica_1", "no_overflow")]


def boost_overflow(input_shape, num_classes: int) -> keras.Model:
    """A layer that multiplies by a huge constant (far above float16's 65,504) and the
    next one that divides it back: finite in float32, inf from the first under float16;
    with the first kept in float32 the overflow moves on to the second (its neighbour)."""
    inputs, x = model_input(input_shape)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(16, activation="tanh", name="hidden")(x)
    x = keras.layers.Rescaling(1e6, name="boost")(x)
    x = keras.layers.Rescaling(1e-6, name="unboost")(x)
    x = keras.layers.Dense(num_classes, name="logits")(x)
    outputs = keras.layers.Activation("softmax", dtype="float32", name="softmax")(x)
    return keras.Model(inputs, outputs)


def diagnosed_boost(step: int = 7):
    """The numerics diagnosis of an 8 -> 16 -> x1e6 ("boost") -> 3 model under
    mixed_float16 at ``step``, with a loss scale of 32768, on one batch of 16: its
    "boost" layer overflows float16 from finite inputs. Returns (model, batch, found)."""
    import numpy as np

    from mpstudio.engine.precision import policy_scope
    from mpstudio.engine.trainer.numerics import diagnose

    with policy_scope("mixed_float16"):
        inputs = keras.Input((8,))
        x = keras.layers.Dense(16, name="hidden")(inputs)
        x = keras.layers.Rescaling(1e6, name="boost")(x)  # far above float16's 65,504
        x = keras.layers.Dense(3, name="logits")(x)
        outputs = keras.layers.Activation("softmax", dtype="float32")(x)
        model = keras.Model(inputs, outputs)
    x = np.random.default_rng(0).normal(size=(16, 8)).astype("float32")
    y = np.arange(16) % 3
    found = diagnose(model, [(x, y)], keras.losses.SparseCategoricalCrossentropy(),
                     32768.0, step=step)
    return model, x, found


def boost_template() -> TemplateEntry:
    return TemplateEntry("boost_overflow", "crafted: boost_overflow",
                         "support.crafted_layers:boost_overflow",
                         frozenset({IMAGE, SEQUENCE, FLAT}))


class HideNonFinite(keras.layers.Layer):
    """Its input with every non-finite value replaced by 0, and no gradient through
    those: the layer after a poisoned Dense keeps the loss finite on every CPU. (Some
    CPUs' oneDNN kernels fuse MatMul+BiasAdd+ReLU into one op that returns 0 for NaN
    weights, which hid them from the loss; others return NaN. The condition is made
    here, not left to one CPU's kernels.)"""

    def call(self, inputs):
        return tf.where(tf.math.is_finite(inputs), inputs, tf.zeros_like(inputs))


def nan_hiding_mlp(input_shape, num_classes: int) -> keras.Model:
    """The mlp template's shape (Dense(1024, relu) named dense_1024, then the classes),
    with a HideNonFinite after the hidden layer: NaN weights there never reach the loss."""
    inputs, x = model_input(input_shape)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(1024, activation="relu", name="dense_1024")(x)
    x = HideNonFinite(name="hide_non_finite")(x)
    x = keras.layers.Dense(num_classes, name="logits")(x)
    outputs = keras.layers.Activation("softmax", dtype="float32", name="softmax")(x)
    return keras.Model(inputs, outputs)


def nan_hiding_template() -> TemplateEntry:
    return TemplateEntry("nan_hiding_mlp", "crafted: nan_hiding_mlp",
                         "support.crafted_layers:nan_hiding_mlp",
                         frozenset({IMAGE, SEQUENCE, FLAT}))


class NaNKernelAt(keras.callbacks.Callback):
    """At the start of training step ``step`` (counted from 1 over the whole run), set
    the kernel of the Dense layer ``layer`` to NaN: what a bad update leaves behind.
    ``replica``: only that replica's copy of the mirrored kernel (under a
    tf.distribute strategy), as when the copies of a variable drift apart. Behind
    nan_hiding_mlp's HideNonFinite the loss stays finite, on any CPU."""

    def __init__(self, step: int, layer: str, replica: int | None = None):
        super().__init__()
        self.step, self.layer, self.replica = step, layer, replica
        self.steps = 0
        self.done = False

    def on_train_batch_begin(self, batch, logs=None):
        self.steps += 1
        if self.steps != self.step:
            return
        kernel = self.model.get_layer(self.layer).kernel
        nan = tf.fill(kernel.shape, tf.constant(float("nan"), kernel.dtype))
        if self.replica is None:
            kernel.assign(nan)
        else:
            kernel.value.values[self.replica].assign(nan)
        self.done = True
