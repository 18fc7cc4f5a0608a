"""A memory limit for one try of the batch-size finder, set by the user, so that
running out of memory happens where they say, through TensorFlow's own allocators:

- GPU: ``tf.config.set_logical_device_configuration(memory_limit=...)`` on the run's
  GPU before TensorFlow starts it; its BFC allocator refuses past the limit.
- CPU: TensorFlow's CPU allocator made a BFC allocator with a limit
  (``cpu_allocator.capped_environment``). A tensor past the limit then fails with the very
  ResourceExhaustedError "OOM when allocating tensor ... by allocator ..." a GPU
  raises, so the search (and the tests, on a machine with plenty of memory) meet the
  real error, not a stand-in. Like a GPU's limit it counts tensors only: the
  process's Python objects and the dataset's host arrays are outside it.

Checked on TensorFlow 2.21 (oneDNN on and off): with a 200 MiB limit a 2000x2000
float32 matmul fits and a 4000x4000 one raises that error. A limit on the process
(RLIMIT_DATA) was tried first and dropped: thread stacks count against it, so
TensorFlow aborted in pthread_create before the batch mattered.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mpstudio.engine.i18n import _

# A limit this small leaves no room for the model's weights in any template: a try
# would fail at every batch and say nothing about the batch.
MIN_CAP_MIB = 16


def cap_problem(mib: float | None, most_mib: float | None = None) -> str | None:
    """Why ``mib`` cannot be a memory cap (None: it can, or there is none); ``most_mib``:
    the most it may be (machine_memory_mib(), where the finder runs)."""
    if mib is None:
        return None
    if isinstance(mib, bool) or not isinstance(mib, (int, float)) or not math.isfinite(mib) \
            or mib < MIN_CAP_MIB:  # nan, inf (1e400 reads as inf) cap nothing
        return _("a memory cap must be a finite number, at least {least} MiB, got {mib}").format(
            least=MIN_CAP_MIB, mib=mib)
    if most_mib is not None and mib > most_mib:
        return _("a memory cap of {mib} MiB is more than this machine has ({most} MiB), so "
                 "it would cap nothing: give a smaller cap, or none to use the whole "
                 "device").format(mib=f"{mib:,.0f}" if mib < 1e15 else f"{mib:g}",
                                  most=f"{most_mib:,.0f}")
    return None


def machine_memory_mib() -> float:
    """The most a cap could limit here: the larger of the machine's memory and its
    largest GPU's (as the NVIDIA driver reports it; no TensorFlow)."""
    import psutil

    from mpstudio.engine.hardware.detect_gpu import nvml_scan

    gpus = [gpu.memory_total for gpu in nvml_scan().gpus]
    return max([psutil.virtual_memory().total, *gpus]) / 2**20


def cap_target(gpus: Sequence[str]) -> str:
    """What a cap limits for a try on these physical devices: the first GPU's memory
    (the device a one-device run trains on) when there is one, else the CPU
    allocator's."""
    return "gpu" if gpus else "cpu"


class MemoryCapError(Exception):
    """The cap cannot be set (the message says why)."""


def cap_gpu_memory(mib: float) -> None:
    """Limit the first GPU to ``mib`` MiB; before TensorFlow initialises it."""
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    try:
        tf.config.set_logical_device_configuration(
            gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=int(mib))])
    except (RuntimeError, ValueError) as exc:  # already initialised
        raise MemoryCapError(_("cannot limit {gpu}'s memory: {error}").format(
            gpu=gpus[0].name, error=exc)) from None
