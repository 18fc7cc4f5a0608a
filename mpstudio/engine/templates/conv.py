"""Convolutional templates for HxWxC images (or HxW, given a channel axis).

Channel counts are multiples of 8 (Tensor Core friendly under float16). Pooling
uses 'same' padding so tiny images such as the 8x8 digits never shrink to zero.
"""

from __future__ import annotations

import keras
from keras import layers

from mpstudio.engine.templates.dense import batch_norm, float32_head
from mpstudio.engine.templates.model_input import model_input


def _image_input(input_shape: tuple[int, ...]):
    inputs, x = model_input(input_shape)
    if len(input_shape) == 2:  # HxW: add the channel axis
        x = layers.Reshape((*input_shape, 1), name="add_channel")(x)
    return inputs, x


def _conv_bn_relu(x, filters: int, name: str, strides: int = 1, relu: bool = True):
    x = layers.Conv2D(
        filters, 3, strides=strides, padding="same", use_bias=False, name=f"{name}_conv"
    )(x)
    x = batch_norm(f"{name}_bn")(x)
    return layers.Activation("relu", name=f"{name}_relu")(x) if relu else x


def build_cnn(input_shape: tuple[int, ...], num_classes: int) -> keras.Model:
    inputs, x = _image_input(input_shape)
    for block, filters in enumerate((32, 64), start=1):
        x = _conv_bn_relu(x, filters, f"block{block}a")
        x = _conv_bn_relu(x, filters, f"block{block}b")
        x = layers.MaxPooling2D(2, padding="same", name=f"block{block}_pool")(x)
        x = layers.Dropout(0.25, name=f"block{block}_dropout")(x)
    x = layers.Flatten(name="flatten")(x)
    x = layers.Dense(512, activation="relu", name="dense_512")(x)
    x = layers.Dropout(0.5, name="dropout_512")(x)
    return keras.Model(inputs, float32_head(x, num_classes), name="cnn")


def _residual_block(x, filters: int, strides: int, name: str):
    shortcut = x
    y = _conv_bn_relu(x, filters, f"{name}_1", strides=strides)
    y = _conv_bn_relu(y, filters, f"{name}_2", relu=False)
    if strides != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(
            filters, 1, strides=strides, use_bias=False, name=f"{name}_proj_conv"
        )(shortcut)
        shortcut = batch_norm(f"{name}_proj_bn")(shortcut)
    y = layers.Add(name=f"{name}_add")([y, shortcut])
    return layers.Activation("relu", name=f"{name}_out")(y)


def build_resnet(input_shape: tuple[int, ...], num_classes: int) -> keras.Model:
    inputs, x = _image_input(input_shape)
    x = _conv_bn_relu(x, 16, "stem")
    for stage, filters in enumerate((16, 32, 64), start=1):
        for block in (1, 2):
            strides = 2 if stage > 1 and block == 1 else 1
            x = _residual_block(x, filters, strides, f"stage{stage}_block{block}")
    x = layers.GlobalAveragePooling2D(name="pool")(x)
    return keras.Model(inputs, float32_head(x, num_classes), name="resnet")
