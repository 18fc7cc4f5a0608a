"""One training step's time on a device, from the model's layer costs.

The device runs the step's kernels one after another. A matrix product takes the
longer of its arithmetic (at the rate of the math it really runs: TF32, float16 or
bfloat16 Tensor Cores where its sizes allow, float8 where Keras' float8 path and the
device have it, reduced for a narrow product and for one too small to fill every SM)
and its memory traffic (its operands and result in their dtypes); every other kernel
moves its bytes at the device's bandwidth; each kernel also costs a few microseconds
whatever it does. The optimizer's update, the casts a mixed policy adds and loss
scaling's pass come on top. Meanwhile the host issues the kernels and runs the
framework's loop: a step takes the longer of the two, and part of the shorter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mpstudio.engine.prediction.calibration import Calibration
from mpstudio.engine.prediction.device_rates import DeviceRates
from mpstudio.engine.prediction.gemm_work import Gemm
from mpstudio.engine.prediction.layer_costs import HALF, LayerCost

TB = 1e12
COMPUTE, MEMORY, LAUNCH, DISPATCH = "compute", "memory", "launch", "dispatch"


@dataclass(frozen=True)
class LayerTime:
    """One layer's share of the step on the device (forward and backward)."""

    name: str
    kind: str
    math: str  # what its products run in ("" where it has none)
    seconds: float
    compute: float  # of which its products' arithmetic bounds
    memory: float  # of which moving bytes bounds
    launch: float  # of which kernels' fixed time
    kernels: int = 0  # the kernels it launches over the step

    @property
    def bound(self) -> str:
        return max(((self.compute, COMPUTE), (self.memory, MEMORY), (self.launch, LAUNCH)))[1]


@dataclass(frozen=True)
class StepTime:
    seconds: float
    launch: float  # seconds of kernels' fixed time on the device
    compute: float  # seconds bound by arithmetic
    memory: float  # seconds bound by memory traffic
    fixed: float  # the host's time: the framework's loop and issuing the kernels
    half_share: float  # the share of the step's arithmetic computed in a half type
    layers: tuple[LayerTime, ...] = ()
    optimizer: float = 0.0  # the update of every weight (and the casts, loss scaling's)

    @property
    def device(self) -> float:
        return self.launch + self.compute + self.memory + self.optimizer

    @property
    def bound(self) -> str:
        """What most of the step waits on: dispatch, compute or memory."""
        if self.fixed >= self.device:
            return DISPATCH
        return COMPUTE if self.compute >= self.memory + self.optimizer else MEMORY


def layer_math(cost: LayerCost, device: DeviceRates) -> str:
    """The math a layer's products run in on ``device``."""
    if cost.float8 and device.fp8:
        return "float8"
    dtype = "bfloat16" if cost.float8 else cost.dtype
    if dtype in HALF:
        if device.kind == "CPU":
            return dtype
        if dtype in device.tflops:
            # sizes Tensor Cores cannot take run padded, or on slower kernels
            return dtype if cost.tensor_core_sizes else "tf32" if device.tf32 else "float32"
        return "float32"  # no Tensor Cores for it here
    return "tf32" if device.tf32 else "float32"


