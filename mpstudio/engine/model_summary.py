"""What a built model is: parameter count, each layer's compute/variable dtype and,
under a mixed policy, whether its matrix multiplies fit Tensor Cores."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mpstudio.engine.i18n import _
from mpstudio.engine.memory_estimate import MemoryEstimate  # a field type the codec reads
from mpstudio.engine.tensor_core_fit import layer_tensor_core_fit

if TYPE_CHECKING:
    import keras

HALF_POLICIES = ("mixed_float16", "mixed_bfloat16", "float16", "bfloat16", "float8")


@dataclass(frozen=True)
class LayerInfo:
    name: str
    kind: str  # the layer class, e.g. "Dense"
    compute_dtype: str
    variable_dtype: str
    params: int
    # Under a half-precision policy: "yes", "no: units 10 → 16", or "" (no matmul, or
    # float32 compute); defaults so summaries stored or sent before these still decode.
    tensor_cores: str = ""
    tensor_core_tip: str = ""
    quantized: str = ""  # "float8": its matmuls run Keras' float8 path (engine/float8.py)

    @property
    def compute_text(self) -> str:
        """The compute dtype as shown: "bfloat16 + float8" for a float8 layer."""
        return f"{self.compute_dtype} + {self.quantized}" if self.quantized else self.compute_dtype

    @property
    def misses_tensor_cores(self) -> bool:
        return self.tensor_cores.startswith("no")


@dataclass(frozen=True)
class ModelSummary:
    name: str
    policy: str
    params: int
    trainable_params: int
    layers: tuple[LayerInfo, ...]
    # Device memory estimates (memory_estimate.MemoryEstimate): the policy's first, then
    # float32's; empty where none was asked for (a run's own start, older pickles).
    memory: tuple[MemoryEstimate, ...] = ()
    # What mixed precision should pay on this machine's device, predicted (for_setup);
    # "" where there is no prediction.
    payoff: str = ""
    # Why a model file is shown on its own input: the data's does not fit it ("": it does)
    inputs_note: str = ""

    @property
    def output_dtype(self) -> str:
        return self.layers[-1].compute_dtype if self.layers else "float32"

    @property
    def tensor_core_misses(self) -> int:
        """How many layers compute in half precision with sizes that miss Tensor Cores."""
        return sum(1 for li in self.layers if li.misses_tensor_cores)

    def as_table(self) -> str:
        checked = any(li.tensor_cores for li in self.layers)
        rows = [(_("layer"), _("type"), _("compute"), _("variables"), _("params"))
                + ((_("Tensor Cores"),) if checked else ())]
        rows += [
            (li.name, li.kind, li.compute_text, li.variable_dtype, f"{li.params:,}")
            + ((li.tensor_cores,) if checked else ())
            for li in self.layers
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
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


def _quantized(layer: keras.layers.Layer) -> str:
    """The quantization mode of the layer or of a layer inside it (an attention block's
    EinsumDense projections), "" for none."""
    for inner in [layer, *layer._flatten_layers(include_self=False)]:
        mode = getattr(inner, "quantization_mode", None)
        if mode:
            return str(mode)
    return ""


def _tensor_cores(layer: keras.layers.Layer, batch_size: int | None) -> tuple[str, str]:
    fit = layer_tensor_core_fit(layer, batch_size)
    if fit.status == "fits":
        return "yes", fit.tip
    if fit.status == "misfit":
        return f"no: {fit.note}", fit.tip
    return "", ""


def describe_model(model: keras.Model, policy: str,
                   batch_size: int | None = None) -> ModelSummary:
    """``batch_size``: per replica, checked as the rows of the Dense and recurrent
    matrix multiplies (None: not checked). The Tensor Core column is filled only under
    a half-precision policy: under float32 nothing runs on them."""
    half = policy in HALF_POLICIES
    layers = []
    for layer in model.layers:
        tensor_cores, tip = _tensor_cores(layer, batch_size) if half else ("", "")
        layers.append(LayerInfo(
            name=layer.name,
            kind=layer_kind(layer),
            compute_dtype=_computes_in(layer),
            variable_dtype=str(layer.variable_dtype),
            params=int(layer.count_params()) if layer.built else 0,
            tensor_cores=tensor_cores,
            tensor_core_tip=tip,
            quantized=_quantized(layer),
        ))
    trainable = sum(math.prod(v.shape) for v in model.trainable_weights)
    return ModelSummary(
        name=model.name,
        policy=policy,
        params=int(model.count_params()),
        trainable_params=trainable,
        layers=tuple(layers),
    )
