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

    return (x, w, upstream), forward, flops


def _conv_case(batch: int, size: int, channels: int, dtype: tf.DType, seed: int):
    rng = tf.random.Generator.from_seed(seed)
    x = tf.cast(rng.normal((batch, size, size, channels)), dtype)
    k = tf.cast(rng.normal((3, 3, channels, channels)) / math.sqrt(9 * channels), dtype)
    upstream = tf.cast(rng.normal((batch, size, size, channels)), dtype)
    flops = 3 * 2.0 * batch * size * size * channels * channels * 9

    def forward(a, b):
        return tf.nn.conv2d(a, b, strides=1, padding="SAME")

    return (x, k, upstream), forward, flops


def _timed(step: Callable[[], None], sync: Callable[[], None], seconds: float,
           should_stop: Callable[[], bool]) -> tuple[float, int] | None:
    """Seconds a step, over at least 3 steps and ``seconds``; None when stopped first.

    Steps go in batches that double, one device sync a batch, so syncs do not stall
    a fast GPU. A warm-up of a third of the window (after tracing) lets a GPU reach
    its clocks before the first precision is timed. A step that alone takes the whole
    window (float16 convolutions, emulated on most CPUs, take seconds) is the timing:
    three more of it would take several times the window asked for, and time nothing
    better."""
    step()  # trace and compile
    sync()
    warm_until = time.perf_counter() + seconds / 3
    while time.perf_counter() < warm_until and not should_stop():
        began = time.perf_counter()
        step()
        sync()
        took = time.perf_counter() - began
        if took >= seconds:
            return None if should_stop() else (took, 1)
    steps, batch, start = 0, 1, time.perf_counter()
    while True:
        for _ in range(batch):
            step()
        steps += batch
        sync()
        elapsed = time.perf_counter() - start
        if should_stop():
            return None
        if steps >= 3 and elapsed >= seconds:
            return elapsed / steps, steps
        batch = min(batch * 2, 64)


def _build_case(kernel: str, dtype: tf.DType, sizes: Sizes, xla: bool):
    if kernel == "matmul":
        tensors, forward, flops = _matmul_case(sizes.matmul, dtype, 1)
    else:
        tensors, forward, flops = _conv_case(*sizes.conv, dtype, 2)
    a, b, upstream = tensors
    # Every result goes to a variable: a gradient does not read the forward output,
    # so without its own write the forward pass would be pruned.
    out_y, out_a, out_b = (tf.Variable(tf.zeros_like(t), trainable=False)
                           for t in (upstream, a, b))

    @tf.function(jit_compile=xla)
    def step():
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = forward(a, b)
        da, db = tape.gradient(y, [a, b], output_gradients=upstream)
        out_y.assign(y)
        out_a.assign(da)
        out_b.assign(db)

    def sync() -> None:
        out_b[:1].numpy()  # a read after the writes waits for all of them

    return step, sync, flops


def _shape_of(kernel: str, sizes: Sizes) -> str:
    if kernel == "matmul":
        return f"matmul {sizes.matmul}x{sizes.matmul}x{sizes.matmul}"
    batch, size, channels = sizes.conv
    return f"conv 3x3 {batch}x{size}x{size}x{channels}"


def _run_case(kernel: str, dtype_name: str, device: str, xla: bool, sizes: Sizes,
              seconds: float, should_stop: Callable[[], bool]) -> KernelResult | None:
    """One kernel in one precision; None when a stop came before it was timed."""
    shape = _shape_of(kernel, sizes)
    flops = 0.0
    try:
        with tf.device("/CPU:0" if device == "CPU" else f"/{device}"):
            step, sync, flops = _build_case(kernel, tf.as_dtype(dtype_name), sizes, xla)
            timed = _timed(step, sync, seconds, should_stop)
    except (tf.errors.OpError, ValueError, TypeError) as exc:
        return KernelResult(kernel, dtype_name, shape, flops, None, error=error_summary(exc))
    if timed is None:
        return None
    return KernelResult(kernel, dtype_name, shape, flops, timed[0], timed[1])


_NOISE = re.compile(r"^(Graph execution error:|Detected at node|File |in user code:|Hint:)")


def error_summary(exc: Exception) -> str:
    """The error itself, one line, without what a tf.function wraps around it: the
    "in user code:" traceback of a trace-time error, or the "Graph execution error:"
    header, node stack and hints of a run-time one."""
    text = str(getattr(exc, "message", None) or exc)
    lines = [line.strip() for line in text.splitlines()]
    named = [line for line in lines if re.match(r"^[A-Za-z.]*Error: ", line)]
    if named:
        return named[-1].split(": ", 1)[1][:200]
    paragraphs, current = [], []
    for line in [*lines, ""]:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    for paragraph in paragraphs:
        if not _NOISE.match(paragraph[0]) and not paragraph[0].startswith(("[[", "[Op:")):
            return paragraph[0].split("[[")[0].split(" [Op:")[0].strip()[:200]
    return type(exc).__name__


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
    each of 6 cases a device. A stop ends it at once; the case it interrupted is dropped."""
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
            result = _run_case(kernel, dtype, device, xla, sizes(device), seconds_per_case,
                               should_stop)
            if result is not None:
                results.append(result)
                done += 1
        measurements.append(DeviceMeasurement(device, baseline, xla, tuple(results),
                                              stopped=should_stop()))
        if should_stop():
            break
    if progress:
        progress(done, total, "done")
    return measurements
