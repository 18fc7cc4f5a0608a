"""What a run records about its circumstances, beside its metrics: the hardware
snapshot (with the advisor's word on its precision and what float32 really
computed in) and how fast the input pipeline alone delivers batches."""

from __future__ import annotations

import time

import tensorflow as tf

from mpstudio.engine import device_info
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said

PROBE_BATCHES = 64
PROBE_SECONDS = 1.0


def hardware_snapshot(precision: str, devices: device_info.RunDevices) -> dict[str, str]:
    """device_info's summary of the run's devices (with what float32 computed in) plus
    the advisor's verdict and reason for ``precision`` (cheap: detection only). The
    reason and the advisor's device are sentences (``Said``): the history keeps their
    messages and shows them in its reader's language."""
    info = device_info.hardware_summary(devices)
    try:
        from mpstudio.engine.hardware.advisor import advise
        from mpstudio.engine.hardware.detect import detect_hardware

        advice = advise(detect_hardware())
        verdict = advice.device(advice.run_device).verdict(precision)
    except Exception as exc:  # the snapshot is a nicety: never fail a run for it
        info["advisor_reason"] = said(N_("(hardware check failed: {error})"),
                                      error=type(exc).__name__)
        return info
    info["advisor_device"] = advice.run_description
    info["advisor_verdict"] = verdict.verdict.value
    info["advisor_reason"] = verdict.reason
    return info


def data_time_per_batch(dataset: tf.data.Dataset, max_batches: int = PROBE_BATCHES,
                        max_seconds: float = PROBE_SECONDS) -> float | None:
    """Seconds the pipeline alone takes per batch, on a fresh pass (after training, so
    a cached dataset is warm as it was for most of the run). The first batch pays for
    starting the iterator and is not timed. None if it gave too little to time."""
    n = 0
    start = 0.0
    try:
        for i, _ in enumerate(dataset.take(max_batches + 1)):
            if i == 0:
                start = time.perf_counter()
                continue
            n += 1
            if time.perf_counter() - start >= max_seconds:
                break
    except (tf.errors.OpError, ValueError):
        return None
    return (time.perf_counter() - start) / n if n else None


def data_time_fraction(dataset: tf.data.Dataset, steady_step_time: float | None) -> float | None:
    """The pipeline's time per batch over the training step's: near 1 (or above) the
    run waits for data (prefetching overlaps the rest with the step)."""
    if not steady_step_time:
        return None
    per_batch = data_time_per_batch(dataset)
    return None if per_batch is None else per_batch / steady_step_time
