"""A template's input: float inputs as they come, or stored uint8 images that the
model scales itself.

Images stay uint8 from the disk to the device (a quarter of float32's bytes over
PCIe) and the model's first layer, ``input_scaling``, multiplies them by
1/divisor. It computes in float32 under every policy, exactly what the input
pipeline computed on the host before, so the next layer casts the same float32
values to the policy's dtype: the numbers do not change. (Under the policy itself
the scale would be rounded first: bfloat16 holds 1/255 as about 1/254, which
moves every input by 0.4% and merges two of the 256 levels.)

``build_model`` asks for the scaling with ``input_scaling(scale)`` around the
builder, as it sets the policy with ``policy_scope``; a builder takes its input
from ``model_input``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import keras
import numpy as np

SCALING_LAYER = "input_scaling"
SCALING_DTYPE = "float32"
STORED_DTYPE = "uint8"

_INPUT_SCALE: ContextVar[float | None] = ContextVar("mpstudio_input_scale", default=None)


@contextmanager
def input_scaling(scale: float | None) -> Iterator[None]:
    """Models built inside take uint8 inputs and multiply them by ``scale`` (None: float
    inputs, used as they come)."""
    token = _INPUT_SCALE.set(scale)
    try:
        yield
    finally:
        _INPUT_SCALE.reset(token)


def model_input(input_shape: tuple[int, ...]) -> tuple[keras.KerasTensor, keras.KerasTensor]:
    """(the model's Input, the tensor the template's layers start from)."""
    scale = _INPUT_SCALE.get()
    if scale is None:
        inputs = keras.Input(input_shape, name="inputs")
        return inputs, inputs
    inputs = keras.Input(input_shape, dtype=STORED_DTYPE, name="inputs")
    scaled = keras.layers.Rescaling(scale, dtype=SCALING_DTYPE, name=SCALING_LAYER)(inputs)
    return inputs, scaled


def input_scaling_layer(model: keras.Model) -> keras.layers.Rescaling | None:
    """The model's own input scaling, when it takes stored uint8 images; None when it
    takes float inputs (every model trained before images stayed uint8)."""
    if len(model.inputs) != 1 or model.inputs[0].dtype != STORED_DTYPE:
        return None
    for layer in model.layers:
        if layer.name == SCALING_LAYER and isinstance(layer, keras.layers.Rescaling):
            return layer
    return None


def input_scale_of(model: keras.Model) -> float | None:
    layer = input_scaling_layer(model)
    return None if layer is None else float(layer.scale)


def scale_on_host(x: np.ndarray, scale: float) -> np.ndarray:
    """What ``input_scaling`` computes, in numpy: float32(x) x float32(scale), the same
    IEEE float32 product (for a model trained on floats, and for exports)."""
    return x.astype(np.float32) * np.float32(scale)


def without_input_scaling(model: keras.Model) -> keras.Model:
    """The model from its input scaling's output on: it takes the float inputs the
    scaling makes (in [0, 1]), as models did before. The model itself when it has none."""
    layer = input_scaling_layer(model)
    if layer is None:
        return model
    return keras.Model(layer.output, model.output, name=model.name)
