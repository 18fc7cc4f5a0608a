"""What a built model is: parameter count and each layer's compute/variable dtype."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras


@dataclass(frozen=True)
class LayerInfo:
    name: str
    kind: str  # the layer class, e.g. "Dense"
    compute_dtype: str
    variable_dtype: str
    params: int


@dataclass(frozen=True)
class ModelSummary:
    name: str
    policy: str
    params: int
    trainable_params: int
    layers: tuple[LayerInfo, ...]

    @property
    def output_dtype(self) -> str:
        return self.layers[-1].compute_dtype if self.layers else "float32"

    def as_table(self) -> str:
        rows = [("layer", "type", "compute", "variables", "params")]
        rows += [
            (li.name, li.kind, li.compute_dtype, li.variable_dtype, f"{li.params:,}")
            for li in self.layers
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = ("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
        return "\n".join(lines)


def layer_kind(layer: keras.layers.Layer) -> str:
    """The layer's class; a Rescaling says by what ("Rescaling 1/16": the input scaling
    of uint8 images)."""
    kind = type(layer).__name__
    scale = getattr(layer, "scale", None) if kind == "Rescaling" else None
    if not isinstance(scale, (int, float)) or not scale:
        return kind
    divisor = 1.0 / scale
    return f"{kind} 1/{divisor:g}" if abs(divisor - round(divisor)) < 1e-6 else f"{kind} x{scale:g}"


def _computes_in(layer: keras.layers.Layer) -> str:
    """The layer's compute dtype; for the input, the dtype the data arrives in (uint8
    images, float32 features): an InputLayer computes nothing, and Keras gives it the
    policy's compute dtype all the same."""
    if type(layer).__name__ == "InputLayer":
        return str(layer.dtype)
    return str(layer.compute_dtype)


def describe_model(model: keras.Model, policy: str) -> ModelSummary:
    layers = tuple(
        LayerInfo(
            name=layer.name,
            kind=layer_kind(layer),
            compute_dtype=_computes_in(layer),
            variable_dtype=str(layer.variable_dtype),
            params=int(layer.count_params()) if layer.built else 0,
        )
        for layer in model.layers
    )
    trainable = sum(math.prod(v.shape) for v in model.trainable_weights)
    return ModelSummary(
        name=model.name,
        policy=policy,
        params=int(model.count_params()),
        trainable_params=trainable,
        layers=layers,
    )
