"""A model's speed measured on this machine's device, beside its prediction: each
precision's examples/s (the median of its timed windows and their quartiles), its
speedup over float32 timed the same way, and the sentences that say so.

Made by ``measure_model`` (the run path on synthetic data); read by the command line
(``mpstudio predict --measure``), the advisor (verdicts then follow the measurement) and
the window (the Hardware tab, the setup's line). No TensorFlow here: the window reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mpstudio.engine.i18n import _
from mpstudio.engine.said import english

FLOAT32 = "float32"


@dataclass(frozen=True)
class PrecisionMeasurement:
    """One precision timed, or why it could not be (``failure``, a sentence)."""

    precision: str
    examples_per_s: float | None = None  # the median of the timed windows
    low: float | None = None  # the windows' lower and upper quartiles
    high: float | None = None
    steps: int = 0  # steps timed, after the warm-up
    seconds: float = 0.0  # what those steps took
    windows: int = 0  # timed windows the median is taken over
    speedup: float | None = None  # over float32 timed here; None for float32 itself
    speedup_low: float | None = None  # the quartiles against float32's, crosswise
    speedup_high: float | None = None
    failure: str = ""  # a Said: out of memory at this batch, a setup that failed...

    @property
    def ok(self) -> bool:
        return self.examples_per_s is not None

    @property
    def spread(self) -> float | None:
        """The windows' interquartile range as a share of the median."""
        if self.examples_per_s is None or self.low is None or self.high is None:
            return None
        return (self.high - self.low) / self.examples_per_s

    def to_dict(self) -> dict[str, Any]:
        if not self.ok:
            return {"failed": english(self.failure)}
        out: dict[str, Any] = {
            "examples_per_s": round(self.examples_per_s or 0.0, 1),
            "examples_per_s_low": round(self.low or 0.0, 1),
            "examples_per_s_high": round(self.high or 0.0, 1),
            "spread": round(self.spread or 0.0, 4), "steps": self.steps,
            "seconds": round(self.seconds, 3), "windows": self.windows}
        if self.speedup is not None:
            out.update(speedup=round(self.speedup, 3),
                       speedup_low=round(self.speedup_low or 0.0, 3),
                       speedup_high=round(self.speedup_high or 0.0, 3))
        return out


@dataclass(frozen=True)
class ModelMeasurement:
    """A model timed under each precision at one batch on the device a run here uses."""

    device: str  # the hardware check's label of that device: "CPU", "GPU:0"
    device_name: str  # RunDevices.label, in English: "CPU (x86_64, 2 cores)" (device_text)
    template: str
    batch_size: int
    input_shape: tuple[int, ...]
    classes: int
    precisions: tuple[PrecisionMeasurement, ...]
    warmup_steps: int
    seconds_per_precision: float
    baseline: str = FLOAT32  # what float32 computed in: "TF32" on Ampere and newer
    stopped: bool = False  # a Stop ended it: precisions after it are missing
    own_inputs: bool = False  # a model file's own input (the data's did not fit it)
    data: str = ""  # the dataset timed on, as a comparison trains on it; "": synthetic

    def timed_on(self) -> str:
        """What the model was timed on, in words."""
        if self.data:
            return _("{data}, as a comparison trains on it").format(data=self.data)
        return _("synthetic data of its input shape")

    def get(self, precision: str) -> PrecisionMeasurement | None:
        return next((p for p in self.precisions if p.precision == precision), None)

    def speedup(self, precision: str) -> float | None:
        found = self.get(precision)
        return found.speedup if found is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {"device": self.device, "device_name": self.device_name,
                "template": self.template, "batch_size": self.batch_size,
                "input_shape": list(self.input_shape), "classes": self.classes,
                "warmup_steps": self.warmup_steps,
                "seconds_per_precision": self.seconds_per_precision,
                "baseline": self.baseline, "stopped": self.stopped,
                "data": self.data or "synthetic",
                "precisions": {p.precision: p.to_dict() for p in self.precisions}}


def with_speedups(timed: list[PrecisionMeasurement]) -> tuple[PrecisionMeasurement, ...]:
    """``timed`` with each half precision's speedup over float32's median (its range: the
    quartiles crosswise, the slow half over the fast float32 and the other way)."""
    import dataclasses

    base = next((p for p in timed if p.precision == FLOAT32 and p.ok), None)
    if base is None or not base.examples_per_s:
        return tuple(timed)
    out = []
    for p in timed:
        if p.precision != FLOAT32 and p.ok and p.examples_per_s:
            p = dataclasses.replace(
                p, speedup=p.examples_per_s / base.examples_per_s,
                speedup_low=(p.low or p.examples_per_s) / (base.high or base.examples_per_s),
                speedup_high=(p.high or p.examples_per_s) / (base.low or base.examples_per_s))
        out.append(p)
    return tuple(out)


# ------------------------------------------------------------------ in words


def prediction_error(predicted: float, measured: float | None) -> float | None:
    """How far a predicted figure is off the measured one, as a share of the measured."""
    return None if not measured else predicted / measured - 1.0


def measured_gain(p: PrecisionMeasurement, baseline: str) -> str:
    """"0.68x float32 (0.66-0.70x)"."""
    return _("{speedup:.2f}x {baseline} ({low:.2f}-{high:.2f}x)").format(
        speedup=p.speedup or 0.0, baseline=baseline, low=p.speedup_low or 0.0,
        high=p.speedup_high or 0.0)


def measured_line(measurement: ModelMeasurement, precision: str,
                  predicted: float | None = None) -> str:
    """"mixed_float16 measured on CPU (x86_64, 2 cores) at batch 128: 0.68x float32
    (0.66-0.70x), 41,400 examples/s over 1,020 steps; predicted 0.78x"; for float32 its
    examples/s; why it was not measured where it failed."""
    p = measurement.get(precision)
    if p is None:
        return ""
    from mpstudio.engine.hardware.device_text import device_text
    from mpstudio.engine.templates.user_model import own_inputs_text, with_inputs

    inputs = (own_inputs_text(measurement.input_shape, measurement.classes)
              if measurement.own_inputs else "")
    where = {"precision": precision, "device": device_text(measurement.device_name),
             "batch": with_inputs(measurement.batch_size, inputs)}
    if not p.ok:
        return _("{precision} could not be measured on {device} at batch {batch}: "
                 "{reason}").format(**where, reason=p.failure)
    figures = {"examples": f"{p.examples_per_s or 0.0:,.0f}", "steps": p.steps}
    if p.speedup is None:
        line = _("{precision} measured on {device} at batch {batch}: {examples} examples/s "
                 "over {steps:,} steps").format(**where, **figures)
    else:
        line = _("{precision} measured on {device} at batch {batch}: {gain}, {examples} "
                 "examples/s over {steps:,} steps").format(
                     **where, **figures, gain=measured_gain(p, measurement.baseline))
    if predicted is not None and p.speedup is not None:
        line = _("{line}; predicted {predicted:.2f}x").format(line=line, predicted=predicted)
    return line


def measured_payoff(measurement: ModelMeasurement, precision: str,
                    predicted: dict[str, float] | None = None) -> str:
    """The setup's line once its model is measured: ``precision``'s, or where float32 is
    chosen the fastest half precision's; "" where neither was timed."""
    shown = precision
    if precision == FLOAT32:
        halves = [p for p in measurement.precisions if p.speedup is not None]
        if halves:
            shown = max(halves, key=lambda p: p.speedup or 0.0).precision
    if measurement.get(shown) is None:
        return ""
    return measured_line(measurement, shown, (predicted or {}).get(shown))
