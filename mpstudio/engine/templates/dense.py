"""Fully connected templates. Widths are multiples of 8 so float16 matmuls map to Tensor Cores."""

from __future__ import annotations

import keras
from keras import layers

from mpstudio.engine.templates.model_input import model_input

# BatchNormalization's moving statistics (what validation and inference use) follow the
# training batches with this momentum. Keras' 0.99 averages over ~100 steps and, in a
# 30-50 step demo, keeps most of its initial mean 0 / variance 1: validation accuracy
# then falls while training accuracy climbs. 0.9 (PyTorch's default, momentum 0.1
# there) follows within ~20 steps and costs long runs nothing measurable.
BATCH_NORM_MOMENTUM = 0.9


def batch_norm(name: str) -> layers.BatchNormalization:
    return layers.BatchNormalization(momentum=BATCH_NORM_MOMENTUM, name=name)


def float32_head(x, num_classes: int):
    """Logits in the policy's dtype, then a float32 softmax."""
    # The logits layer runs in the policy's dtype; the softmax (and so the loss) in float32.
    x = layers.Dense(num_classes, name="logits")(x)
    return layers.Activation("softmax", dtype="float32", name="probabilities")(x)


def build_mlp(input_shape: tuple[int, ...], num_classes: int) -> keras.Model:
    inputs, x = model_input(input_shape)
    x = layers.Flatten(name="flatten")(x)
    x = layers.Dense(1024, activation="relu", name="dense_1024")(x)
    return keras.Model(inputs, float32_head(x, num_classes), name="mlp")


def build_mlp_bn(input_shape: tuple[int, ...], num_classes: int) -> keras.Model:
    inputs, x = model_input(input_shape)
    x = layers.Flatten(name="flatten")(x)
    for width in (512, 256):
        x = layers.Dense(width, use_bias=False, name=f"dense_{width}")(x)
        x = batch_norm(f"bn_{width}")(x)
        x = layers.Activation("relu", name=f"relu_{width}")(x)
        x = layers.Dropout(0.2, name=f"dropout_{width}")(x)
    return keras.Model(inputs, float32_head(x, num_classes), name="mlp_bn")

