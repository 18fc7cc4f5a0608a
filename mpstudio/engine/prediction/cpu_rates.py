"""A CPU's rates, measured: the hardware check's micro-benchmark (a matmul and a 3x3
convolution, forward and backward, in float32, float16 and bfloat16) gives each math's
TFLOP/s on this very CPU, where no datasheet says what TensorFlow's kernels reach
(float16 is emulated on most CPUs, bfloat16 fast only with AVX512-BF16 or AMX)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mpstudio.engine.i18n import N_
from mpstudio.engine.prediction.calibration import Calibration
from mpstudio.engine.prediction.device_rates import DeviceRates

# Fitted to this project's 2-core development CPU (TensorFlow's own kernels, XLA off as
# xla=auto leaves a CPU): the framework's step is slower than XLA's on a GPU, and the
# casts and elementwise work of a half type are computed element by element in float32:
# as long an element as float32's, so half the bytes a second.
CPU_CALIBRATION = Calibration(
    gemm_efficiency={"float32": 0.8, "half": 0.8},
    narrow_width={"float32": 16.0, "half": 16.0}, bandwidth_efficiency=1.0,
    half_bandwidth_efficiency=0.5,
    kernel_us=8.0, launch_us=0.0, step_ms=1.5, loss_scale_ms=0.3, cast_bytes=12.0,
    float8_kernels=19, float8_passes=10.0, spread=0.25, depthwise_efficiency=0.5,
    fused=False, overlap=0.0)
CPU_BANDWIDTH = 0.01  # TB/s that TensorFlow's elementwise kernels reach on a small CPU


def cpu_rates(name: str, matmul: dict[str, float], conv: dict[str, float],
              dense: dict[str, float] | None = None) -> DeviceRates:
    """A CPU's rates from its measured TFLOP/s per dtype ("float32", "float16",
    "bfloat16") for matmuls and convolutions; ``dense``: a whole Dense layer's step (where
    TensorFlow fuses the product, bias and activation, a half type can be far slower than
    its bare matmul), used for the matmuls of layers."""
    rates = {k: min(v, (dense or {}).get(k, v)) for k, v in matmul.items()}
    return DeviceRates(name, "CPU", rates, CPU_BANDWIDTH, 0.0, None,
                       N_("measured on this CPU"), dict(conv))


def dense_layer_rates(seconds: float = 0.2) -> dict[str, float]:
    """TFLOP/s of a Dense layer's step (product, bias, relu, forward and backward, as a
    run on this CPU computes them: fused by TensorFlow's graph optimizer, but for float16,
    which a run trains unfused: trainer/cpu_float16_fusion.py) per dtype on this CPU."""
    import time

    import tensorflow as tf

    from mpstudio.engine.trainer.cpu_float16_fusion import float16_fusion_off

    out: dict[str, float] = {}
    for name in ("float32", "float16", "bfloat16"):
        dtype = tf.as_dtype(name)
        policy = "mixed_float16" if name == "float16" else name
        with tf.device("/CPU:0"), float16_fusion_off(policy, "CPU"):
            x = tf.cast(tf.random.stateless_normal((128, 256), (1, 2)), dtype)
            w = tf.Variable(tf.cast(tf.random.stateless_normal((256, 256), (3, 4)) * 0.05,
                                    dtype))
            b = tf.Variable(tf.zeros((256,), dtype))

            @tf.function
            def step(x: Any = x, w: Any = w, b: Any = b) -> Any:
                with tf.GradientTape() as tape:
                    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))
                    loss = tf.reduce_sum(tf.cast(y, tf.float32))
                return tape.gradient(loss, [w, b])

            step()
            steps, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds or steps < 3:
                grads = step()
                steps += 1
            grads[0].numpy()
        elapsed = (time.perf_counter() - start) / steps
        out[name] = 3 * 2.0 * 128 * 256 * 256 / elapsed / 1e12
    return out


def measured_cpu_rates(seconds: float = 0.3) -> DeviceRates:
    """Run the micro-benchmark on this machine's CPU (a few seconds) and return its
    rates."""
    import dataclasses

    from mpstudio.engine.hardware.detect import detect_hardware
    from mpstudio.engine.hardware.microbench import measure

    report = detect_hardware()
    cpu_only = dataclasses.replace(report, gpus=())
    found = [m for m in measure(cpu_only, seconds_per_case=seconds) if m.device == "CPU"]
    matmul: dict[str, float] = {}
    conv: dict[str, float] = {}
    for result in found[0].results if found else ():
        if result.tflops:
            (matmul if result.kernel == "matmul" else conv)[result.dtype] = result.tflops
    return cpu_rates(report.cpu.model or "CPU", matmul, conv, dense_layer_rates())


def _cache_path() -> Path:
    from mpstudio.engine.datasets.cache_dir import datasets_dir

    # mpstudio's cache folder ($MPSTUDIO_DATA_DIR where set): never a folder of the user's
    return datasets_dir() / "cpu_rates.json"


def cached_cpu_rates(measure: bool = True) -> DeviceRates | None:
    """This CPU's rates, measured once (a few seconds) and kept in the user cache folder
    for this CPU and TensorFlow release; a cache that cannot be read or written is
    measured again, never an error. ``measure=False``: the kept rates or None."""
    import json
    import os

    import tensorflow as tf

    from mpstudio.engine.report.files import atomic_write_text

    key = f"{tf.__version__}|{os.cpu_count()}|3"  # |3: the Dense layer's, as runs train
    path = _cache_path()
    try:
        kept = json.loads(path.read_text())
        if kept.get("key") == key:
            return cpu_rates(kept["name"], kept["matmul"], kept["conv"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    if not measure:
        return None
    rates = measured_cpu_rates()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"key": key, "name": rates.name,
                                            "matmul": rates.tflops,
                                            "conv": rates.conv_tflops}))
    except OSError:
        pass
    return rates
