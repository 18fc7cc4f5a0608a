"""What a real device reaches of its datasheet, and what a step costs whatever its size:
the few constants the step model (``step_time``) takes besides a device's rates.

Each is a physical quantity, read off a measurement where one measures it directly
(the H200's bandwidth of a streaming copy, its largest GEMMs' share of the peak, Keras
fit's fixed cost of a step) and fitted only where nothing measures it alone (how
narrow a product must be to halve its rate, a kernel's fixed time): see
``benchmarks/prediction_accuracy.py``, which also checks the model on networks and GPUs
left out of the fit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Calibration:
    # of each math's peak, for a large, well-shaped product: "tf32", "float32" (CUDA
    # cores), "half" (float16/bfloat16 Tensor Cores), "float8"
    gemm_efficiency: dict[str, float]
    # per math, the width (N, or K) at which a product reaches half its rate: narrow
    # operands keep the multipliers waiting on operand loads. Tensor Cores need wide
    # products (TF32's operands are twice a half type's bytes); CUDA cores and a CPU's
    # vector units much less so.
    narrow_width: dict[str, float]
    bandwidth_efficiency: float  # of the datasheet bandwidth, a float32 streaming kernel
    half_bandwidth_efficiency: float  # the same for 2-byte elements (fewer bytes in flight)
    kernel_us: float  # a kernel's own time on the device, whatever its work
    launch_us: float  # the host's time to issue a kernel (dispatch)
    step_ms: float  # the framework's own cost of a step (fit's loop, the batch's copy)
    loss_scale_ms: float  # dynamic loss scaling: the finiteness check and its branch
    cast_bytes: float  # per weight and step: the half copy a mixed policy reads and writes
    float8_kernels: int  # per float8 layer: amax reductions, history and scale updates
    float8_passes: float  # extra elementwise passes of float8's quantize-dequantize
    spread: float  # the prediction's relative uncertainty on a speedup
    # of the multiplications a Winograd convolution saves on CUDA cores, the share its
    # speed shows (its input and output transforms take the rest)
    winograd_efficiency: float = 0.8
    # of the float32 lanes an SM shares with integer work (GA10x, Ada, Blackwell GeForce:
    # the datasheet's float32 rate counts both halves), the share a GEMM or convolution
    # keeps in float32 (its address arithmetic takes the rest)
    shared_lane_use: float = 1.0
    depthwise_efficiency: float = 0.25  # of the CUDA-core peak, a depthwise convolution
    fused: bool = True  # XLA fuses chains of elementwise kernels (a GPU's xla=auto)
    # How much of the host's work hides behind the device's (1: all, the next step
    # dispatched while this one computes; 0: none, a sync every step).
    overlap: float = 0.8
    tile: int = 128  # a GPU library's output tile (M and N): products fill the SMs in waves

    def efficiency(self, math: str) -> float:
        return _by_math(self.gemm_efficiency, math)

    def narrow(self, math: str) -> float:
        return _by_math(self.narrow_width, math)


def _by_math(table: dict[str, float], math: str) -> float:
    key = "half" if math in ("float16", "bfloat16") else math
    return table.get(key, table.get("float32", 0.0))


# The GPU's: XLA on, as mpstudio's xla=auto runs a GPU. Measured on an H200
# (benchmarks/gpu_calibration/h200_2026-11-27.jsonl): the largest GEMMs' share of each
# peak (TF32 0.71-0.81, float16/bfloat16 0.67-0.71, float32 0.75, float8 0.48: the
# efficiencies here are what a product infinitely wide would reach, those over the
# narrow-width factor of an 8192-wide one) and a streaming copy's of the bandwidth
# (0.88). Fitted by `benchmarks/prediction_accuracy.py --fit` to the H200's templates and
# 86 published TensorFlow pairs on V100, A100 and other cards: the rest (how narrow a
# product halves its rate, the Winograd share, the shared float32 lanes a GA10x or Ada
# card keeps, a depthwise convolution's share, the fixed costs); the spread is the
# range that covers 4 in 5 of the pairs predicted without their network or GPU. The
# same benchmark reports the error on networks and GPUs left out of the fit.
GPU_CALIBRATION = Calibration(
    gemm_efficiency={"tf32": 0.82, "float32": 0.76, "half": 0.73, "float8": 0.5},
    narrow_width={"tf32": 821.0, "float32": 53.0, "half": 175.0, "float8": 179.0},
    bandwidth_efficiency=0.88, half_bandwidth_efficiency=0.88,
    kernel_us=7.8, launch_us=10.2, step_ms=0.65, loss_scale_ms=0.051, cast_bytes=6.0,
    float8_kernels=18, float8_passes=4.9, spread=0.34, winograd_efficiency=0.9,
    shared_lane_use=0.11, depthwise_efficiency=0.027, overlap=0.996)
