"""Made-up but realistic run events, for the charts' preview, tests and benchmark.

The shapes follow a real run: a loss that falls and flattens, accuracy that rises,
a warm-up whose first windows are slow (tracing, compilation), and dynamic loss
scaling that halves on an overflow (the step is skipped) and doubles after a
quiet stretch. No TensorFlow: the events are built directly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

from mpstudio.engine.events import (
    EpochMetrics,
    Event,
    LossScaleChanged,
    RunStarted,
    StepMetrics,
)
from mpstudio.engine.model_summary import ModelSummary


def run_started(label: str, precision: str, batch_size: int, steps_per_epoch: int,
                total_steps: int, log_every: int) -> RunStarted:
    spec = {"precision": precision, "batch_size": batch_size, "template": "mlp",
            "dataset": "synthetic", "loss_scaling": {"mode": "auto"}}
    return RunStarted(
        label=label, spec=spec, hardware={}, dataset="synthetic",
        model=ModelSummary(name="demo", policy=precision, params=0, trainable_params=0,
                           layers=()),
        steps_per_epoch=steps_per_epoch, total_steps=total_steps, log_every_steps=log_every,
        xla=False, loss_scaling="dynamic" if precision == "mixed_float16" else "none",
    )


def synthetic_run(
    label: str,
    precision: str = "mixed_float16",
    *,
    steps: int = 400,
    steps_per_epoch: int = 80,
    log_every: int = 5,
    batch_size: int = 128,
    warmup_samples: int = 3,
    speed: float = 12_000.0,  # steady examples/s
    loss_scale: float | None = 32768.0,  # None: no loss scaling (float32, bfloat16)
    startup_overflows: int = 2,  # the first samples overflow, as float16 runs often do
    overflow_rate: float = 0.02,  # chance that a later sample saw an overflow
    growth_steps: int = 100,  # quiet steps before the scale doubles
    seed: int = 0,
    started: bool = True,
) -> Iterator[Event]:
    """Every event of one run, in the order the engine emits them."""
    rng = random.Random(seed)
    if started:
        yield run_started(label, precision, batch_size, steps_per_epoch, steps, log_every)
    scale, overflows, quiet = loss_scale, 0, 0
    for sample, step in enumerate(range(log_every, steps + 1, log_every), start=1):
        progress = step / max(1, steps)
        loss = 2.2 * math.exp(-6 * progress) + 0.2 + rng.gauss(0, 0.03)
        accuracy = min(1.0, 0.98 - 0.85 * math.exp(-7 * progress) + rng.gauss(0, 0.01))
        if scale is not None:
            overflow = sample <= startup_overflows or rng.random() < overflow_rate
            if overflow:
                overflows += 1
                quiet = 0
                yield LossScaleChanged(step, scale, scale / 2, 1)
                scale /= 2
            else:
                quiet += log_every
                if quiet >= growth_steps:
                    quiet = 0
                    yield LossScaleChanged(step, scale, scale * 2, 0)
                    scale *= 2
        warmup = sample <= warmup_samples
        step_time = batch_size / (speed * (1 + rng.gauss(0, 0.03)))
        if warmup:
            step_time *= 40 / sample**2  # tracing first, then compiled but cold
        yield StepMetrics(
            step=step, epoch=(step - 1) // steps_per_epoch + 1, loss=loss, accuracy=accuracy,
            loss_scale=scale, overflow_steps=overflows,
            examples_per_sec=None if warmup else batch_size / step_time,
            step_time=step_time, warmup=warmup,
        )
        if step % steps_per_epoch == 0 or step == steps:
            yield EpochMetrics(
                epoch=(step - 1) // steps_per_epoch + 1, steps=step, loss=loss,
                accuracy=accuracy, val_loss=loss * 1.08 + 0.02, val_accuracy=accuracy - 0.015,
                epoch_time=steps_per_epoch * step_time, train_time=steps_per_epoch * step_time,
            )


def comparison_events(steps: int = 400, steps_per_epoch: int = 80) -> list[Event]:
    """A float32 baseline and a mixed_float16 run of the same model, as a comparison sends."""
    baseline = synthetic_run("float32 baseline", "float32", loss_scale=None, speed=7_000.0,
                             seed=1, steps=steps, steps_per_epoch=steps_per_epoch)
    mixed = synthetic_run("mixed_float16", speed=12_500.0, seed=2, steps=steps,
                          steps_per_epoch=steps_per_epoch)
    return [*baseline, *mixed]
