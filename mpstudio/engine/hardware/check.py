"""The whole hardware check in one call, for the CLI and the GUI's worker thread:
apply the saved GPU memory settings (before anything initializes the GPUs), detect,
optionally measure (the kernels on every device, then the setup's own model on the
device a run here uses), advise."""

from __future__ import annotations

import dataclasses
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
    from mpstudio.engine.prediction.measurement import ModelMeasurement
    from mpstudio.engine.spec import RunSpec

# The setup's model is timed this many times as long per precision as a kernel per case
# (the window's one "seconds" setting: 0.5 s a case, 2 s a precision).
MODEL_SECONDS_PER_CASE = 4.0


@dataclass(frozen=True)
class HardwareCheck:
    report: HardwareReport
    advice: Advice
    measurements: tuple[DeviceMeasurement, ...]
    memory: MemoryApplyResult
    predictions: tuple[DevicePrediction, ...] = ()  # the workload on each device
    # the workload's model timed on the device a run here uses (Measure, with a setup)
    model_measurement: ModelMeasurement | None = None

    @property
    def stopped(self) -> bool:
        return (any(m.stopped for m in self.measurements)
                or (self.model_measurement is not None and self.model_measurement.stopped))

    def predicted_speedups(self, device: str) -> dict[str, float]:
        """Each precision's predicted speed against float32 on ``device`` (its label),
        float32 itself 1.0; empty where the device has no prediction."""
        for d in self.predictions:
            if d.device == device:
                return {name: 1.0 if p.speedup is None else p.speedup
                        for name, p in d.prediction.predictions.items()}
        return {}

    def without_model_measurement(self) -> HardwareCheck:
        """This check as it would read had the model not been timed (the setup changed
        since): the verdicts from the kernels, the predictions and the rules again."""
        if self.model_measurement is None:
            return self
        return dataclasses.replace(self, model_measurement=None, advice=advise(
            self.report, self.measurements, {p.device: p.prediction for p in self.predictions}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "hardware": self.report.to_dict(),
            "advice": self.advice.to_dict(),
            "measurements": [m.to_dict() for m in self.measurements],
            "predictions": [p.to_dict() for p in self.predictions],
            "model_measurement": (self.model_measurement.to_dict()
                                  if self.model_measurement is not None else None),
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
    model_spec: RunSpec | None = None,
) -> HardwareCheck:
    """Blocks for a few seconds (TensorFlow import), plus 10-20 s with ``measure`` (and
    a few seconds a precision for ``model_spec``'s model): call it off the GUI thread.
    ``should_stop`` ends the measurement at once (the interrupted case is dropped).
    ``workload``: the model to predict on each device (a GPU in the table, the CPU once
    measured); the verdicts of an unmeasured device then come from its prediction.
    ``model_spec`` (with ``measure`` and ``workload``): the run set up, whose model is
    then timed under each precision on this machine, and the verdicts there follow that."""
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
    model = None
    if measure and workload is not None and model_spec is not None and not should_stop():
        from mpstudio.engine.prediction.for_hardware import measure_workload

        model = measure_workload(model_spec, workload, predictions,
                                 MODEL_SECONDS_PER_CASE * seconds_per_case, progress,
                                 should_stop)
    advice = advise(report, measurements, {p.device: p.prediction for p in predictions},
                    model)
    return HardwareCheck(report, advice, tuple(measurements), memory, tuple(predictions),
                         model)
