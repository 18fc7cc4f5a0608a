"""The micro-benchmark runs for real on this CPU (tiny sizes, short windows)."""

from __future__ import annotations

import time

import pytest

from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.microbench import Sizes, measurable_devices, measure

TINY = Sizes(matmul=64, conv=(2, 8, 8))


@pytest.fixture(scope="module")
def report():
    return detect_hardware()


@pytest.fixture(scope="module")
def cpu_measurement(report):
    seen = []
    measurements = measure(report, seconds_per_case=0.05, progress=lambda *a: seen.append(a),
                           sizes=lambda device: TINY)
    return measurements, seen


def test_every_case_runs_and_is_timed(cpu_measurement, report):
    measurements, seen = cpu_measurement
    assert [m.device for m in measurements] == [d for d, _, _ in measurable_devices(report)]
    cpu = measurements[-1]
    assert cpu.device == "CPU" and cpu.baseline == "float32" and not cpu.xla
    assert len(cpu.results) == 6
    # float32 always runs; a half type may lack a kernel on some CPU, which is then
    # a reported result, not a crash.
    for result in cpu.results:
        if result.dtype == "float32" or not result.error:
            assert result.steps >= 3 and result.seconds_per_step > 0 and result.tflops > 0
        else:
            assert result.seconds_per_step is None and result.error
    matmul = cpu.result("matmul", "float32")
    assert matmul.flops_per_step == 6 * 64**3 and matmul.shape == "matmul 64x64x64"
    assert cpu.result("conv", "bfloat16").shape == "conv 3x3 2x8x8x8"
    ratio = cpu.kernel_speedup("conv", "float16")
    conv32, conv16 = cpu.result("conv", "float32"), cpu.result("conv", "float16")
    assert ratio == pytest.approx(conv32.seconds_per_step / conv16.seconds_per_step)
    assert seen[0][:2] == (0, 6 * len(measurements)) and seen[-1][2] == "done"


def test_the_advisor_cites_what_was_measured(cpu_measurement, report):
    measurements, _ = cpu_measurement
    cpu = advise(report, measurements).device("CPU")
    ratio = measurements[-1].speedup("float16")
    assert cpu.verdict("mixed_float16").measured == pytest.approx(ratio)
    assert f"float16 was {ratio:.2f}x float32 here" in cpu.verdict("mixed_float16").reason


def test_a_stop_ends_after_the_current_case(report):
    calls = []

    def should_stop() -> bool:
        calls.append(1)
        return len(calls) > 3

    measurements = measure(report, seconds_per_case=0.05, should_stop=should_stop,
                           sizes=lambda device: TINY)
    assert measurements[-1].stopped
    assert sum(len(m.results) for m in measurements) < 6
    # The case the stop interrupted is dropped, not kept as a one-step timing.
    assert all(r.steps >= 3 for m in measurements for r in m.results)


def test_a_step_that_takes_the_whole_window_is_timed_once():
    """A float16 convolution emulated on a CPU takes seconds a step: the first step after
    tracing that fills the window is the timing (three more took some 15 s of a
    0.05 s-a-case measurement); a stop during it drops the case."""
    from mpstudio.engine.hardware.microbench import _timed

    ran = []

    def slow_step() -> None:
        ran.append(1)
        time.sleep(0.06)

    seconds, steps = _timed(slow_step, lambda: None, 0.05, lambda: False)
    assert steps == 1 and seconds >= 0.05 and len(ran) == 2  # tracing, then the timed one
    assert _timed(slow_step, lambda: None, 0.05, lambda: len(ran) > 3) is None
    # a step shorter than the window is timed over at least 3 steps, as before
    fast = _timed(lambda: time.sleep(0.005), lambda: None, 0.05, lambda: False)
    assert fast is not None and fast[1] >= 3 and fast[0] * fast[1] >= 0.05


def test_a_case_that_fails_is_reported_not_raised(report, monkeypatch):
    """An out-of-memory cannot be provoked safely on a shared CPU, so the conv raises
    TensorFlow's own ResourceExhaustedError; the other cases still run."""
    import tensorflow as tf

    def out_of_memory(*args, **kwargs):
        raise tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor\nmore")

    monkeypatch.setattr(tf.nn, "conv2d", out_of_memory)
    measurements = measure(report, seconds_per_case=0.05, sizes=lambda device: TINY)
    cpu = measurements[-1]
    conv = cpu.result("conv", "float16")
    assert conv.seconds_per_step is None and conv.error == "OOM when allocating tensor"
    assert cpu.result("matmul", "float16").seconds_per_step > 0
    assert cpu.kernel_speedup("conv", "float16") is None
    assert cpu.speedup("float16") == pytest.approx(cpu.kernel_speedup("matmul", "float16"))


def test_a_run_time_error_is_summarized_without_the_graph_noise(report, monkeypatch):
    """A real run-time failure inside the tf.function: the message arrives wrapped in
    "Graph execution error:", a node stack and an [Op:...] tag; one clear line stays."""
    import tensorflow as tf

    real_conv = tf.nn.conv2d

    def conv_that_fails_when_run(x, k, **kwargs):
        nan = tf.math.log(-1.0 - tf.reduce_max(tf.abs(tf.cast(x, tf.float32))))
        bad = tf.debugging.check_numerics(nan, "conv input went bad")
        return real_conv(x, k, **kwargs) * tf.cast(bad, x.dtype)

    monkeypatch.setattr(tf.nn, "conv2d", conv_that_fails_when_run)
    measurements = measure(report, seconds_per_case=0.05, sizes=lambda device: TINY)
    conv = measurements[-1].result("conv", "float32")
    assert conv.seconds_per_step is None
    assert conv.error.startswith("conv input went bad : Tensor had NaN values"), conv.error
    assert "Graph execution" not in conv.error and "[[" not in conv.error
