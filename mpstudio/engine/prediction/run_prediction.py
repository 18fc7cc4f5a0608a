"""A run's own prediction, made as it starts: its step on the device it runs on, kept
with its summary so that a comparison's card sets the predicted speedup beside the
measured one (and a card rebuilt from history shows the same)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import keras

    from mpstudio.engine.device_info import RunDevices
    from mpstudio.engine.prediction.device_rates import DeviceRates
    from mpstudio.engine.spec import RunSpec

log = logging.getLogger(__name__)


def run_device_rates(devices: RunDevices, measure: bool = True) -> DeviceRates | None:
    """The rates of the device a run computes on: a GPU from the table (None when the
    table does not know it), the CPU as measured once (after the run's peak is read:
    what the measurement allocates is no part of it), no TPU. ``measure=False``: a CPU
    whose rates are not kept yet has none (a stopped run does not wait for the
    measurement). Never raises: a run goes on without a prediction."""
    try:
        return _rates(devices, measure)
    except Exception:  # a device that cannot be measured
        log.warning("no rates for this run's device", exc_info=True)
        return None


def _rates(devices: RunDevices, measure: bool) -> DeviceRates | None:
    from mpstudio.engine.prediction.device_rates import gpu_rates

    if devices.kind == "CPU":
        import os

        from mpstudio.engine.cpu_allocator import LIMIT_ENV
        from mpstudio.engine.prediction.cpu_rates import cached_cpu_rates

        # under a memory cap (a batch finder's try) the measurement could run out of
        # it: such a run takes the kept rates, or goes without a prediction
        return cached_cpu_rates(measure=measure and LIMIT_ENV not in os.environ)
    if devices.kind == "GPU":
        from mpstudio.engine.device_info import visible_gpus

        gpus = visible_gpus()
        index = int(devices.devices[0].rsplit(":", 1)[-1]) if devices.devices else 0
        return gpu_rates(gpus[index].name) if index < len(gpus) else None
    return None


def predict_run(model: keras.Model, spec: RunSpec,
                rates: DeviceRates | None) -> dict[str, Any] | None:
    """{"examples_per_sec", "step_ms", "bound", "half_share", "device", "rates_from"} for
    the run's own model, precision and batch per replica on a device of ``rates``; None
    without rates or where the prediction fails (it never stops a run)."""
    from mpstudio.engine.prediction.layer_costs import model_costs
    from mpstudio.engine.prediction.predict import calibration_for
    from mpstudio.engine.prediction.step_time import step_time

    if rates is None:
        return None
    try:
        step = step_time(model_costs(model), spec.batch_size, rates, calibration_for(rates),
                         mixed=spec.precision != "float32",
                         loss_scaling=spec.loss_scaling_mode == "dynamic")
    except Exception:  # a layer the costs cannot read
        log.warning("no prediction for this run", exc_info=True)
        return None
    return {"examples_per_sec": spec.batch_size / step.seconds,
            "step_ms": step.seconds * 1e3, "bound": step.bound,
            "half_share": step.half_share, "device": rates.name, "rates_from": rates.source}
