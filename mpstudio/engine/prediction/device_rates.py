"""The rates a training step is predicted from: each GPU model's dense Tensor Core and
CUDA-core throughput and memory bandwidth (vendors' datasheets), and what a real
device reaches of them (measured, see ``GPU_CALIBRATION``).

Datasheet figures are dense (no 2:4 sparsity), in TFLOP/s; GeForce cards are given
with float32 accumulation, as mixed precision accumulates (their float16-accumulate
figure is twice that). ``tf32`` is the rate TensorFlow's float32 matmuls and
convolutions run at by default on compute capability 8.0+.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from mpstudio.engine.i18n import N_

Capability = tuple[int, int]


@dataclass(frozen=True)
class DeviceRates:
    name: str
    kind: str  # "GPU" | "CPU"
    tflops: dict[str, float]  # math -> peak: float32, tf32, float16, bfloat16, float8
    bandwidth: float  # device memory, TB/s
    memory_gib: float = 0.0
    capability: Capability | None = None
    source: str = ""  # where the figures come from (English, marked: shown as _(source))
    # A CPU measures its own rates per kernel kind ("matmul"/"conv"): math -> TFLOP/s.
    conv_tflops: dict[str, float] = field(default_factory=dict)

    @property
    def tf32(self) -> bool:
        return "tf32" in self.tflops

    @property
    def fp8(self) -> bool:
        return "float8" in self.tflops

    def rate(self, math: str, conv: bool = False) -> float:
        """Peak TFLOP/s for ``math``; a CPU's measured convolution rate where it has one."""
        table = self.conv_tflops if conv and self.conv_tflops else self.tflops
        return table.get(math) or table.get("float32") or 1e-3


def _gpu(name: str, cc: Capability, fp32: float, fp16: float, bw: float, mem: float,
         tf32: float | None = None, bf16: float | None = None,
         fp8: float | None = None) -> DeviceRates:
    rates = {"float32": fp32, "float16": fp16}
    if tf32:
        rates["tf32"] = tf32
    if bf16:
        rates["bfloat16"] = bf16
    if fp8:
        rates["float8"] = fp8
    return DeviceRates(name, "GPU", rates, bw, mem, cc, N_("datasheet"))


# (pattern of the name NVML and TensorFlow report, the device). First match wins, so a
# more specific name comes before a shorter one ("H100 PCIe" before "H100").
GPU_TABLE: tuple[tuple[str, DeviceRates], ...] = (
    (r"V100.*PCIE", _gpu("Tesla V100 PCIe", (7, 0), 14.0, 112.0, 0.90, 32)),
    (r"V100", _gpu("Tesla V100 SXM2", (7, 0), 15.7, 125.0, 0.90, 32)),
    (r"\bT4\b", _gpu("Tesla T4", (7, 5), 8.1, 65.0, 0.32, 16)),
    (r"A100.*80", _gpu("A100 80GB", (8, 0), 19.5, 312.0, 2.04, 80, 156.0, 312.0)),
    (r"A100", _gpu("A100 40GB", (8, 0), 19.5, 312.0, 1.56, 40, 156.0, 312.0)),
    (r"\bA10G\b", _gpu("A10G", (8, 6), 31.2, 70.0, 0.60, 24, 35.0, 70.0)),
    (r"\bA10\b", _gpu("A10", (8, 6), 31.2, 125.0, 0.60, 24, 62.5, 125.0)),
    (r"\bL4\b", _gpu("L4", (8, 9), 30.3, 121.0, 0.30, 24, 60.0, 121.0, 242.0)),
    (r"L40S", _gpu("L40S", (8, 9), 91.6, 362.0, 0.86, 48, 183.0, 362.0, 733.0)),
    (r"H100.*PCIE", _gpu("H100 PCIe", (9, 0), 51.0, 756.0, 2.00, 80, 378.0, 756.0, 1513.0)),
    (r"H100", _gpu("H100 SXM", (9, 0), 67.0, 989.0, 3.35, 80, 494.0, 989.0, 1979.0)),
    (r"H200", _gpu("H200", (9, 0), 67.0, 989.0, 4.80, 141, 494.0, 989.0, 1979.0)),
    (r"B200", _gpu("B200", (10, 0), 80.0, 2250.0, 8.00, 180, 1100.0, 2250.0, 4500.0)),
    (r"RTX\s*3060", _gpu("GeForce RTX 3060", (8, 6), 12.7, 25.4, 0.36, 12, 12.7, 25.4)),
    (r"RTX\s*3070", _gpu("GeForce RTX 3070", (8, 6), 20.3, 40.6, 0.45, 8, 20.3, 40.6)),
    (r"RTX\s*3080", _gpu("GeForce RTX 3080", (8, 6), 29.8, 59.5, 0.76, 10, 29.8, 59.5)),
    (r"RTX\s*3090", _gpu("GeForce RTX 3090", (8, 6), 35.6, 71.0, 0.94, 24, 35.6, 71.0)),
    (r"RTX\s*4060", _gpu("GeForce RTX 4060", (8, 9), 15.1, 30.2, 0.27, 8, 15.1, 30.2, 60.4)),
    (r"RTX\s*4070", _gpu("GeForce RTX 4070", (8, 9), 29.1, 58.3, 0.50, 12, 29.1, 58.3,
                         116.6)),
    (r"RTX\s*4080", _gpu("GeForce RTX 4080", (8, 9), 48.7, 97.5, 0.72, 16, 48.7, 97.5,
                         194.9)),
    (r"RTX\s*4090", _gpu("GeForce RTX 4090", (8, 9), 82.6, 165.2, 1.01, 24, 82.6, 165.2,
                         330.3)),
    (r"RTX\s*5070", _gpu("GeForce RTX 5070", (12, 0), 30.9, 61.7, 0.67, 12, 30.9, 61.7,
                         123.5)),
    (r"RTX\s*5080", _gpu("GeForce RTX 5080", (12, 0), 56.3, 112.6, 0.96, 16, 56.3, 112.6,
                         225.1)),
    (r"RTX\s*5090", _gpu("GeForce RTX 5090", (12, 0), 104.8, 209.5, 1.79, 32, 104.8, 209.5,
                         419.0)),
)


