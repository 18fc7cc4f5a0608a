"""The hardware check's predictions: the user's model on each device the check found,
where the device's rates are known (a GPU in the table, a CPU the check measured)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mpstudio.engine.hardware.measurement import DeviceMeasurement
from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.prediction.device_rates import DeviceRates, gpu_rates
from mpstudio.engine.prediction.predict import (
    CostedModel,
    Prediction,
    costed_models,
    larger_batch,
    predict_costed,
)


@dataclass(frozen=True)
class Workload:
    """What a prediction is for: a template (or .keras file) on data of this shape."""

    template: str = "mlp"
    batch_size: int = 128
    input_shape: tuple[int, ...] = (8, 8, 1)
    classes: int = 10
    input_scale: float | None = 1 / 16  # digits: stored as 0..16

    @staticmethod
    def of_spec(spec: Any) -> Workload:
        from mpstudio.engine.memory_estimate import model_inputs

        shape, classes, scale = model_inputs(spec)
        return Workload(spec.template, spec.batch_size, tuple(shape), classes, scale)


@dataclass(frozen=True)
class DevicePrediction:
    device: str  # the check's label: "GPU:0", "CPU"
    prediction: Prediction
    larger: Prediction | None  # a larger batch that gains clearly more

    def to_dict(self) -> dict[str, Any]:
        out = {"device_label": self.device, **self.prediction.to_dict()}
        if self.larger is not None:
            out["larger_batch"] = self.larger.to_dict()
        return out


def measured_cpu(measurements: Sequence[DeviceMeasurement], name: str) -> DeviceRates | None:
    from mpstudio.engine.prediction.cpu_rates import cpu_rates

    for m in measurements:
        if m.device == "CPU":
            rates: dict[str, dict[str, float]] = {"matmul": {}, "conv": {}}
            for r in m.results:
                if r.tflops:
                    rates[r.kernel][r.dtype] = r.tflops
            if rates["matmul"].get("float32"):
                return cpu_rates(name, rates["matmul"], rates["conv"])
    return None


def predict_devices(report: HardwareReport, workload: Workload,
                    measurements: Sequence[DeviceMeasurement] = ()) -> list[DevicePrediction]:
    """A prediction per usable GPU in the table, and for the CPU where it was measured."""
    targets: list[tuple[str, DeviceRates]] = []
    for gpu in report.usable_gpus:
        rates = gpu_rates(gpu.name)
        if rates is not None:
            targets.append((gpu.label, rates))
    cpu = measured_cpu(measurements, report.cpu.model or "CPU")
    if cpu is not None:
        targets.append(("CPU", cpu))
    out = []
    costed: dict[str, list[CostedModel]] = {}
    for label, rates in targets:
        key = rates.kind + str(rates.fp8)
        if key not in costed:
            costed[key] = costed_models(workload.template, workload.input_shape,
                                        workload.classes, rates, workload.input_scale)
        prediction = predict_costed(costed[key], workload.template, workload.batch_size,
                                    rates)
        out.append(DevicePrediction(label, prediction,
                                    larger_batch(costed[key], prediction, rates)))
    return out
