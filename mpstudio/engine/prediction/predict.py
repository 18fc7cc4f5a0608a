"""Predict a model's payoff from mixed precision on a device before a run: each
precision's examples/s, its speedup over float32 (TF32 where the device runs float32 as
TF32) with a range, its peak memory, how much of its arithmetic really computes in the
half type, and what bounds its step.

The model is built under each precision (nothing is trained or allocated on a device)
and costed layer by layer (``layer_costs``) against the device's rates
(``device_rates``); ``step_time`` turns that into a step's time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mpstudio.engine.prediction.calibration import GPU_CALIBRATION, Calibration
from mpstudio.engine.prediction.device_rates import DeviceRates
from mpstudio.engine.prediction.layer_costs import LayerCost
from mpstudio.engine.prediction.step_time import LayerTime, StepTime, step_time

if TYPE_CHECKING:
    import keras

FLOAT32, FLOAT16, BFLOAT16, FLOAT8 = "float32", "mixed_float16", "mixed_bfloat16", "float8"
# A speedup inside this band is no gain to speak of: noise and the step's own jitter.
NO_GAIN = (0.9, 1.1)


@dataclass(frozen=True)
class PrecisionPrediction:
    precision: str
    examples_per_s: float
    step_seconds: float
    peak_bytes: int
    half_share: float  # of the step's matmul/convolution FLOPs, computed in a half type
    bound: str  # "dispatch" | "compute" | "memory"
    speedup: float | None = None  # over float32 (None for float32 itself)
    speedup_low: float | None = None
    speedup_high: float | None = None
    step: StepTime | None = None  # where the step's time goes (its parts, its layers)
    # the device's memory does not hold the batch asked for: the largest it holds (0:
    # not even one example); None where it fits, or the device's memory is not known
    largest_batch: int | None = None

    @property
    def parts(self) -> dict[str, float]:
        """Seconds of the step by what bounds them: the products' arithmetic, moving
        bytes, kernels' fixed time, the optimizer's update, and the host's loop."""
        s = self.step
        if s is None:
            return {}
        return {"compute": s.compute, "memory": s.memory, "launch": s.launch,
                "optimizer": s.optimizer, "host": s.fixed}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"examples_per_s": round(self.examples_per_s, 1),
                               "step_ms": round(self.step_seconds * 1e3, 4),
                               "peak_bytes": int(self.peak_bytes),
                               "half_share": round(self.half_share, 4), "bound": self.bound,
                               "parts_ms": {k: round(v * 1e3, 4)
                                            for k, v in self.parts.items()}}
        for key, value in (("speedup", self.speedup), ("speedup_low", self.speedup_low),
                           ("speedup_high", self.speedup_high)):
            if value is not None:  # all three, or none (float32 itself)
                out[key] = round(value, 3)
        if self.largest_batch is not None:
            out["fits"] = False
            out["largest_batch_that_fits"] = self.largest_batch
        return out


@dataclass(frozen=True)
class Prediction:
    device: str
    template: str
    batch_size: int
    baseline: str  # what float32 runs as there: "TF32" or "float32"
    predictions: dict[str, PrecisionPrediction]
    source: str  # where the device's rates come from
    device_kind: str = "GPU"
    # a CPU's measured half-type matmul rate over its float32 rate, per dtype
    half_rate_ratio: dict[str, float] = field(default_factory=dict)
    # "for its own input 224x224x3, 1000 classes": a model file predicted on its own
    # input, which the data's does not fit ("": on the data's)
    inputs: str = ""

    def best_half(self) -> PrecisionPrediction | None:
        halves = [p for k, p in self.predictions.items() if k != FLOAT32 and p.speedup]
        return max(halves, key=lambda p: p.speedup or 0.0, default=None)

    def largest_layers(self, count: int = 10) -> list[dict[str, Any]]:
        """The layers that take most of the float32 step, each with its time and what
        bounds it under every precision (``predict --explain``)."""
        steps = {name: p.step for name, p in self.predictions.items() if p.step}
        base = steps.get(FLOAT32)
        if base is None:
            return []
        others = {name: {t.name: t for t in step.layers} for name, step in steps.items()}
        rows = []
        for layer in sorted(base.layers, key=lambda t: -t.seconds)[:count]:
            row: dict[str, Any] = {"name": layer.name, "kind": layer.kind, "precisions": {}}
            for name, by_name in others.items():
                t: LayerTime | None = by_name.get(layer.name)
                if t is not None:
                    row["precisions"][name] = {"ms": round(t.seconds * 1e3, 4),
                                               "bound": t.bound, "math": t.math}
            rows.append(row)
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {"device": self.device, "template": self.template,
                "batch_size": self.batch_size, "baseline": self.baseline,
                "rates_from": self.source,
                "predictions": {k: v.to_dict() for k, v in self.predictions.items()}}


def _precisions(device: DeviceRates, wanted: Sequence[str] | None) -> list[str]:
    listed = [FLOAT32, FLOAT16, BFLOAT16] + ([FLOAT8] if device.fp8 else [])
    return [p for p in listed if wanted is None or p in wanted or p == FLOAT32]


def _build(template: str, input_shape: tuple[int, ...], classes: int, precision: str,
           input_scale: float | None, float32_layers: Sequence[str]) -> keras.Model:
    from mpstudio.engine.float8 import keras_policy, quantize_float8
    from mpstudio.engine.templates.registry import build_model

    model = build_model(template, input_shape, classes, keras_policy(precision),
                        input_scale=input_scale, float32_layers=float32_layers)
    if precision == FLOAT8:
        quantize_float8(model)
    return model


