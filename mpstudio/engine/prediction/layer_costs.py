"""What one training step of a built Keras model asks of a device, layer by layer.

Per example (a step costs these times the batch) plus the weights' own part:

- ``flops``: the multiply-adds of matmuls and convolutions (x2), forward; the backward
  pass computes two products of the same size (the input's and the weight's gradient),
  so a step is 3x this. Attention's two batched products (scores, weighted values) and
  an LSTM's gate products over every time step are counted.
- ``bytes``: what the layer reads and writes in its compute dtype (its input and
  output; a step moves about 3x this: forward, and the gradients of both).
- ``dtype``: the dtype its arithmetic really runs in (a float32 head, a layer pinned to
  float32 and Keras' float32 normalization statistics stay float32 under a mixed policy).
- ``tensor_core_sizes``: whether its matmul dimensions are multiples of 8, which
  float16/bfloat16 Tensor Core kernels need (other sizes fall back to slower kernels).
- ``kernels``: the kernels a step launches for it (forward and backward), which bound a
  short step: each launch costs microseconds whatever its size.

Only shapes and dtypes are read: nothing is computed, nothing allocated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import keras

HALF = ("float16", "bfloat16")
_ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8,
             "int32": 4, "uint8": 1, "int8": 1, "bool": 1}


def _size(dtype: Any) -> int:
    return _ITEMSIZE.get(str(getattr(dtype, "name", dtype)), 4)


def _per_example(shape: Any) -> int:
    """Elements per example of a symbolic shape (an unknown dimension counts as 1)."""
    return math.prod(int(d) if d is not None else 1 for d in tuple(shape)[1:])


def _aligned(*sizes: int) -> bool:
    return all(int(s) % 8 == 0 for s in sizes)


@dataclass(frozen=True)
class LayerCost:
    name: str
    kind: str  # the layer's class name
    dtype: str  # what its arithmetic runs in
    flops: float  # matmul/convolution FLOPs per example, forward
    bytes: float  # bytes read and written per example, forward
    weights: int  # trainable elements
    weight_bytes: int  # trainable bytes as stored (float32 under a mixed policy)
    tensor_core_sizes: bool  # matmul dimensions multiples of 8 (True: none to speak of)
    kernels: int  # kernels launched per step, forward and backward
    width: int = 0  # the narrower side of its matmuls (units, channels, head size)
    saved: float = 0.0  # bytes per example kept for the backward pass (output, internals)
    variables: int = 0  # trainable variables (the optimizer updates each)
    float8: bool = False  # Keras' float8 quantize-dequantize path

    @property
    def half(self) -> bool:
        return self.dtype in HALF


def _output_bytes(node: Any) -> float:
    return float(sum(_per_example(t.shape) * _size(t.dtype) for t in node.output_tensors))


def _io_bytes(node: Any, dtype: str) -> float:
    tensors = list(node.input_tensors) + list(node.output_tensors)
    return float(sum(_per_example(t.shape) * _size(t.dtype)
                     for t in tensors))


def _einsum_flops(equation: str, kernel_shape: tuple[int, ...],
                  output_shape: tuple[Any, ...]) -> float:
    """2 x the product of every index's size, per example (the batch index left out)."""
    inputs, output = equation.split("->")
    left, right = inputs.split(",")
    sizes: dict[str, int] = {}
    for letter, size in zip(right, kernel_shape, strict=False):
        sizes[letter] = int(size)
    for letter, size in zip(output, output_shape, strict=False):
        if size is not None:
            sizes.setdefault(letter, int(size))
    batch = left[0]
    return 2.0 * math.prod(v for k, v in sizes.items() if k != batch)


def _matmul_layer(layer: Any, node: Any) -> tuple[float, bool, int]:
    kind = type(layer).__name__
    out_shape = tuple(node.output_tensors[0].shape)
    kernel = getattr(layer, "_kernel", None)
    if kernel is None:
        kernel = layer.kernel  # Dense, EinsumDense and the convolutions have one
    k_shape = tuple(int(d) for d in kernel.shape)
    if kind == "Dense":
        rows = _per_example(node.input_tensors[0].shape) // k_shape[0]
        return (2.0 * rows * k_shape[0] * k_shape[1], _aligned(*k_shape),
                min(k_shape))
    if kind == "EinsumDense":
        flops = _einsum_flops(layer.equation, k_shape, out_shape)
        return flops, _aligned(math.prod(k_shape[:-1]), k_shape[-1]), min(k_shape)
    # convolutions: each output element is a dot product over the kernel's window
    window = math.prod(k_shape[:-1])
    if "Depthwise" in kind:
        return 2.0 * _per_example(out_shape) * math.prod(k_shape[:-2]), True, 1
    return (2.0 * _per_example(out_shape) * window, _aligned(k_shape[-2], k_shape[-1]),
            min(window, k_shape[-1]))


# Layers whose output is a view of their input: nothing new to keep.
_VIEWS = frozenset({"Flatten", "Reshape", "Permute", "InputLayer", "Identity"})
_CONV = re.compile(r"^Conv(1D|2D|3D)(Transpose)?$|^DepthwiseConv2D$|^SeparableConv2D$")


