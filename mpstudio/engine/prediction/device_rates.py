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
    sms: int = 0  # streaming multiprocessors: a product fills them in waves
    # a half type's rate on the CUDA cores (packed half2 arithmetic) over float32's: what
    # a depthwise convolution, which Tensor Cores do not run, gains from float16
    vector_half: float = 1.0
    # half its float32 lanes also run integer work (GA10x, Ada, consumer Blackwell: two
    # float32 paths a partition, one shared with INT32), which the datasheet counts as float32
    shared_fp32_lanes: bool = False

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


def _gpu(name: str, cc: Capability, sms: int, fp32: float, fp16: float, bw: float,
         mem: float, tf32: float | None = None, bf16: float | None = None,
         fp8: float | None = None) -> DeviceRates:
    # packed half2 runs at twice float32's rate on Volta, Turing, GA100 (four times)
    # and Hopper; at float32's on GA10x and Ada (their datasheets' non-tensor FP16)
    vector_half = {(7, 0): 2.0, (7, 5): 2.0, (8, 0): 4.0, (9, 0): 2.0, (10, 0): 2.0}
    rates = {"float32": fp32}
    if fp16:  # Tensor Cores (none before Volta: half types then compute as float32)
        rates["float16"] = fp16
    if tf32:
        rates["tf32"] = tf32
    if bf16:
        rates["bfloat16"] = bf16
    if fp8:
        rates["float8"] = fp8
    return DeviceRates(name, "GPU", rates, bw, mem, cc, N_("datasheet"), sms=sms,
                       vector_half=vector_half.get(cc, 1.0),
                       shared_fp32_lanes=cc in ((8, 6), (8, 7), (8, 9), (12, 0)))


# (pattern of the name NVML and TensorFlow report, the device). First match wins, so a
# more specific name comes before a shorter one ("H100 PCIe" before "H100").
GPU_TABLE: tuple[tuple[str, DeviceRates], ...] = (
    (r"1080\s*Ti", _gpu("GeForce GTX 1080 Ti", (6, 1), 28, 11.3, 0.0, 0.48, 11)),
    (r"V100.*PCIE", _gpu("Tesla V100 PCIe", (7, 0), 80, 14.0, 112.0, 0.90, 32)),
    (r"V100", _gpu("Tesla V100 SXM2", (7, 0), 80, 15.7, 125.0, 0.90, 32)),
    (r"RTX\s*2080\s*Ti", _gpu("GeForce RTX 2080 Ti", (7, 5), 68, 13.4, 53.8, 0.62, 11)),
    (r"Quadro RTX\s*(8000|6000)|TITAN RTX", _gpu("Quadro RTX 8000", (7, 5), 72, 16.3, 130.5,
                                                 0.67, 48)),
    (r"\bT4\b", _gpu("Tesla T4", (7, 5), 40, 8.1, 65.0, 0.32, 16)),
    (r"A100.*80.*PCIE|A100.*PCIE.*80", _gpu("A100 80GB PCIe", (8, 0), 108, 19.5, 312.0, 1.94,
                                             80, 156.0, 312.0)),
    (r"A100.*80", _gpu("A100 80GB", (8, 0), 108, 19.5, 312.0, 2.04, 80, 156.0, 312.0)),
    (r"A100", _gpu("A100 40GB", (8, 0), 108, 19.5, 312.0, 1.56, 40, 156.0, 312.0)),
    (r"\bA10G\b", _gpu("A10G", (8, 6), 80, 31.2, 70.0, 0.60, 24, 35.0, 70.0)),
    (r"\bA10\b", _gpu("A10", (8, 6), 72, 31.2, 125.0, 0.60, 24, 62.5, 125.0)),
    (r"RTX\s*A6000", _gpu("RTX A6000", (8, 6), 84, 38.7, 154.8, 0.77, 48, 77.4, 154.8)),
    (r"\bA40\b", _gpu("A40", (8, 6), 84, 37.4, 149.7, 0.70, 48, 74.8, 149.7)),
    (r"\bA30\b", _gpu("A30", (8, 0), 56, 10.3, 165.0, 0.93, 24, 82.0, 165.0)),
    (r"RTX\s*6000\s*Ada", _gpu("RTX 6000 Ada", (8, 9), 142, 91.1, 364.2, 0.96, 48, 182.1,
                               364.2, 728.5)),
    (r"\bL4\b", _gpu("L4", (8, 9), 58, 30.3, 121.0, 0.30, 24, 60.0, 121.0, 242.0)),
    (r"L40S", _gpu("L40S", (8, 9), 142, 91.6, 362.0, 0.86, 48, 183.0, 362.0, 733.0)),
    (r"H100.*PCIE", _gpu("H100 PCIe", (9, 0), 114, 51.0, 756.0, 2.00, 80, 378.0, 756.0, 1513.0)),
    (r"H100", _gpu("H100 SXM", (9, 0), 132, 67.0, 989.0, 3.35, 80, 494.0, 989.0, 1979.0)),
    (r"H200", _gpu("H200", (9, 0), 132, 67.0, 989.0, 4.80, 141, 494.0, 989.0, 1979.0)),
    (r"B200", _gpu("B200", (10, 0), 148, 80.0, 2250.0, 8.00, 180, 1100.0, 2250.0, 4500.0)),
    (r"RTX\s*3060", _gpu("GeForce RTX 3060", (8, 6), 28, 12.7, 25.4, 0.36, 12, 12.7, 25.4)),
    (r"RTX\s*3070", _gpu("GeForce RTX 3070", (8, 6), 46, 20.3, 40.6, 0.45, 8, 20.3, 40.6)),
    (r"RTX\s*3080", _gpu("GeForce RTX 3080", (8, 6), 68, 29.8, 59.5, 0.76, 10, 29.8, 59.5)),
    (r"RTX\s*3090", _gpu("GeForce RTX 3090", (8, 6), 82, 35.6, 71.0, 0.94, 24, 35.6, 71.0)),
    (r"RTX\s*4060", _gpu("GeForce RTX 4060", (8, 9), 24, 15.1, 30.2, 0.27, 8, 15.1, 30.2, 60.4)),
    (r"RTX\s*4070", _gpu("GeForce RTX 4070", (8, 9), 46, 29.1, 58.3, 0.50, 12, 29.1, 58.3,
                         116.6)),
    (r"RTX\s*4080", _gpu("GeForce RTX 4080", (8, 9), 76, 48.7, 97.5, 0.72, 16, 48.7, 97.5,
                         194.9)),
    (r"RTX\s*4090", _gpu("GeForce RTX 4090", (8, 9), 128, 82.6, 165.2, 1.01, 24, 82.6, 165.2,
                         330.3)),
    (r"RTX\s*5070", _gpu("GeForce RTX 5070", (12, 0), 48, 30.9, 61.7, 0.67, 12, 30.9, 61.7,
                         123.5)),
    (r"RTX\s*5080", _gpu("GeForce RTX 5080", (12, 0), 84, 56.3, 112.6, 0.96, 16, 56.3, 112.6,
                         225.1)),
    (r"RTX\s*5090", _gpu("GeForce RTX 5090", (12, 0), 170, 104.8, 209.5, 1.79, 32, 104.8, 209.5,
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
