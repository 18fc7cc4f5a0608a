"""The micro-benchmark behind the advisor: a dense matmul and a 3x3 convolution,
forward and backward, in float32, float16 and bfloat16 on each device, timed
side by side in one process.

Honest timing: the upstream gradient is random (a constant one lets XLA turn a
matmul into a reduction), both gradients are written to variables (so nothing
is pruned), and the clock stops after a device sync. XLA follows what a run's
``xla=auto`` does: on for GPUs, off on the CPU.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import tensorflow as tf

from mpstudio.engine.hardware.gpu_architecture import tf32_capable
from mpstudio.engine.hardware.measurement import DeviceMeasurement, KernelResult
from mpstudio.engine.hardware.report import HardwareReport

DTYPES = ("float32", "float16", "bfloat16")
Progress = Callable[[int, int, str], None]  # done, total, what is running now


@dataclass(frozen=True)
class Sizes:
    """Problem sizes: big enough to keep the device busy, small enough for ~1 s a case."""

    matmul: int  # n for an n x n x n matmul
    conv: tuple[int, int, int]  # batch, spatial size, channels (in = out)

    @staticmethod
    def for_device(device: str) -> Sizes:
        if device.startswith("GPU"):
            return Sizes(matmul=4096, conv=(32, 56, 256))
        return Sizes(matmul=512, conv=(8, 32, 64))


def _matmul_case(n: int, dtype: tf.DType, seed: int):
    rng = tf.random.Generator.from_seed(seed)
    x = tf.cast(rng.normal((n, n)), dtype)
    w = tf.cast(rng.normal((n, n)) / math.sqrt(n), dtype)
    upstream = tf.cast(rng.normal((n, n)), dtype)
    flops = 3 * 2.0 * n**3  # forward, input gradient, weight gradient

    def forward(a, b):
        return tf.matmul(a, b)

    return (x, w, upstream), forward, flops, f"matmul {n}x{n}x{n}"


def _conv_case(batch: int, size: int, channels: int, dtype: tf.DType, seed: int):
    rng = tf.random.Generator.from_seed(seed)
    x = tf.cast(rng.normal((batch, size, size, channels)), dtype)
    k = tf.cast(rng.normal((3, 3, channels, channels)) / math.sqrt(9 * channels), dtype)
    upstream = tf.cast(rng.normal((batch, size, size, channels)), dtype)
    flops = 3 * 2.0 * batch * size * size * channels * channels * 9

    def forward(a, b):
        return tf.nn.conv2d(a, b, strides=1, padding="SAME")

    return (x, k, upstream), forward, flops, f"conv 3x3 {batch}x{size}x{size}x{channels}"


def _timed(step: Callable[[], None], sync: Callable[[], None], seconds: float,
           should_stop: Callable[[], bool]) -> tuple[float, int]:
    """Seconds a step, over at least 3 steps and ``seconds``. Steps go in batches that
    double, with one device sync a batch, so syncs do not stall a fast GPU."""
    step()  # trace and compile
    step()
    sync()
    steps, batch, start = 0, 1, time.perf_counter()
    while True:
        for _ in range(batch):
            step()
        steps += batch
        sync()
        elapsed = time.perf_counter() - start
        if (steps >= 3 and elapsed >= seconds) or should_stop():
            return elapsed / steps, steps
        batch = min(batch * 2, 64)


def _run_case(kernel: str, dtype_name: str, device: str, xla: bool, sizes: Sizes,
              seconds: float, should_stop: Callable[[], bool]) -> KernelResult:
    dtype = tf.as_dtype(dtype_name)
    with tf.device(f"/{device}:0" if device == "CPU" else f"/{device}"):
        if kernel == "matmul":
            tensors, forward, flops, shape = _matmul_case(sizes.matmul, dtype, 1)
        else:
            tensors, forward, flops, shape = _conv_case(*sizes.conv, dtype, 2)
        a, b, upstream = tensors
        grad_a = tf.Variable(tf.zeros_like(a), trainable=False)
        grad_b = tf.Variable(tf.zeros_like(b), trainable=False)

        @tf.function(jit_compile=xla)
        def step():
            with tf.GradientTape() as tape:
                tape.watch([a, b])
                y = forward(a, b)
            da, db = tape.gradient(y, [a, b], output_gradients=upstream)
            grad_a.assign(da)
            grad_b.assign(db)

        def sync() -> None:
            grad_b[:1].numpy()  # a read after the writes waits for them

        try:
            per_step, steps = _timed(step, sync, seconds, should_stop)
        except (tf.errors.OpError, ValueError, TypeError) as exc:
            return KernelResult(kernel, dtype_name, shape, flops, None, error=_first_line(exc))
    return KernelResult(kernel, dtype_name, shape, flops, per_step, steps)


def _first_line(exc: Exception) -> str:
    """The error itself, without the "in user code:" traceback a tf.function adds."""
    lines = [line.strip() for line in str(getattr(exc, "message", exc)).splitlines()]
    named = [line for line in lines if re.match(r"^[A-Za-z.]*Error: ", line)]
    text = named[-1].split(": ", 1)[1] if named else next((x for x in lines if x), "")
    return (text or type(exc).__name__)[:200]


def measurable_devices(report: HardwareReport) -> list[tuple[str, str, bool]]:
    """(device, float32 label, xla) for every device a benchmark can use."""
    devices = []
    for gpu in report.usable_gpus:
        baseline = "TF32" if (tf32_capable(gpu.compute_capability)
                              and report.build.tf32_enabled) else "float32"
        devices.append((gpu.label, baseline, True))
    devices.append(("CPU", "float32", False))
    return devices


def measure(report: HardwareReport, seconds_per_case: float = 0.5,
            progress: Progress | None = None, should_stop: Callable[[], bool] = lambda: False,
            sizes: Callable[[str], Sizes] = Sizes.for_device) -> list[DeviceMeasurement]:
    """Measure every usable GPU and the CPU; about ``seconds_per_case`` (plus tracing) for
    each of 6 cases a device. A stop ends it after the current case."""
    devices = measurable_devices(report)
    cases = [(k, d) for k in ("matmul", "conv") for d in DTYPES]
    total, done = len(devices) * len(cases), 0
    measurements = []
    for device, baseline, xla in devices:
        results = []
        for kernel, dtype in cases:
            if should_stop():
                break
            if progress:
                progress(done, total, f"{device} {kernel} {dtype}")
            results.append(_run_case(kernel, dtype, device, xla, sizes(device),
                                     seconds_per_case, should_stop))
            done += 1
        measurements.append(DeviceMeasurement(device, baseline, xla, tuple(results),
                                              stopped=should_stop()))
        if should_stop():
            break
    if progress:
        progress(done, total, "done")
    return measurements