def _peak_of(model: keras.Model, precision: str, device: DeviceRates) -> Callable[[int], int]:
    from mpstudio.engine.float8 import keras_policy
    from mpstudio.engine.memory_estimate import estimate_memory
    from mpstudio.engine.precision import make_optimizer
    from mpstudio.engine.spec import RunSpec

    optimizer = make_optimizer(RunSpec(precision=keras_policy(precision)))

    def peak(batch: int) -> int:
        return estimate_memory(model, batch, optimizer, precision, device.kind).total

    return peak


@dataclass(frozen=True)
class CostedModel:
    """One precision's model, costed once: any batch is then predicted without it."""

    precision: str
    costs: tuple[LayerCost, ...]
    peak: Callable[[int], int]  # batch -> predicted peak bytes


def costed_models(template: str, input_shape: tuple[int, ...], classes: int,
                  device: DeviceRates, input_scale: float | None = None,
                  float32_layers: Sequence[str] = (),
                  precisions: Sequence[str] | None = None) -> list[CostedModel]:
    """``template`` built under each precision the device offers (float32 first)."""
    from mpstudio.engine.prediction.layer_costs import model_costs

    out = []
    for precision in _precisions(device, precisions):
        model = _build(template, input_shape, classes, precision, input_scale,
                       float32_layers)
        out.append(CostedModel(precision, tuple(model_costs(model)),
                               _peak_of(model, precision, device)))
    return out


def predict_costed(models: Sequence[CostedModel], template: str, batch: int,
                   device: DeviceRates, calibration: Calibration | None = None) -> Prediction:
    """The prediction at ``batch`` per replica from models costed once."""
    calibration = calibration or calibration_for(device)
    steps = {m.precision: step_time(m.costs, batch, device, calibration,
                                    mixed=m.precision != FLOAT32,
                                    loss_scaling=m.precision == FLOAT16) for m in models}
    base = steps[FLOAT32].seconds
    out: dict[str, PrecisionPrediction] = {}
    for model in models:
        step = steps[model.precision]
        speedup = None if model.precision == FLOAT32 else base / step.seconds
        low = high = None
        if speedup is not None:
            low, high = speedup * (1 - calibration.spread), speedup * (1 + calibration.spread)
        out[model.precision] = PrecisionPrediction(
            model.precision, batch / step.seconds, step.seconds, model.peak(batch),
            step.half_share, step.bound, speedup, low, high, step,
            _largest_batch(model, batch, device))
    ratios = {dtype: device.rate(dtype) / device.rate("float32")
              for dtype in ("float16", "bfloat16")} if device.kind == "CPU" else {}
    return Prediction(device.name, template, batch, "TF32" if device.tf32 else "float32",
                      out, device.source, device.kind, ratios)


def predict(template: str, input_shape: tuple[int, ...], classes: int, batch: int,
            device: DeviceRates, input_scale: float | None = None,
            float32_layers: Sequence[str] = (), precisions: Sequence[str] | None = None,
            calibration: Calibration | None = None) -> Prediction:
    """The prediction for ``template`` on ``device`` at ``batch`` per replica."""
    models = costed_models(template, input_shape, classes, device, input_scale,
                           float32_layers, precisions)
    return predict_costed(models, template, batch, device, calibration)


FITS_SHARE = 0.9  # of the device's memory: what a run can count on (the rest: the runtime)


def _largest_batch(model: CostedModel, batch: int, device: DeviceRates) -> int | None:
    """The largest batch whose predicted peak fits the device, where ``batch`` does not
    (None: it fits, or the device's memory is not known). The peak grows with the batch:
    a bisection."""
    limit = FITS_SHARE * device.memory_gib * 2**30
    if not device.memory_gib or model.peak(batch) <= limit:
        return None
    fits, too_large = 0, batch
    while too_large - fits > 1:
        middle = (fits + too_large) // 2
        if model.peak(middle) <= limit:
            fits = middle
        else:
            too_large = middle
    return fits


def larger_batch(models: Sequence[CostedModel], prediction: Prediction,
                 device: DeviceRates, most: int = 8192) -> Prediction | None:
    """The smallest larger batch (x2, x4, ... up to ``most``, within 90% of the device's
    memory) where the best half precision reaches nine tenths of its best gain, when that
    is clearly more than at the batch asked for (0.15 or more); None otherwise."""
    now = prediction.best_half()
    candidates: list[tuple[Prediction, float]] = []
    batch = prediction.batch_size * 2
    while batch <= most:
        candidate = predict_costed(models, prediction.template, batch, device)
        half = candidate.best_half()
        if half is None or (device.memory_gib
                            and half.peak_bytes > FITS_SHARE * device.memory_gib * 2**30):
            break
        candidates.append((candidate, half.speedup or 0.0))
        batch *= 2
    if not candidates:
        return None
    best = max(gain for _, gain in candidates)
    if now is not None and best < (now.speedup or 0.0) + 0.15:
        return None
    return next(p for p, gain in candidates if gain >= 0.9 * best)


def calibration_for(device: DeviceRates) -> Calibration:
    if device.kind == "GPU":
        return GPU_CALIBRATION
    from mpstudio.engine.prediction.cpu_rates import CPU_CALIBRATION

    return CPU_CALIBRATION
