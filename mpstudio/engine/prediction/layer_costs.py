"""What one training step of a built Keras model asks of a device, layer by layer.

A step runs each layer forward, then backward; what a layer costs is a list of work,
every size per example (a step is these times the batch, but for the weights):

- ``gemms``: its matrix products, the forward one and, backward, the input's gradient
  (only where the input needs one: never for the layer that reads the data) and the
  weight's gradient, each with its (M, N, K) and the bytes it reads and writes
  (``gemm_work``). Convolutions are implicit GEMMs: M the output pixels, N the output
  channels, K the window times the input channels.
- ``elementwise``: the bytes its other kernels read and write over the step
  (normalisations, activations, residual adds, pooling, padding, softmax), as TensorFlow
  runs them one kernel each, and ``fused``: the same where XLA fuses a chain of them
  into one kernel (a BatchNormalization and the ReLU after it read and write the tensor
  once, not twice).
- ``dtype``: the dtype its arithmetic runs in, and every tensor's bytes are counted in
  the dtype it is really stored in (a float32 head, a layer pinned to float32, Keras'
  float32 normalisation statistics, and a model file whose layers were given the run's
  policy after it was built: the graph's symbolic dtypes are then stale, so each
  tensor's dtype is taken from the layer that makes it).

Only shapes and dtypes are read: nothing is computed, nothing allocated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mpstudio.engine.prediction.gemm_work import Gemm, conv_gemms, matmul_gemms

if TYPE_CHECKING:
    import keras

HALF = ("float16", "bfloat16")
_ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8,
             "int32": 4, "uint8": 1, "int8": 1, "bool": 1}


def itemsize(dtype: Any) -> int:
    return _ITEMSIZE.get(str(getattr(dtype, "name", dtype)), 4)


def _per_example(shape: Any) -> int:
    """Elements per example of a symbolic shape (an unknown dimension counts as 1)."""
    return math.prod(int(d) if d is not None else 1 for d in tuple(shape)[1:])


# Multiplications a Winograd transform saves, by window, over 2x2 output tiles (cuDNN's
# F(2x2, 3x3) and F(2x2, 5x5) on CUDA cores): 2*2*9 / (4*4) and 2*2*25 / (6*6).
WINOGRAD: dict[tuple[int, ...], float] = {(3, 3): 36 / 16, (5, 5): 100 / 36}


def _aligned(*sizes: int) -> bool:
    return all(int(s) % 8 == 0 for s in sizes)


@dataclass(frozen=True)
class LayerCost:
    name: str
    kind: str  # the layer's class name
    dtype: str  # what its arithmetic runs in
    flops: float  # matmul/convolution FLOPs per example, forward
    bytes: float  # bytes its forward pass reads and writes per example (its tensors)
    weights: int  # trainable elements
    weight_bytes: int  # trainable bytes as stored (float32 under a mixed policy)
    tensor_core_sizes: bool  # matmul dimensions multiples of 8 (True: none to speak of)
    kernels: int  # kernels launched per step, forward and backward
    saved: float = 0.0  # bytes per example kept for the backward pass (output, internals)
    variables: int = 0  # trainable variables (the optimizer updates each)
    float8: bool = False  # Keras' float8 quantize-dequantize path
    gemms: tuple[Gemm, ...] = ()  # the step's matrix products
    elementwise: float = 0.0  # bytes per example of its other kernels, one kernel each
    fused: float = 0.0  # the same where XLA fuses chains of elementwise kernels
    depthwise_flops: float = 0.0  # per example, forward: a depthwise convolution's
    tensor_dtype: str = "float32"  # what its output is stored in


    @property
    def half(self) -> bool:
        return self.dtype in HALF


# Layers whose output is a view of their input: nothing new to keep, no kernel.
_VIEWS = frozenset({"Flatten", "Reshape", "InputLayer", "Identity", "Masking"})
_CONV = re.compile(r"^Conv(1D|2D|3D)(Transpose)?$|^SeparableConv(1D|2D)$|^DepthwiseConv(1D|2D)$")
_NORMS = frozenset({"BatchNormalization", "LayerNormalization", "GroupNormalization",
                    "RMSNormalization", "UnitNormalization"})
_MERGES = frozenset({"Add", "Subtract", "Average", "Maximum", "Minimum", "Multiply"})
# Elementwise layers XLA fuses into one kernel with the elementwise layer before them.
_FUSIBLE = frozenset({"Activation", "ReLU", "LeakyReLU", "ELU", "PReLU", "Softmax",
                      "Dropout", "Rescaling", "Add", "Subtract", "Multiply", "Average",
                      "Maximum", "Minimum", "Normalization", "SpatialDropout2D",
                      "GaussianNoise", "ActivityRegularization"}) | _NORMS


def _leaf_nodes(model: Any) -> list[tuple[Any, Any]]:
    """(layer, node) for every call of every leaf layer, nested models opened."""
    import keras

    found: list[tuple[Any, Any]] = []
    for layer in model.layers:
        if type(layer).__name__ == "InputLayer":
            continue
        if isinstance(layer, keras.Model) and hasattr(layer, "layers"):
            found += _leaf_nodes(layer)
            continue
        for node in getattr(layer, "_inbound_nodes", None) or []:
            found.append((layer, node))
    return found


def _trainable(layer: Any) -> tuple[int, int]:
    weights = list(layer.trainable_weights)
    count = sum(math.prod(int(d) for d in w.shape) for w in weights)
    return count, sum(math.prod(int(d) for d in w.shape) * itemsize(w.dtype) for w in weights)


@dataclass
class _Graph:
    """What the walk through the model knows of each tensor so far."""

    dtypes: dict[int, str]  # the dtype each tensor is really stored in
    needs_grad: dict[int, bool]  # whether the loss's gradient flows back into it
    consumers: dict[int, int]  # how many layer calls read it
    producer: dict[int, str]  # the kind of the layer that made it

    def size(self, tensor: Any) -> float:
        return float(_per_example(tensor.shape) * itemsize(self.dtype(tensor)))

    def dtype(self, tensor: Any) -> str:
        return self.dtypes.get(id(tensor), str(getattr(tensor, "dtype", "float32")))


def _output_dtype(layer: Any, input_dtype: str) -> str:
    """What a layer's outputs are stored in: Keras casts a layer's floating inputs to its
    compute dtype, so its outputs are in that dtype; integer inputs (token ids) stay."""
    dtype = str(getattr(layer, "compute_dtype", None) or input_dtype)
    if dtype not in _ITEMSIZE or (input_dtype.startswith(("int", "uint", "bool")) and (
            type(layer).__name__ in _VIEWS)):
        return input_dtype
    return dtype


def _elementwise(kind: str, ins: float, out: float, grad: bool, n_in: int,
                 activation: str) -> tuple[float, float]:
    """(bytes one kernel each, bytes where XLA fuses a product's epilogue) over the step,
    forward and (where the gradient flows) backward, from its inputs' and output's sizes
    per example."""
    if kind in _VIEWS:
        return 0.0, 0.0
    if kind in ("Dense", "EinsumDense") or _CONV.match(kind):
        # the bias and activation after the product: forward a read and a write (in the
        # product's epilogue with XLA), backward the activation's gradient and the bias'
        if activation == "linear":
            return (out if grad else 0.0), (out if grad else 0.0)
        backward = 3 * out if grad else 0.0
        return 2 * out + backward, backward
    if kind in _NORMS:
        # forward: statistics (a read), normalise (a read and a write); backward: the two
        # reductions (read dy and x), then dx (read both, write)
        forward, backward = 2 * ins + out, 3 * ins + 2 * out
    elif kind in _MERGES:
        forward = ins + out
        backward = out if kind in ("Add", "Subtract", "Average") else 2 * ins + n_in * out
    elif kind in ("MaxPooling1D", "MaxPooling2D", "MaxPooling3D"):
        forward, backward = ins + out, 2 * ins + 2 * out
    elif kind == "Embedding":
        forward, backward = 2 * out, out
    else:  # activations, dropout, scaling, padding, pooling, concatenation, softmax
        forward, backward = ins + out, 2 * out + ins
    total = forward + (backward if grad else 0.0)
    return total, total


def _activation(layer: Any) -> str:
    return str(getattr(getattr(layer, "activation", None), "__name__", "linear"))


def layer_cost(layer: Any, node: Any, graph: _Graph) -> LayerCost:
    kind = type(layer).__name__
    inputs = list(node.input_tensors)
    outputs = list(node.output_tensors)
    in_dtype = graph.dtype(inputs[0]) if inputs else "float32"
    out_dtype = _output_dtype(layer, in_dtype)
    dtype = str(layer.compute_dtype) if str(layer.compute_dtype) in _ITEMSIZE else out_dtype
    for tensor in outputs:
        graph.dtypes[id(tensor)] = out_dtype
    weights, weight_bytes = _trainable(layer)
    grad_in = any(graph.needs_grad.get(id(t), True) for t in inputs)
    for tensor in outputs:
        graph.needs_grad[id(tensor)] = grad_in or weights > 0
        graph.producer[id(tensor)] = kind
    ins = sum(graph.size(t) for t in inputs)
    out = sum(float(_per_example(t.shape) * itemsize(out_dtype)) for t in outputs)
    float8 = getattr(layer, "quantization_mode", None) == "float8"
    activation = _activation(layer)
    grad = grad_in or weights > 0
    elementwise, fused = _elementwise(kind, ins, out, grad, len(inputs), activation)
    if inputs and kind in _FUSIBLE and _fuses_with_producer(inputs[0], graph):
        # computed in its producer's kernel: the producer's write and this read go,
        # forward, and backward the gradient's write and read between the two
        first = graph.size(inputs[0])
        fused = max(0.0, elementwise - 2 * first - (2 * first if grad else 0.0))
    saved = 0.0 if kind in _VIEWS else out
    if kind == "Dropout":
        saved += out / itemsize(out_dtype)  # and its mask, a byte an element
    gemms: tuple[Gemm, ...] = ()
    flops, aligned, depthwise, kernels = 0.0, True, 0.0, 2
    size = itemsize(dtype)
    if kind in ("Dense", "EinsumDense") or _CONV.match(kind):
        gemms, flops, aligned, depthwise = _product_layer(layer, node, kind, size, grad_in)
        kernels = 2 + 2 * len(gemms) // 3 + (2 if activation != "linear" else 0)
        if activation not in ("linear", "relu"):  # its gradient reads its input too
            saved *= 2
    elif kind == "MultiHeadAttention":
        gemms, flops, aligned, internals, scores = _attention(layer, node, size, grad_in)
        elementwise += scores
        fused += scores
        kernels = 26
        saved += internals  # projections, scores, probabilities
    elif kind in ("LSTM", "GRU", "SimpleRNN"):
        gemms, flops, aligned, steps = _recurrent(layer, node, size, grad_in)
        kernels = 8 * steps
        elementwise = fused = 3 * steps * _gates(layer) * size * 2
        units, features = int(layer.cell.units), int(inputs[0].shape[-1])
        saved += steps * (features + _gates(layer) + 3 * units) * size  # every step's
    elif kind in _NORMS:
        kernels, dtype = 4, "float32"  # statistics and gradients computed in float32
    elif kind in _VIEWS:
        kernels = 0
    return LayerCost(getattr(layer, "path", None) or layer.name, kind, dtype, flops,
                     ins + out, weights, weight_bytes, aligned, kernels, saved,
                     len(layer.trainable_weights), float8, gemms, elementwise, fused,
                     depthwise, out_dtype)


def _fuses_with_producer(tensor: Any, graph: _Graph) -> bool:
    """Whether XLA can compute this layer in the kernel that made its input: the input
    comes from an elementwise layer and nothing else reads it."""
    return (graph.producer.get(id(tensor), "") in _FUSIBLE
            and graph.consumers.get(id(tensor), 0) <= 1)


def _product_layer(layer: Any, node: Any, kind: str, size: int,
                   grad_in: bool) -> tuple[tuple[Gemm, ...], float, bool, float]:
    """(gemms, forward FLOPs, Tensor Core sizes, depthwise FLOPs) of a Dense,
    EinsumDense or convolution."""
    in_shape = tuple(node.input_tensors[0].shape)
    out_shape = tuple(node.output_tensors[0].shape)
    if kind in ("Dense", "EinsumDense"):
        kernel = getattr(layer, "_kernel", None)
        if kernel is None:
            kernel = layer.kernel
        k_shape = tuple(int(d) for d in kernel.shape)
        if kind == "Dense":
            k, n = k_shape[0], k_shape[1]
        else:
            k, n = _einsum_kn(layer.equation, k_shape)
        rows = max(1, _per_example(out_shape) // max(n, 1))
        gemms = matmul_gemms(rows, n, k, size, grad_in)
        return gemms, 2.0 * rows * n * k, _aligned(k, n), 0.0
    pixels_out = _per_example((*out_shape[:-1], 1))
    pixels_in = _per_example((*in_shape[:-1], 1))
    c_in, c_out = int(in_shape[-1]), int(out_shape[-1])
    x, y = pixels_in * c_in * size, pixels_out * c_out * size
    if kind.startswith("Depthwise"):
        window = math.prod(int(d) for d in layer.kernel.shape[:-2])
        return (), 0.0, True, 2.0 * _per_example(out_shape) * window
    if kind.startswith("Separable"):
        depth = tuple(int(d) for d in layer.depthwise_kernel.shape)
        window, middle = math.prod(depth[:-2]), c_in * depth[-1]
        depthwise = 2.0 * pixels_out * middle * window
        gemms = conv_gemms(pixels_out, c_out, middle, 1, pixels_out * middle * size, y,
                           size, True)
        return gemms, 2.0 * pixels_out * c_out * middle, _aligned(middle, c_out), depthwise
    window = math.prod(int(d) for d in layer.kernel.shape[:-2])
    groups = int(getattr(layer, "groups", 1) or 1)
    # a transposed convolution multiplies each input pixel by the kernel
    pixels = pixels_in if kind.endswith("Transpose") else pixels_out
    winograd = 1.0
    if (groups == 1 and tuple(getattr(layer, "strides", (1, 1))) == (1, 1)
            and tuple(getattr(layer, "dilation_rate", (1, 1))) == (1, 1)):
        winograd = WINOGRAD.get(tuple(int(d) for d in layer.kernel.shape[:-2]), 1.0)
    gemms = conv_gemms(pixels, c_out, c_in, window, x, y, size, grad_in, groups, winograd)
    return (gemms, 2.0 * pixels * c_out * c_in * window / groups,
            _aligned(c_in // groups, c_out // groups), 0.0)


def _einsum_kn(equation: str, k_shape: tuple[int, ...]) -> tuple[int, int]:
    """An EinsumDense's contraction (K) and output (N) sizes from its kernel's indices:
    those not in the output are contracted."""
    inputs, output = equation.split("->")
    kernel_letters = inputs.split(",")[1]
    k = n = 1
    for letter, size in zip(kernel_letters, k_shape, strict=False):
        if letter in output:
            n *= int(size)
        else:
            k *= int(size)
    return k, n


def _attention(layer: Any, node: Any, size: int,
               grad_in: bool) -> tuple[tuple[Gemm, ...], float, bool, float, float]:
    """The four projections and the two batched products over (tokens x tokens): gemms,
    forward FLOPs, sizes, the bytes kept, and the softmax's traffic."""
    query = node.input_tensors[0]
    value = node.input_tensors[1] if len(node.input_tensors) > 1 else query
    tokens = int(query.shape[1]) if query.shape[1] is not None else 1
    keys = int(value.shape[1]) if value.shape[1] is not None else tokens
    heads, key_dim = int(layer._num_heads), int(layer._key_dim)
    value_dim = int(layer._value_dim or key_dim)
    gemms: list[Gemm] = []
    flops = 0.0
    for dense, rows in ((layer._query_dense, tokens), (layer._key_dense, keys),
                        (layer._value_dense, keys), (layer._output_dense, tokens)):
        shape = tuple(int(d) for d in dense.kernel.shape)
        k = shape[0] if dense is not layer._output_dense else math.prod(shape[:-1])
        n = math.prod(shape) // k
        gemms += matmul_gemms(rows, n, k, size, grad_in or dense is not layer._query_dense)
        flops += 2.0 * rows * n * k
    # per head: scores (tokens x keys over key_dim), weighted values (over keys)
    gemms += matmul_gemms(tokens, keys, key_dim, size, True, count=heads, weights=False)
    gemms += matmul_gemms(tokens, value_dim, keys, size, True, count=heads, weights=False)
    flops += 2.0 * heads * tokens * keys * (key_dim + value_dim)
    model_dim = int(tuple(query.shape)[-1])
    aligned = _aligned(model_dim, heads * key_dim, heads * value_dim)
    entries = heads * tokens * keys
    # Keras' attention (TensorFlow's backend) takes the softmax in float32 under any
    # policy: a half model keeps its scores in the half type and in float32, and the
    # float32 probabilities and their half copy (12 bytes an entry; float32: 8)
    kept = (entries * (2 * size + (8 if size < 4 else 0))
            + tokens * heads * (2 * key_dim + 2 * value_dim) * size)
    softmax = 7.0 * entries * size  # softmax forward (3 passes) and backward (4)
    if getattr(layer, "_dropout", 0.0):  # on the probabilities: apply, its gradient, a mask
        softmax += entries * (4 * size + 2)
    return tuple(gemms), flops, aligned, kept, softmax


def _gates(layer: Any) -> int:
    return int(layer.cell.kernel.shape[-1])


def _recurrent(layer: Any, node: Any, size: int,
               grad_in: bool) -> tuple[tuple[Gemm, ...], float, bool, int]:
    """The input's product over every time step at once, and the state's product step
    after step (M = the batch, each step its own small product)."""
    cell = layer.cell
    units = int(cell.units)
    inputs = node.input_tensors[0]
    steps = int(inputs.shape[1]) if inputs.shape[1] is not None else 1
    features = int(inputs.shape[-1])
    gates = _gates(layer)
    gemms = matmul_gemms(steps, gates, features, size, grad_in)
    gemms += matmul_gemms(1, gates, units, size, True, count=steps)
    flops = 2.0 * steps * (features + units) * gates
    return gemms, flops, _aligned(features, units), steps


def model_costs(model: keras.Model) -> list[LayerCost]:
    """Each leaf layer's cost, in the model's order (the input layer left out)."""
    nodes = _leaf_nodes(model)
    graph = _Graph({}, {}, {}, {})
    for tensor in model.inputs:  # the data: no gradient flows into it
        graph.dtypes[id(tensor)] = str(tensor.dtype)
        graph.needs_grad[id(tensor)] = False
    for _, node in nodes:
        for tensor in node.input_tensors:
            graph.consumers[id(tensor)] = graph.consumers.get(id(tensor), 0) + 1
    return [layer_cost(layer, node, graph) for layer, node in nodes]


def input_bytes(model: keras.Model) -> int:
    """One example of the model's inputs as they arrive (uint8 images stay uint8)."""
    return sum(_per_example(t.shape) * itemsize(t.dtype) for t in model.inputs)
