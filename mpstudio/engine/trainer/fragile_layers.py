"""Layer patterns known to break in float16, found before training starts.

Each warning names the layer, why float16 hurts there and the standard fix. Only
layers computing in float16 are looked at: bfloat16 has float32's exponent range,
so nothing here overflows or flushes in it. Keras 3's Batch-, Layer-, Group- and
RMSNormalization upcast to float32 before they add epsilon (``result_type(x.dtype,
"float32")`` in keras/src/ops/nn.py and the layers), so their epsilon is never
float16's problem: only a layer that really adds it in float16 is warned about.
"""

from __future__ import annotations

import keras

from mpstudio.engine.i18n import _

FLOAT16_SMALLEST_NORMAL = 6.104e-05  # below this float16 loses precision (subnormals)


# Keras layers that compute their statistics in float32 whatever the policy.
_FLOAT32_NORMALIZERS = tuple(
    cls for cls in (getattr(keras.layers, name, None) for name in (
        "BatchNormalization", "LayerNormalization", "GroupNormalization",
        "RMSNormalization")) if cls is not None)


def _normalizes_in_float32(layer: keras.layers.Layer) -> bool:
    """A Keras normalization layer, or a subclass that kept its computation."""
    return any(isinstance(layer, cls) and type(layer).call is cls.call
               for cls in _FLOAT32_NORMALIZERS)


def _is_softmax(layer: keras.layers.Layer) -> bool:
    if isinstance(layer, keras.layers.Softmax):
        return True
    activation = getattr(layer, "activation", None)
    return getattr(activation, "__name__", "") in ("softmax", "log_softmax")


def fragile_patterns(model: keras.Model) -> list[str]:
    """Warnings for ``model``'s float16 layers, in layer order."""
    out = []
    for layer in model.layers:
        if layer.compute_dtype != "float16":
            continue
        name = _("layer '{layer}' ({type})").format(layer=layer.name, type=type(layer).__name__)
        if isinstance(layer, keras.layers.MultiHeadAttention):
            out.append(_("{layer} computes its attention scores and softmax in float16: large "
                         "scores overflow 65,504 before the softmax. If the loss turns NaN, "
                         "keep it in float32 (dtype='float32')").format(layer=name))
        elif _is_softmax(layer):
            out.append(_("{layer} computes a softmax in float16: its exponentials overflow "
                         "and its sum loses precision. The standard fix: compute the softmax "
                         "(and so the loss) in float32 (dtype='float32' on that "
                         "layer)").format(layer=name))
        epsilon = getattr(layer, "epsilon", None)
        if (isinstance(epsilon, float) and epsilon < FLOAT16_SMALLEST_NORMAL
                and not _normalizes_in_float32(layer)):
            out.append(_("{layer} adds epsilon {epsilon:g} in float16, below its smallest "
                         "normal number ({smallest:.2g}): a tiny variance divides by almost "
                         "0. Use epsilon >= 1e-3, or compute the layer in float32 "
                         "(dtype='float32')").format(layer=name, epsilon=epsilon,
                                                     smallest=FLOAT16_SMALLEST_NORMAL))
    outputs = getattr(model, "outputs", None) or []
    if any(getattr(o, "dtype", "") == "float16" for o in outputs):
        out.append(_("the model's output is float16, so the loss is computed in float16 (a "
                     "log of a tiny probability flushes to -inf). The standard fix: end the "
                     "model with a float32 layer, e.g. Activation('softmax', "
                     "dtype='float32')"))
    return out
