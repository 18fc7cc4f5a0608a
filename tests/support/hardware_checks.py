"""A hardware check (``HardwareCheck``, as the engine's check job returns it) of an
injected machine (support.machines), with its advice and measurements: what the
hardware panel shows, with no TensorFlow and no engine process."""

from __future__ import annotations

from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult

UNCHANGED = MemoryApplyResult("unchanged", "TensorFlow default, applied to 1 GPU(s)")


def check_of(sources, measurements=(), memory=UNCHANGED) -> HardwareCheck:
    report = detect_hardware(sources)
    return HardwareCheck(report, advise(report, measurements), tuple(measurements), memory)
