"""The whole hardware check in one call, for the CLI and the GUI's worker thread:
apply the saved GPU memory settings (before anything initializes the GPUs), detect,
optionally measure, advise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mpstudio.engine.app_settings import settings_path
from mpstudio.engine.hardware.advisor import Advice, advise
from mpstudio.engine.hardware.detect import HardwareSources, detect_hardware
from mpstudio.engine.hardware.gpu_memory import (
    GpuConfig,
    MemoryApplyResult,
    apply_saved_gpu_memory,
)
from mpstudio.engine.hardware.measurement import DeviceMeasurement
from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.said import english

if TYPE_CHECKING:
    from mpstudio.engine.prediction.for_hardware import DevicePrediction, Workload


@dataclass(frozen=True)
class HardwareCheck:
    report: HardwareReport
    advice: Advice
    measurements: tuple[DeviceMeasurement, ...]
    memory: MemoryApplyResult
    predictions: tuple[DevicePrediction, ...] = ()  # the workload on each device

    @property
    def stopped(self) -> bool:
        return any(m.stopped for m in self.measurements)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hardware": self.report.to_dict(),
            "advice": self.advice.to_dict(),
            "measurements": [m.to_dict() for m in self.measurements],
            "predictions": [p.to_dict() for p in self.predictions],
            "gpu_memory": {"settings_file": str(settings_path()), "status": self.memory.status,
                           "message": english(self.memory.message)},
        }


def run_hardware_check(
    measure: bool = False,
    seconds_per_case: float = 0.5,
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    sources: HardwareSources | None = None,
    gpu_config: GpuConfig | None = None,
    workload: Workload | None = None,
) -> HardwareCheck:
    """Blocks for a few seconds (TensorFlow import), plus 10-20 s with ``measure``:
    call it off the GUI thread. ``should_stop`` ends the measurement at once
    (the interrupted case is dropped). ``workload``: the model to predict on each device
    (a GPU in the table, the CPU once measured); the verdicts of an unmeasured device
    then come from its prediction."""
    memory = apply_saved_gpu_memory(gpu_config)
    report = detect_hardware(sources)
    measurements: list[DeviceMeasurement] = []
    if measure:
        from mpstudio.engine.hardware.microbench import measure as run_measurement

        measurements = run_measurement(report, seconds_per_case, progress, should_stop)
    predictions: list[DevicePrediction] = []
    if workload is not None:
        from mpstudio.engine.prediction.for_hardware import predict_devices

        predictions = predict_devices(report, workload, measurements)
    advice = advise(report, measurements, {p.device: p.prediction for p in predictions})
    return HardwareCheck(report, advice, tuple(measurements), memory, tuple(predictions))
