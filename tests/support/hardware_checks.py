"""A hardware check (``HardwareCheck``, as the engine's check job returns it) of an
injected machine (support.machines), with its advice and measurements: what the
hardware panel shows, with no TensorFlow and no engine process; and a measurement of
a device's kernels (Hardware > Measure) with the seconds a test gives them."""

from __future__ import annotations

from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
from mpstudio.engine.hardware.measurement import DeviceMeasurement, KernelResult

UNCHANGED = MemoryApplyResult("unchanged", "TensorFlow default, applied to 1 GPU(s)")


def check_of(sources, measurements=(), memory=UNCHANGED) -> HardwareCheck:
    report = detect_hardware(sources)
    return HardwareCheck(report, advise(report, measurements), tuple(measurements), memory)


def measured(device: str, f32: float, f16: float, bf16: float, baseline: str = "float32",
             stopped: bool = False) -> DeviceMeasurement:
    """``device``'s matmul and conv kernels, each taking these seconds a step in float32,
    float16 and bfloat16 (``baseline``: its float32 math, "TF32" on an Ampere GPU)."""
    results = []
    for kernel, shape in (("matmul", "matmul 512x512x512"), ("conv", "conv 3x3 8x32x32x64")):
        for dtype, seconds in (("float32", f32), ("float16", f16), ("bfloat16", bf16)):
            results.append(KernelResult(kernel, dtype, shape, 1e9, seconds, 10))
    return DeviceMeasurement(device, baseline, device != "CPU", tuple(results), stopped)