def gpu_names() -> list[str]:
    return [rates.name for _, rates in GPU_TABLE]


def gpu_rates(name: str) -> DeviceRates | None:
    """The table's entry for a GPU called ``name`` ("NVIDIA H200", "h100 pcie"...)."""
    for pattern, rates in GPU_TABLE:
        if re.search(pattern, name, re.I):
            return rates
    return None


def without_tf32(rates: DeviceRates) -> DeviceRates:
    """The device with TF32 turned off: float32 runs on the CUDA cores."""
    return replace(rates, tflops={k: v for k, v in rates.tflops.items() if k != "tf32"})


@dataclass(frozen=True)
class Calibration:
    """What a real step reaches of the peaks, and what it costs whatever its size."""

    matmul_efficiency: float  # of the peak, for a wide matmul or convolution
    narrow_width: float  # the width (channels, units) at which half of that is reached
    bandwidth_efficiency: float  # of the datasheet bandwidth, for elementwise work
    memory_passes: float  # a step's traffic over a layer's forward input and output
    kernel_us: float  # each kernel launched in a step
    step_ms: float  # the framework's own cost of a step (fit's loop, the input)
    loss_scale_ms: float  # dynamic loss scaling: the finiteness check and its branch
    cast_kernels: int  # the casts a mixed policy adds per layer with weights
    cast_bytes: float  # per weight and step: the half copy a mixed policy reads
    float8_kernels: int  # per float8 layer: amax reductions, history and scale updates
    float8_passes: float  # extra elementwise passes of float8's quantize-dequantize
    spread: float  # the prediction's relative uncertainty on a speedup
    half_memory_factor: float = 1.0  # a half type's elementwise time, for its bytes
    # How much of the framework's step cost hides behind the device's work (1: all of it,
    # the next step dispatched while this one computes; 0: none, a sync every step).
    overlap: float = 0.0


# Fitted to an NVIDIA H200 (benchmarks/gpu_calibration/: mpstudio's templates under
# every precision at batch 256, 1024 and 2048, float8 at 256 and 2048, and the reference
# figures), with XLA on, as mpstudio's xla=auto runs a GPU. Measured with Keras on JAX
# (TensorFlow could not be installed there): the same XLA GPU compiler; the step's own
# cost around the compiled step is JAX's, TensorFlow's was not measured on a GPU.
GPU_CALIBRATION = Calibration(
    matmul_efficiency=0.75, narrow_width=95.0, bandwidth_efficiency=0.82, memory_passes=6.2,
    kernel_us=13.5, step_ms=0.39, loss_scale_ms=0.09, cast_kernels=2, cast_bytes=0.8,
    float8_kernels=18, float8_passes=13.4, spread=0.15, overlap=0.16)
