"""The hardware check's predictions: the user's model on each device the check found,
where the device's rates are known (a GPU in the table, a CPU the check measured)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from mpstudio.engine.prediction.measurement import ModelMeasurement

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Workload:
    """What a prediction is for: a template (or .keras file) on data of this shape."""

    template: str = "mlp"
    batch_size: int = 128
    input_shape: tuple[int, ...] = (8, 8, 1)
    classes: int = 10
    input_scale: float | None = 1 / 16  # digits: stored as 0..16
    own_inputs: bool = False  # a model file's own input: the data's does not fit it

    @staticmethod
    def of_spec(spec: Any) -> Workload:
        """The spec's model on the spec's data; a model file the data does not fit (or
        whose data cannot be read) on its own input shape and classes."""
        from mpstudio.engine.memory_estimate import model_inputs
        from mpstudio.engine.templates.user_model import is_model_file

        if is_model_file(spec.template):
            return _model_file_workload(spec)
        shape, classes, scale = model_inputs(spec)
        return Workload(spec.template, spec.batch_size, tuple(shape), classes, scale)

    def inputs_text(self) -> str:
        """"for its own input 224x224x3, 1000 classes" where that is what it is for."""
        from mpstudio.engine.templates.user_model import own_inputs_text

        return own_inputs_text(self.input_shape, self.classes) if self.own_inputs else ""


def _model_file_workload(spec: Any) -> Workload:
    from mpstudio.engine.memory_estimate import model_inputs
    from mpstudio.engine.templates.user_model import data_or_own_inputs, own_inputs

    try:
        data = model_inputs(spec)
    except Exception:  # data not on disk yet, a file that cannot be read: the model's own
        log.info("the data of %s cannot be read: its own input is predicted", spec.template,
                 exc_info=True)
        return Workload(spec.template, spec.batch_size, *own_inputs(spec.template),
                        own_inputs=True)
    # SpecError from here: a model file mpstudio cannot train
    shape, classes, scale, misfit = data_or_own_inputs(spec.template, tuple(data[0]), data[1],
                                                       data[2])
    return Workload(spec.template, spec.batch_size, shape, classes, scale,
                    own_inputs=bool(misfit))


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
        if workload.own_inputs:
            prediction = dataclasses.replace(prediction, inputs=workload.inputs_text())
        out.append(DevicePrediction(label, prediction,
                                    larger_batch(costed[key], prediction, rates)))
    return out


def measure_workload(spec: Any, workload: Workload, predictions: Sequence[DevicePrediction],
                     seconds: float, progress: Callable[[int, int, str], None] | None,
                     should_stop: Callable[[], bool]) -> ModelMeasurement:
    """The workload's model (``spec``'s optimizer, loop, XLA) timed under each precision
    its prediction for this machine's run device has, on that device: on ``spec``'s data
    where it fits the model and is on disk, else on synthetic data of the workload's."""
    from mpstudio.engine.prediction.measure_model import (
        PRECISIONS,
        data_on_disk,
        measure_model,
        run_device_label,
    )

    here = run_device_label()
    predicted = next((p.prediction for p in predictions if p.device == here), None)
    precisions = tuple(predicted.predictions) if predicted is not None else PRECISIONS
    return measure_model(spec.replace(template=workload.template,
                                      batch_size=workload.batch_size),
                         workload.input_shape, workload.classes, precisions, seconds=seconds,
                         progress=progress, should_stop=should_stop,
                         on_data=not workload.own_inputs and data_on_disk(spec),
                         own_inputs=workload.own_inputs)
