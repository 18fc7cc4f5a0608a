"""The compute device a run uses, XLA resolution and peak device memory.

A small summary for run reports; the full hardware check (GPUs, TPUs, CPU flags,
advisor) is its own module.
"""

from __future__ import annotations

import os
import platform

import keras
import tensorflow as tf

from mpstudio.engine.hardware.detect_gpu import tf32_switched_on
from mpstudio.engine.hardware.gpu_architecture import tf32_capable


def gpus() -> list:
    return tf.config.list_physical_devices("GPU")


def _gpu_details(index: int = 0) -> tuple[str, tuple[int, int] | None]:
    details = tf.config.experimental.get_device_details(gpus()[index])
    return details.get("device_name", f"GPU:{index}"), details.get("compute_capability")


def device_label() -> str:
    if gpus():
        name, cc = _gpu_details()
        extra = f" (compute capability {cc[0]}.{cc[1]})" if cc else ""
        return f"GPU:0 {name}{extra}"
    return f"CPU ({platform.machine()}, {os.cpu_count()} cores)"


def resolve_xla(mode: str) -> bool:
    """``auto``: XLA on when a GPU is visible, off on a CPU-only machine (Keras' own
    ``auto`` also weighs backend and determinism details; this rule is explicit)."""
    if mode == "on":
        return True
    if mode == "off":
        return False
    return bool(gpus())


def float32_label() -> str:
    """What a float32 run really computes in: TF32 on Ampere and newer when enabled
    (the same rule the hardware check's measurement labels its baseline with)."""
    if gpus() and tf32_switched_on() and tf32_capable(_gpu_details()[1]):
        return "TF32"
    return "float32"


def hardware_summary() -> dict[str, str]:
    info = {
        "device": device_label(),
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "python": platform.python_version(),
    }
    build = tf.sysconfig.get_build_info()
    if gpus() and build.get("is_cuda_build"):
        info["cuda"] = str(build.get("cuda_version", "?"))
        info["cudnn"] = str(build.get("cudnn_version", "?"))
    return info


def start_memory_measure() -> int:
    """Reset the device's peak counter and return the memory already in use (held by
    earlier runs in this process), which the run's own peak leaves out."""
    if not gpus():
        return 0
    tf.config.experimental.reset_memory_stats("GPU:0")
    return int(tf.config.experimental.get_memory_info("GPU:0")["current"])


def peak_memory(in_use_at_start: int) -> tuple[int | None, str]:
    """This run's peak device memory, or None with the reason."""
    if not gpus():
        return None, "not reported by the CPU"
    try:
        peak = int(tf.config.experimental.get_memory_info("GPU:0")["peak"])
    except (ValueError, RuntimeError) as exc:
        return None, f"not reported: {exc}"
    return peak - in_use_at_start, "GPU:0 peak of this run"