def _leaf_layers(model: Any) -> list[tuple[Any, Any]]:
    """(layer, node) for every call of every leaf layer, nested models opened."""
    import keras

    found: list[tuple[Any, Any]] = []
    for layer in model.layers:
        if type(layer).__name__ == "InputLayer":
            continue
        if isinstance(layer, keras.Model) and hasattr(layer, "layers"):
            found += _leaf_layers(layer)
            continue
        for node in getattr(layer, "_inbound_nodes", None) or []:
            found.append((layer, node))
    return found


def _trainable(layer: Any) -> tuple[int, int]:
    weights = [w for w in layer.trainable_weights]
    count = sum(math.prod(int(d) for d in w.shape) for w in weights)
    return count, sum(math.prod(int(d) for d in w.shape) * _size(w.dtype) for w in weights)


def layer_cost(layer: Any, node: Any) -> LayerCost:
    kind = type(layer).__name__
    dtype = str(layer.compute_dtype)
    io = _io_bytes(node, dtype)
    weights, weight_bytes = _trainable(layer)
    float8 = getattr(layer, "quantization_mode", None) == "float8"
    flops, aligned, kernels, width = 0.0, True, 2, 0  # elementwise: forward, backward
    saved = 0.0 if kind in _VIEWS else _output_bytes(node)
    if kind == "Dropout":
        saved *= 2  # and its mask
    if kind in ("Dense", "EinsumDense") or _CONV.match(kind):
        flops, aligned, width = _matmul_layer(layer, node)
        kernels = 4  # product, bias; two gradient products, the bias gradient's sum
        activation = getattr(getattr(layer, "activation", None), "__name__", "linear")
        if activation not in ("linear", "relu"):  # its gradient reads its input too
            saved *= 2
    elif kind == "MultiHeadAttention":
        flops, aligned, kernels, io, internals = _attention(layer, node, dtype)
        width = int(layer._key_dim)
        saved += internals  # projections, scores, probabilities
    elif kind in ("LSTM", "GRU", "SimpleRNN"):
        flops, aligned, kernels, io = _recurrent(layer, node, dtype)
        width = int(layer.cell.units)
        saved += io  # every time step's gates and states
    elif kind in ("BatchNormalization", "LayerNormalization", "GroupNormalization"):
        kernels, dtype = 4, "float32"  # statistics and gradients computed in float32
    return LayerCost(getattr(layer, "path", None) or layer.name, kind, dtype,
                     flops, io, weights, weight_bytes, aligned, kernels, width, saved,
                     len(layer.trainable_weights), float8)


def _attention(layer: Any, node: Any, dtype: str) -> tuple[float, bool, int, float, float]:
    """The four projections and the two batched products over (tokens x tokens)."""
    query = node.input_tensors[0]
    tokens = int(query.shape[1]) if query.shape[1] is not None else 1
    heads, key_dim = int(layer._num_heads), int(layer._key_dim)
    value_dim = int(layer._value_dim or key_dim)
    flops = 0.0
    for dense in (layer._query_dense, layer._key_dense, layer._value_dense,
                  layer._output_dense):
        shape = tuple(int(d) for d in dense.kernel.shape)
        flops += 2.0 * tokens * math.prod(shape)
    model_dim = int(tuple(query.shape)[-1])
    aligned = _aligned(model_dim, heads * key_dim, heads * value_dim)
    flops += 2.0 * heads * tokens * tokens * (key_dim + value_dim)
    # Keras' attention (TensorFlow's backend) takes the softmax in float32 under any
    # policy: a half model keeps its scores in the half type and in float32, and the
    # float32 probabilities and their half copy (12 bytes an entry; float32: 8)
    # (XLA fuses the casts into the softmax: the traffic stays the compute dtype's)
    size = _size(dtype)
    entries = heads * tokens * tokens
    kept = entries * (2 * size + (8 if size < 4 else 0))
    projections = tokens * heads * (2 * key_dim + 2 * value_dim) * size
    # projections (4 x 4 kernels), scores, softmax, weighted sum and their gradients
    return (flops, aligned, 26, _io_bytes(node, dtype) + projections + 3 * entries * size,
            projections + kept)


def _recurrent(layer: Any, node: Any, dtype: str) -> tuple[float, bool, int, float]:
    """Every time step multiplies the input and the state by the gate kernels."""
    cell = layer.cell
    units = int(cell.units)
    inputs = node.input_tensors[0]
    steps = int(inputs.shape[1]) if inputs.shape[1] is not None else 1
    features = int(inputs.shape[-1])
    gates = int(cell.kernel.shape[-1])
    flops = 2.0 * steps * (features + units) * gates
    io = steps * (features + gates + 3 * units) * _size(dtype)
    # a loop of steps: a few kernels each, forward and backward (cuDNN fuses them on a GPU)
    return flops, _aligned(features, units), 8 * steps, float(io)


def model_costs(model: keras.Model) -> list[LayerCost]:
    """Each leaf layer's cost, in the model's order (the input layer left out)."""
    return [layer_cost(layer, node) for layer, node in _leaf_layers(model)]


def input_bytes(model: keras.Model) -> int:
    """One example of the model's inputs as they arrive (uint8 images stay uint8)."""
    return sum(_per_example(t.shape) * _size(t.dtype) for t in model.inputs)
