"""Crafted history records for tests that need no training: a RunStarted, a full
RunSummary, step and epoch metrics with chosen values."""

from __future__ import annotations

from mpstudio.engine.events import EpochMetrics, RunStarted, RunSummary, StepMetrics
from mpstudio.engine.model_summary import ModelSummary


def started(label="mixed_float16", precision="mixed_float16", **place) -> RunStarted:
    return RunStarted(
        label=label,
        spec={"dataset": "digits", "template": "mlp", "precision": precision,
              "batch_size": 32},
        hardware={"device": "CPU (x86_64, 2 cores)"},
        model=ModelSummary("mlp", precision, 76810, 76810, ()),
        dataset="digits: 1,438 train",
        steps_per_epoch=10,
        total_steps=20,
        log_every_steps=1,
        xla=False,
        loss_scaling="dynamic",
        **place,
    )


def summary(status="finished", speed=1000.0, val=0.9, **changes) -> RunSummary:
    values = dict(
        label="mixed_float16", precision="mixed_float16", status=status, loop="fit", xla=False,
        batch_size=32, epochs_done=2, steps_done=20, warmup_steps=2, time_to_first_step=0.5,
        steady_examples_per_sec=speed, steady_step_time=32 / speed, mean_epoch_time=0.3,
        total_time=1.0, final_loss=0.5, final_accuracy=0.85, final_val_loss=0.4,
        final_val_accuracy=val, best_val_accuracy=val, overflow_steps=1,
        loss_scale_mode="dynamic", loss_scale_min=16384.0, loss_scale_max=32768.0,
        loss_scale_final=16384.0, peak_memory_bytes=None, memory_note="not reported",
        device="CPU (x86_64, 2 cores)", params=76810,
    )
    values.update(changes)
    return RunSummary(**values)


def step(n: int, loss: float = 1.0, scale: float | None = 32768.0) -> StepMetrics:
    return StepMetrics(step=n, epoch=1 + (n - 1) // 10, loss=loss, accuracy=0.5,
                       loss_scale=scale, overflow_steps=0, examples_per_sec=None if n <= 2
                       else 1000.0 + n, step_time=0.03, warmup=n <= 2)


def epoch(n: int) -> EpochMetrics:
    return EpochMetrics(epoch=n, steps=10 * n, loss=1.0 / n, accuracy=0.5 + n / 10,
                        val_loss=None if n == 1 else 0.4, val_accuracy=0.8 + n / 100,
                        epoch_time=0.4, train_time=0.3)
