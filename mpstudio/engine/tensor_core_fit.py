"""Whether a layer's matrix multiplies can run on NVIDIA Tensor Cores, read from the
sizes of a built Keras model (no GPU needed), and the change that would let them.

What this relies on (NVIDIA, "Deep Learning Performance" guide, "Tensor Core
Requirements" and the fully-connected / convolutional / recurrent layer sections,
https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/
and https://developer.nvidia.com/blog/optimizing-gpu-performance-tensor-cores/):

- float16/bfloat16 GEMMs and convolutions use Tensor Cores when their dimensions are
  multiples of 8 (16 bytes of 2-byte values). Older cuBLAS/cuDNN fall back to CUDA
  cores otherwise; newer ones still use Tensor Cores but pad, and lose speed.
- Fully connected: batch (M), units (N) and input features (K) multiples of 8.
- Convolution: input channels (C) and filters (K) multiples of 8; the batch and the
  pixels together form M, so the batch alone does not matter there.
- Recurrent: hidden units and minibatch multiples of 8 (an LSTM's gate GEMM is
  4 x units wide, a GRU's 3 x units, and units is the K of the recurrent GEMM).
- Attention: each head multiplies over key_dim (Q.K^T) and gives value_dim (.V), so
  both per-head sizes multiples of 8, which makes num_heads x key_dim one as well.
- Embedding: a lookup, not a GEMM; its output width is the K of every layer after it.

A float32 layer (the output head keeps the softmax and loss in float32 on purpose)
and layers that are no GEMM (pooling, normalization, depthwise convolution) are n/a.
No TensorFlow import here: the window imports this module through model_summary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from mpstudio.engine.i18n import N_, _

ALIGN = 8  # float16/bfloat16: 8 values = 16 bytes
HALF_DTYPES = ("float16", "bfloat16")
SMALL_INPUT_CHANNELS = 4  # an image's own channels (grey, RGB, RGBA), not a learned width

Status = Literal["fits", "misfit", "n/a"]

REQUIREMENT = N_("Tensor Cores run float16/bfloat16 matrix multiplies whose sizes are "
                 "multiples of 8 (NVIDIA, Deep Learning Performance guide); otherwise older "
                 "cuBLAS/cuDNN fall back to CUDA cores and newer ones pad, losing speed.")


@dataclass(frozen=True)
class TensorCoreFit:
    status: Status
    note: str = ""  # short, for a table cell: "units 10 → 16, batch 100 → 104"
    tip: str = ""  # longer, for a tooltip: the rule, and how to apply each fix


@dataclass(frozen=True)
class _Dim:
    label: str  # as the note says it: "units", "input channels" (in the language in force)
    value: int
    advice: str = ""  # how to change it, for the tip; "{to}" is the fixed size
    times: int = 1  # the GEMM size is value x times (the batch: x a sequence's length)

    @property
    def fits(self) -> bool:
        return (self.value * self.times) % ALIGN == 0


def aligned(n: int) -> int:
    """The next multiple of 8 at or above ``n``."""
    return -(-n // ALIGN) * ALIGN


def batch_fit(batch_size: int) -> str:
    """"" when the batch suits Tensor Cores (or is unknown), else "batch 100 → 104"."""
    if batch_size <= 0 or batch_size % ALIGN == 0:
        return ""
    return _("batch {size} → {to}").format(size=batch_size, to=aligned(batch_size))


def layer_tensor_core_fit(layer: Any, batch_size: int | None = None) -> TensorCoreFit:
    """The Tensor Core fit of one layer of a built model; ``batch_size`` per replica
    (None: the batch is not checked)."""
    if str(getattr(layer, "compute_dtype", "")) not in HALF_DTYPES:
        return TensorCoreFit("n/a")
    try:
        dims = _dims(layer, batch_size)
    except (AttributeError, IndexError, TypeError, ValueError):
        # A custom layer shaped unlike its Keras base: a preview must not fail on it.
        return TensorCoreFit("n/a")
    if dims is None:
        return TensorCoreFit("n/a")
    misses = [d for d in dims if not d.fits]
    if not misses:
        sizes = _(", ").join(_size_text(d) for d in dims)
        return TensorCoreFit("fits", "", _("Tensor Cores: {sizes}, all multiples of 8.").format(
            sizes=sizes))
    note = _(", ").join(_("{label} {size} → {to}").format(
        label=d.label, size=d.value, to=aligned(d.value)) for d in misses)
    fixes = "\n".join(_("• {label} {size} → {to}: {advice}").format(
        label=d.label, size=d.value, to=aligned(d.value),
        advice=d.advice.format(to=aligned(d.value))) for d in misses)
    return TensorCoreFit("misfit", note, _(REQUIREMENT) + "\n" + fixes)


def _size_text(d: _Dim) -> str:
    """"units 16", or for the batch "batch 64 (x 10 = 640 rows)"."""
    if d.times > 1:
        return _("{label} {size} (x {times} = {rows} rows)").format(
            label=d.label, size=d.value, times=d.times, rows=d.value * d.times)
    return _("{label} {size}").format(label=d.label, size=d.value)


def _kinds(layer: Any) -> set[str]:
    # Class names up the hierarchy, so subclasses count and keras is never imported.
    return {cls.__name__ for cls in type(layer).__mro__}


def _dims(layer: Any, batch: int | None) -> list[_Dim] | None:
    kinds = _kinds(layer)
    if "Bidirectional" in kinds:
        return _dims(layer.forward_layer, batch)
    if "TimeDistributed" in kinds:
        return _dims(layer.layer, None)  # rows are batch x time: the batch alone is no M
    if "Dense" in kinds:
        return [_units(layer.units, head=True), _features(int(layer.kernel.shape[0])),
                *_batch_rows(batch, _middle(layer))]
    if kinds & {"LSTM", "GRU", "SimpleRNN"}:
        return [_units(layer.units), _features(int(layer.cell.kernel.shape[0])),
                *_batch_rows(batch, 1)]
    if "BaseDepthwiseConv" in kinds:
        return None  # one filter per channel: no channel GEMM to speak of
    if "BaseSeparableConv" in kinds:
        # The pointwise 1x1 convolution does the GEMM; the depthwise part is n/a.
        return [_channels(int(layer.pointwise_kernel.shape[-2])), _filters(layer.filters)]
    if "BaseConvTranspose" in kinds:
        return [_channels(int(layer.kernel.shape[-1])), _filters(layer.filters)]
    if "BaseConv" in kinds:
        groups = int(getattr(layer, "groups", 1) or 1)
        if groups > 1:  # kernel (..., C / groups, filters): each group multiplies apart
            return [_Dim(_("input channels per group"), int(layer.kernel.shape[-2]),
                         _("use {to} channels per group (fewer groups, or more channels)")),
                    _Dim(_("filters per group"), int(layer.filters) // groups,
                         _("use {to} filters per group"))]
        return [_channels(int(layer.kernel.shape[-2])), _filters(layer.filters)]
    if "Embedding" in kinds:
        return [_Dim(_("output dim"), int(layer.output_dim),
                     _("the width every later layer multiplies over: use {to}"))]
    if "MultiHeadAttention" in kinds:
        heads = int(layer.num_heads)
        return [_Dim("key_dim", int(layer.key_dim),
                     # {to} is filled later (the fixed size): keep it as it is
                     _("per head; use key_dim {{to}} (with {heads} heads the projections "
                       "become num_heads × key_dim wide)").format(heads=heads)),
                _Dim("value_dim", int(layer.value_dim), _("per head; use value_dim {to}"))]
    return None


def _units(units: int, head: bool = False) -> _Dim:
    if head:  # the logits of a classifier are a Dense layer too
        advice = _("give the layer {to} units; an output layer of classes can take {to} (the "
                   "extra classes are never a label), or leave it: a small head is a small "
                   "share of the step")
    else:
        advice = _("give the layer {to} units")
    return _Dim(_("units"), int(units), advice)


def _features(features: int) -> _Dim:
    return _Dim(_("input features"), features,
                _("the width of what comes in: widen the layer before to {to}, or pad the "
                  "data's features with zeros"))


def _channels(channels: int) -> _Dim:
    if channels <= SMALL_INPUT_CHANNELS:
        return _Dim(_("input channels"), channels,
                    _("the image's own channels: pad the input with zero channels to {to}, "
                      "or leave it: the first convolution is a small share of the work"))
    return _Dim(_("input channels"), channels, _("give the layer before {to} filters"))


def _filters(filters: int) -> _Dim:
    return _Dim(_("filters"), int(filters), _("use {to} filters"))


def _middle(layer: Any) -> int | None:
    """The product of the input's sizes between batch and features (a sequence's
    length): the GEMM's rows are batch x that. None when unknown."""
    try:
        shape = tuple(layer.input.shape)
    except (AttributeError, ValueError):  # a shared layer has no single input
        return None
    middle = shape[1:-1]
    return None if any(s is None for s in middle) else math.prod(middle)


def _batch_rows(batch: int | None, per_example: int | None) -> list[_Dim]:
    """The batch as the GEMM's M (rows: batch x per_example), when known."""
    if not batch or per_example is None:
        return []
    return [_Dim(_("batch"), batch,
                 _("the per-device batch is the rows of this layer's matrix multiply: "
                   "use {to} (and scale the learning rate with it)"), per_example)]
