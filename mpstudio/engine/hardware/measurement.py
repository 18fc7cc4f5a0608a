"""Results of the micro-benchmark (no TensorFlow here: the advisor reads them)."""

from __future__ import annotations

import math
from dataclasses import dataclass

HALF_DTYPES = ("float16", "bfloat16")
POLICY_DTYPE = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16", "float32": "float32"}


@dataclass(frozen=True)
class KernelResult:
    kernel: str  # "matmul" | "conv"
    dtype: str  # "float32" | "float16" | "bfloat16"
    shape: str  # what was computed, for the table: "matmul 512x512x512"
    flops_per_step: float
    seconds_per_step: float | None  # None: it failed (see error)
    steps: int = 0
    error: str = ""

    @property
    def tflops(self) -> float | None:
        if not self.seconds_per_step:
            return None
        return self.flops_per_step / self.seconds_per_step / 1e12


@dataclass(frozen=True)
class DeviceMeasurement:
    device: str  # "GPU:0" | "CPU"
    baseline: str  # what float32 really ran as: "float32" or "TF32"
    xla: bool
    results: tuple[KernelResult, ...]
    stopped: bool = False

    def result(self, kernel: str, dtype: str) -> KernelResult | None:
        for result in self.results:
            if result.kernel == kernel and result.dtype == dtype:
                return result
        return None

    def kernel_speedup(self, kernel: str, dtype: str) -> float | None:
        """float32 time / ``dtype`` time for one kernel: above 1 means faster."""
        base, half = self.result(kernel, "float32"), self.result(kernel, dtype)
        if not (base and half and base.seconds_per_step and half.seconds_per_step):
            return None
        return base.seconds_per_step / half.seconds_per_step

    def speedup(self, dtype: str) -> float | None:
        """Geometric mean over the kernels that ran in both precisions."""
        ratios = [r for k in self.kernels if (r := self.kernel_speedup(k, dtype)) is not None]
        if not ratios:
            return None
        return math.exp(sum(math.log(r) for r in ratios) / len(ratios))

    def errors(self, dtype: str) -> list[str]:
        return [f"{r.kernel}: {r.error}" for r in self.results if r.dtype == dtype and r.error]

    @property
    def kernels(self) -> list[str]:
        return list(dict.fromkeys(r.kernel for r in self.results))

    def to_dict(self) -> dict:
        return {
            "device": self.device, "baseline": self.baseline, "xla": self.xla,
            "stopped": self.stopped,
            "results": [{"kernel": r.kernel, "dtype": r.dtype, "shape": r.shape,
                         "tflops": r.tflops, "seconds_per_step": r.seconds_per_step,
                         "steps": r.steps, "error": r.error or None,
                         "speedup": (self.kernel_speedup(r.kernel, r.dtype)
                                     if r.dtype in HALF_DTYPES else None)}
                        for r in self.results],
            "speedup": {d: self.speedup(d) for d in HALF_DTYPES},
        }
