"""One training step's time on a device, from the model's layer costs.

Each layer takes the longest of three: its kernels' launches (a launch costs
microseconds whatever the work, so a short step is dispatch-bound and cannot get
faster by computing faster), its arithmetic at the rate of the math it really runs
(TF32, float16 or bfloat16 Tensor Cores where its sizes allow, float8 where Keras'
float8 path and the device have it), and its memory traffic. The optimizer's update,
the casts a mixed policy adds and the framework's own cost of a step come on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mpstudio.engine.prediction.device_rates import Calibration, DeviceRates
from mpstudio.engine.prediction.layer_costs import LayerCost

TB = 1e12


@dataclass(frozen=True)
class StepTime:
    seconds: float
    launch: float  # seconds bound by kernel launches
    compute: float  # seconds bound by arithmetic
    memory: float  # seconds bound by memory traffic
    fixed: float  # the framework's own cost of a step (and loss scaling's)
    half_share: float  # the share of the step's arithmetic computed in a half type

    @property
    def bound(self) -> str:
        """What most of the step waits on: dispatch, compute or memory."""
        dispatch = self.fixed + self.launch
        if dispatch >= max(self.compute, self.memory):
            return "dispatch"
        return "compute" if self.compute >= self.memory else "memory"


def layer_math(cost: LayerCost, device: DeviceRates) -> str:
    """The math a layer's products run in on ``device``."""
    if cost.float8 and device.fp8:
        return "float8"
    dtype = "bfloat16" if cost.float8 else cost.dtype
    if dtype in ("float16", "bfloat16"):
        if device.kind == "CPU":
            return dtype
        if dtype in device.tflops:
            # sizes Tensor Cores cannot take run padded, or on slower kernels
            return dtype if cost.tensor_core_sizes else "tf32" if device.tf32 else "float32"
        return "float32"  # no Tensor Cores for it here
    return "tf32" if device.tf32 else "float32"


def _efficiency(cost: LayerCost, calibration: Calibration) -> float:
    width = max(cost.width, 1)
    return calibration.matmul_efficiency * width / (width + calibration.narrow_width)


def step_time(costs: Sequence[LayerCost], batch: int, device: DeviceRates,
              calibration: Calibration, mixed: bool, loss_scaling: bool) -> StepTime:
    bandwidth = device.bandwidth * TB * calibration.bandwidth_efficiency
    launch_s = calibration.kernel_us * 1e-6
    launch = compute = memory = 0.0
    total = 0.0
    half_flops = all_flops = 0.0
    for cost in costs:
        kernels = cost.kernels + (calibration.float8_kernels if cost.float8 else 0)
        if mixed and cost.weights:
            kernels += calibration.cast_kernels
        moved = calibration.memory_passes * cost.bytes * batch
        if cost.half:
            moved *= calibration.half_memory_factor
        if cost.float8:
            moved += calibration.float8_passes * (cost.bytes * batch + cost.weight_bytes)
        t_launch, t_memory, t_compute = kernels * launch_s, moved / bandwidth, 0.0
        if cost.flops:
            math = layer_math(cost, device)
            rate = device.rate(math, conv=cost.kind.startswith("Conv")) * TB
            t_compute = 3 * cost.flops * batch / (rate * _efficiency(cost, calibration))
            all_flops += cost.flops
            half_flops += cost.flops if math not in ("float32", "tf32") else 0.0
        longest = max(t_launch, t_compute, t_memory)
        total += longest
        if longest == t_launch:
            launch += longest
        elif longest == t_compute:
            compute += longest
        else:
            memory += longest
    total += _optimizer(costs, device, calibration, mixed, loss_scaling, bandwidth)
    fixed = (calibration.step_ms + (calibration.loss_scale_ms if loss_scaling else 0)) / 1e3
    seconds = max(total, fixed) + (1 - calibration.overlap) * min(total, fixed)
    return StepTime(seconds, launch, compute, memory, fixed,
                    half_flops / all_flops if all_flops else 0.0)


def _optimizer(costs: Sequence[LayerCost], device: DeviceRates, calibration: Calibration,
               mixed: bool, loss_scaling: bool, bandwidth: float) -> float:
    """Adam's update of every float32 weight (read and write the weight, both moments,
    read the gradient), the half copies a mixed policy casts, loss scaling's passes."""
    weights = sum(c.weights for c in costs)
    per_weight = 28 + (calibration.cast_bytes if mixed else 0) + (12 if loss_scaling else 0)
    variables = sum(c.variables for c in costs)
    return max(variables * calibration.kernel_us * 1e-6 / 2, weights * per_weight / bandwidth)
