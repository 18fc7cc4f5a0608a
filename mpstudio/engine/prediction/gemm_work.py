"""The matrix products of a training step: each layer's forward product and, backward,
its input's and its weight's gradients, as the GEMMs a GPU library runs.

A product's speed depends on its shape, not only its FLOPs: a GEMM whose M, N or K is
narrow keeps a GPU's Tensor Cores waiting on operands, and one whose bytes outweigh its
arithmetic is bound by memory. So each is kept with its (M, N, K) and its bytes: sizes
per example where they grow with the batch (``scaled``: which of M, K or the count of
products), fixed where they do not (the weights and their gradient).

A convolution is an implicit GEMM: it reads its input once (not its patches) and writes
its output once, so its bytes are the tensors', not the unrolled matrix's.
"""

from __future__ import annotations

from dataclasses import dataclass

FORWARD, INPUT_GRADIENT, WEIGHT_GRADIENT = "forward", "input gradient", "weight gradient"


@dataclass(frozen=True)
class Gemm:
    m: int
    n: int
    k: int
    scaled: str  # "m" | "k" | "count": what grows with the batch
    example_bytes: float  # bytes read and written per example
    fixed_bytes: float  # bytes read or written once a step (a weight, its gradient)
    role: str = FORWARD
    # products of this shape: in one batched kernel (attention's heads, a grouped
    # convolution's groups), or one after another (a recurrent layer's time steps)
    count: int = 1
    sequential: bool = False
    # how many times fewer multiplications a transform needs for this convolution on
    # CUDA cores (float32 without TF32): cuDNN runs a 3x3 or 5x5 one of stride 1 as a
    # Winograd transform (1: none, as Tensor Cores run every convolution)
    winograd: float = 1.0

    def at(self, batch: int) -> tuple[int, int, int, int, float]:
        """(M, N, K, how many, bytes) at ``batch`` examples."""
        m, k, count = self.m, self.k, self.count
        if self.scaled == "m":
            m *= batch
        elif self.scaled == "k":
            k *= batch
        else:
            count *= batch
        return m, self.n, k, count, self.example_bytes * batch + self.fixed_bytes

    def flops(self, batch: int) -> float:
        m, n, k, count, _ = self.at(batch)
        return 2.0 * m * n * k * count


def matmul_gemms(rows: int, n: int, k: int, size: int, grad_in: bool, count: int = 1,
                 weights: bool = True) -> tuple[Gemm, ...]:
    """``rows`` x ``k`` times ``k`` x ``n`` per example (``count`` times): a Dense layer
    (the right side its kernel), or, ``weights=False``, a product of two activations
    (attention's), whose gradient flows into both."""
    x, y, w = rows * k * size, rows * n * size, k * n * size
    if not weights:  # both sides are per example: the products are batched
        per = (x + w + y) * count
        return (Gemm(rows, n, k, "count", per, 0.0, FORWARD, count),
                Gemm(rows, k, n, "count", per, 0.0, INPUT_GRADIENT, count),
                Gemm(k, n, rows, "count", per, 0.0, WEIGHT_GRADIENT, count))
    sequential = count > 1  # a recurrent layer's steps: each needs the last one's state
    gemms = [Gemm(rows, n, k, "m", (x + y) * count, w, FORWARD, count, sequential)]
    if grad_in:
        gemms.append(Gemm(rows, k, n, "m", (x + y) * count, w, INPUT_GRADIENT, count,
                          sequential))
    gemms.append(Gemm(k, n, rows * count, "k", (x + y) * count, w, WEIGHT_GRADIENT))
    return tuple(gemms)


def conv_gemms(pixels: int, c_out: int, c_in: int, window: int, x: float, y: float,
               size: int, grad_in: bool, groups: int = 1,
               winograd: float = 1.0) -> tuple[Gemm, ...]:
    """A convolution's three implicit GEMMs over ``pixels`` (its output's; a transposed
    convolution's input's) of ``c_in`` x ``window`` -> ``c_out``, reading and writing its
    input's ``x`` and output's ``y`` bytes per example. Strides leave each product's
    FLOPs equal: every weight meets every output pixel once. A grouped convolution is
    ``groups`` such products side by side, each over its share of the channels."""
    c_in, c_out = c_in // groups, c_out // groups
    w = window * c_in * c_out * size * groups
    forward = Gemm(pixels, c_out, window * c_in, "m", x + y, w, FORWARD, groups,
                   winograd=winograd)
    backward = Gemm(pixels, c_in, window * c_out, "m", x + y, w, INPUT_GRADIENT, groups,
                    winograd=winograd)
    weight = Gemm(window * c_in, c_out, pixels, "k", x + y, w, WEIGHT_GRADIENT, groups,
                  winograd=winograd)
    return (forward, backward, weight) if grad_in else (forward, weight)