def _waves(m: int, n: int, k: int, count: int, device: DeviceRates, tile: int) -> float:
    """The share of the SMs a product keeps busy: its output tiles fill them in waves,
    and a product of few tiles but a long K is split along K (as cuBLAS and cuDNN do)."""
    if device.kind != "GPU" or not device.sms:
        return 1.0
    tiles = math.ceil(m / tile) * math.ceil(n / tile) * (count if count > 1 else 1)
    if tiles < device.sms:
        tiles *= max(1, min(device.sms // tiles, k // (4 * tile)))  # one wave, not two
    waves = math.ceil(tiles / device.sms)
    return tiles / (waves * device.sms)


# An A100's float16 Tensor Core rate per SM (TFLOP/s): the narrow widths are given for it.
REFERENCE_SM_TFLOPS = 312.0 / 108


def _per_sm(device: DeviceRates, math_name: str) -> float:
    """How wide a product must be here, against an A100's float16 Tensor Cores, to reach
    the same share of the peak: an SM's operand bandwidth is alike from Volta to Ampere
    (128 bytes a clock), so an SM of slower math needs narrower products (a GeForce card's
    Tensor Cores, at half rate with float32 accumulation, keep up with far narrower ones).
    Hopper's, twice an A100's per SM, read their operands from shared memory themselves
    (wgmma): taken as needing no wider products than an A100's."""
    if device.kind != "GPU" or not device.sms:
        return 1.0
    return min(1.0, device.rate(math_name) / device.sms / REFERENCE_SM_TFLOPS)


def gemm_seconds(gemm: Gemm, batch: int, math_name: str, device: DeviceRates,
                 calibration: Calibration, conv: bool, bandwidth: float) -> tuple[float, float]:
    """(arithmetic seconds, memory seconds) of one of a step's products."""
    m, n, k, count, moved = gemm.at(batch)
    width = calibration.narrow(math_name) * _per_sm(device, math_name)
    efficiency = calibration.efficiency(math_name) * (n / (n + width)) * (k / (k + width))
    efficiency *= _waves(m, n, k, 1 if gemm.sequential else count, device,
                         calibration.tile)
    if (gemm.winograd > 1 and math_name == "float32" and device.kind == "GPU"
            and (device.capability or (0, 0)) < (9, 0)):
        # Volta to Ada (measured on an H200: its float32 3x3 convolution reached a third of
        # the CUDA cores' peak, no Winograd gain): the multiplications saved, less the
        # transforms' own time
        efficiency *= max(1.0, gemm.winograd * calibration.winograd_efficiency)
    rate = device.rate(math_name, conv=conv) * TB * efficiency
    if math_name == "float32":
        rate *= _float32_lanes(device, calibration)
    return 2.0 * m * n * k * count / rate, moved / bandwidth


def _float32_lanes(device: DeviceRates, calibration: Calibration) -> float:
    """The share of the datasheet's float32 rate the CUDA cores give a product: all of it,
    but on a card whose second float32 lanes also run integer work (GA10x, Ada)."""
    return (1 + calibration.shared_lane_use) / 2 if device.shared_fp32_lanes else 1.0


def _bandwidth(device: DeviceRates, calibration: Calibration, half: bool) -> float:
    share = calibration.half_bandwidth_efficiency if half else calibration.bandwidth_efficiency
    return device.bandwidth * TB * share


def layer_time(cost: LayerCost, batch: int, device: DeviceRates,
               calibration: Calibration, mixed: bool) -> LayerTime:
    half = cost.tensor_dtype in HALF
    bandwidth = _bandwidth(device, calibration, half)
    math_name = layer_math(cost, device) if cost.gemms else ""
    compute = memory = 0.0
    kernels = cost.kernels + (calibration.float8_kernels if cost.float8 else 0)
    if mixed and cost.weights:
        kernels += 2  # its weights' half copy forward, their gradient's float32 copy
    conv = cost.kind.startswith("Conv")
    for gemm in cost.gemms:
        arithmetic, moved = gemm_seconds(gemm, batch, math_name, device, calibration, conv,
                                         bandwidth)
        if math_name == "tf32":  # cuDNN and XLA autotune: a CUDA-core kernel where faster
            arithmetic = min(arithmetic, gemm_seconds(gemm, batch, "float32", device,
                                                      calibration, conv, bandwidth)[0])
        if arithmetic >= moved:
            compute += arithmetic
        else:
            memory += moved
        if gemm.sequential:
            kernels += gemm.count - 1  # one after another
    if cost.depthwise_flops:  # CUDA cores (or a CPU's vector units), poorly used
        rate = (device.rate("float32") * TB * calibration.depthwise_efficiency
                * _float32_lanes(device, calibration))
        if cost.dtype == "float16":
            rate *= device.vector_half
        arithmetic = 3 * cost.depthwise_flops * batch / rate
        moved = 3 * cost.bytes * batch / bandwidth
        compute, memory = (compute + arithmetic, memory) if arithmetic >= moved else (
            compute, memory + moved)
    elementwise = cost.fused if calibration.fused else cost.elementwise
    if cost.float8:
        elementwise += calibration.float8_passes * cost.bytes
    memory += elementwise * batch / bandwidth
    launch = kernels * calibration.kernel_us * 1e-6
    return LayerTime(cost.name, cost.kind, math_name, compute + memory + launch, compute,
                     memory, launch, kernels)


def step_time(costs: Sequence[LayerCost], batch: int, device: DeviceRates,
              calibration: Calibration, mixed: bool, loss_scaling: bool) -> StepTime:
    layers = tuple(layer_time(c, batch, device, calibration, mixed) for c in costs)
    optimizer = _optimizer(costs, device, calibration, mixed, loss_scaling)
    kernels = sum(t.kernels for t in layers) + sum(c.variables for c in costs)
    host = (calibration.step_ms + (calibration.loss_scale_ms if loss_scaling else 0.0)) / 1e3
    host += kernels * calibration.launch_us * 1e-6
    on_device = sum(t.seconds for t in layers) + optimizer
    seconds = max(on_device, host) + (1 - calibration.overlap) * min(on_device, host)
    all_flops = sum(c.flops for c in costs)
    half_flops = sum(c.flops for c, t in zip(costs, layers, strict=True)
                     if t.math not in ("", "float32", "tf32"))
    return StepTime(seconds, sum(t.launch for t in layers), sum(t.compute for t in layers),
                    sum(t.memory for t in layers), host,
                    half_flops / all_flops if all_flops else 0.0, layers, optimizer)


def _optimizer(costs: Sequence[LayerCost], device: DeviceRates, calibration: Calibration,
               mixed: bool, loss_scaling: bool) -> float:
    """Adam's update of every float32 weight (read the weight, both moments and the
    gradient, write the three), the half copies a mixed policy casts, and loss scaling's
    unscaling and finiteness check: one kernel a variable."""
    weights = sum(c.weights for c in costs)
    per_weight = 28 + (calibration.cast_bytes if mixed else 0) + (12 if loss_scaling else 0)
    variables = sum(c.variables for c in costs)
    bandwidth = _bandwidth(device, calibration, half=False)
    return variables * calibration.kernel_us * 1e-6 + weights * per_weight / bandwidth
