"""Layers pinned to float32 inside a mixed-precision model.

A mixed_float16 model whose diagnosis names one layer that overflows float16 can keep
that layer (and, if the overflow moves on, its neighbours) in float32 while every other
layer stays in half precision. Keras 3 lets a built layer take a new policy:
``layer.dtype_policy = "float32"`` changes its compute dtype only, since a mixed
policy's variables are float32 already, so the weights (and their hash) stay exactly
as built. Keras casts each layer's floating inputs to its own compute dtype, so the
layer after a pinned one gets float16 again. Pinning the built model, rather than
rebuilding from its config, works for every template and for a model loaded from a
.keras file, including layers that cannot be rebuilt from their config.
"""

from __future__ import annotations

from collections.abc import Sequence

import keras

from mpstudio.engine.i18n import _
from mpstudio.engine.spec import SpecError

PINNED_DTYPE = "float32"


def layer_names(model: keras.Model) -> list[str]:
    """The names a run can pin: the model's layers, its input left out."""
    return [layer.name for layer in model.layers
            if not isinstance(layer, keras.layers.InputLayer)]


def unknown_layer_problems(model: keras.Model, names: Sequence[str]) -> list[str]:
    """One sentence per pinned name the model has no layer for, naming its layers."""
    known = layer_names(model)
    return [_("float32 layer {name!r} is not a layer of this model; its layers: "
              "{layers}").format(name=name, layers=", ".join(known))
            for name in names if name not in known]


def pin_float32(model: keras.Model, names: Sequence[str]) -> keras.Model:
    """Make the layers ``names`` (and the layers inside them, e.g. an attention block's
    projections) compute in float32. SpecError naming the model's layers for a name it
    does not have. Returns ``model``."""
    if not names:
        return model
    problems = unknown_layer_problems(model, names)
    if problems:
        raise SpecError(problems)
    for name in names:
        set_policy(model.get_layer(name), PINNED_DTYPE)
    return model


def set_policy(layer: keras.layers.Layer, policy: str) -> None:
    """``layer`` and the layers inside it (an attention block's projections, a nested
    model's layers) compute under ``policy`` from now on; their variables stay as built."""
    for inner in [layer, *layer._flatten_layers(include_self=False)]:
        inner.dtype_policy = policy
