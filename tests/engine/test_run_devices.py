"""What a run says about where it computed, on hardware this machine does not have.

The GPUs a run sees come through ``device_info.visible_gpus`` (replaced here with an
A100); Keras decides its LSTM's kernel from TensorFlow's logical GPU list (injected
while the model is built, as on a GPU machine). Runs train for real on the CPU.
"""

from __future__ import annotations

import contextlib

import pytest
import tensorflow as tf

from mpstudio.engine import device_info
from mpstudio.engine.device_info import MemoryMeter, RunDevices, run_devices
from mpstudio.engine.distribute.placement import Placement
from mpstudio.engine.events import CollectingReporter, RunStarted, RunWarning
from mpstudio.engine.hardware.detect_gpu import TfGpu
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.trainer import run_inputs, run_setup, runner
from mpstudio.engine.trainer.compare import compare

A100 = TfGpu("NVIDIA A100-SXM4-40GB", (8, 0))
V100 = TfGpu("Tesla V100-SXM2-16GB", (7, 0))
FAKE_GPU = tf.config.LogicalDevice(name="/device:GPU:0", device_type="GPU")


@pytest.fixture
def on_an_a100(monkeypatch):
    """mpstudio's view of the machine: one A100 (TensorFlow itself still runs on the CPU)."""
    monkeypatch.setattr(device_info, "visible_gpus", lambda: [A100])


@contextlib.contextmanager
def tensorflow_lists_a_gpu():
    """What Keras reads when it picks the LSTM's kernel: TensorFlow's logical GPUs."""
    real = tf.config.list_logical_devices

    def listed(device_type=None):
        found = real(device_type)
        return [*found, FAKE_GPU] if device_type in (None, "GPU") else found

    tf.config.list_logical_devices = listed
    try:
        yield
    finally:
        tf.config.list_logical_devices = real


@pytest.fixture
def models_built_beside_a_gpu(monkeypatch):
    """Build every model as on a GPU machine (the layers take their GPU decisions then);
    train on the CPU (so no cuDNN op is ever placed here)."""
    build = run_inputs.build_model

    def build_with_a_gpu(*args, **kwargs):
        with tensorflow_lists_a_gpu():
            return build(*args, **kwargs)

    monkeypatch.setattr(run_inputs, "build_model", build_with_a_gpu)


# ------------------------------------------------------------------ XLA decision
@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_lstm_on_a_gpu_trains_without_xla_and_says_why(tiny_spec, on_an_a100,
                                                       models_built_beside_a_gpu, loop):
    """xla=auto on a GPU asks for XLA; Keras' LSTM on a GPU runs cuDNN, which XLA cannot
    compile, so Keras turns it off: the run must use and report that, in both loops."""
    reporter = CollectingReporter()
    spec = tiny_spec.replace(template="lstm", xla="auto", steps=2, loop=loop)
    result = runner.run(spec, reporter)
    assert result.ok, result.failure
    assert result.model.jit_compile is False  # Keras' own decision
    (started,) = reporter.of_type(RunStarted)
    assert started.xla is False and result.summary.xla is False
    for note in (started.xla_note, result.summary.xla_note):
        assert "Keras turned XLA off" in note and "'lstm_128' (LSTM)" in note
        assert "cuDNN" in note
    warnings = " ".join(w.message for w in reporter.of_type(RunWarning))
    assert "XLA was asked for (xla = auto) but this run trains without it" in warnings


def test_a_model_xla_can_compile_keeps_it_on_a_gpu(tiny_spec, on_an_a100,
                                                  models_built_beside_a_gpu):
    reporter = CollectingReporter()
    result = runner.run(tiny_spec.replace(xla="auto", steps=2), reporter)
    assert result.ok and result.model.jit_compile is True
    assert result.summary.xla and "xla = auto turns it on for GPUs" in result.summary.xla_note
    assert not any("XLA" in w.message for w in reporter.of_type(RunWarning))


def test_xla_is_off_on_a_cpu_and_says_so(tiny_spec):
    result = runner.run(tiny_spec.replace(template="lstm", steps=2), CollectingReporter())
    assert not result.summary.xla
    assert result.summary.xla_note == "off: xla = auto keeps it off on a CPU"


# ------------------------------------------------------------- TF32 in the label
def test_a_float32_run_on_an_a100_is_labelled_tf32_everywhere(tiny_spec, on_an_a100):
    reporter = RecordingReporter(CollectingReporter())
    result = runner.run(tiny_spec.replace(xla="off", steps=2), reporter)
    reporter.close()
    assert result.summary.label == "float32 (TF32)"
    (started,) = reporter.inner.of_type(RunStarted)
    assert started.label == "float32 (TF32)" and started.hardware["float32_math"] == "TF32"
    assert "A100" in started.hardware["device"] and "A100" in result.summary.device
    with RunStore() as store:
        (row,) = store.runs()
        assert row.label == "float32 (TF32)"  # the history list and every title
        stored = store.run(row.id)
        assert stored.hardware["float32_math"] == "TF32"
        assert stored.summary is not None and stored.summary.label == "float32 (TF32)"


def test_tf32_off_and_pre_ampere_gpus_compute_in_float32(tiny_spec, monkeypatch):
    before = tf.config.experimental.tensor_float_32_execution_enabled()
    try:
        tf.config.experimental.enable_tensor_float_32_execution(False)
        assert run_devices(gpus=[A100]).float32_math == "float32"
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(before)
    assert run_devices(gpus=[V100], tf32_on=True).float32_math == "float32"
    assert run_devices(gpus=[A100], tf32_on=True).float32_math == "TF32"
    monkeypatch.setattr(device_info, "visible_gpus", lambda: [V100])
    result = runner.run(tiny_spec.replace(xla="off", steps=1), CollectingReporter())
    assert result.summary.label == "float32"


def test_a_comparison_names_the_baseline_it_measured(tiny_spec, on_an_a100):
    spec = tiny_spec.replace(precision="mixed_float16", xla="off", steps=2)
    auto = compare(spec, CollectingReporter())
    assert auto.baseline.summary.label == "float32 (TF32) baseline"
    strict = compare(spec, CollectingReporter(), baseline="float32")
    assert strict.baseline.summary.label == "float32 baseline"
    assert strict.mixed is not None and strict.mixed.summary.label == "mixed_float16"


# ------------------------------------------------------------------------ TPUs
TPU_V4 = Placement("tpu", None, 8, tuple(f"TPU core {i}" for i in range(8)))


def test_a_tpu_run_is_a_tpu_run():
    """A TPU VM lists no GPU: the run was labelled "CPU", warned that bfloat16 is slow on
    a CPU and said the CPU reports no memory."""
    devices = run_devices(TPU_V4, gpus=[], environ={"TPU_ACCELERATOR_TYPE": "v4-8"})
    assert devices.kind == "TPU" and devices.label == "TPU v4-8 (8 cores)"
    assert devices.devices == tuple(f"TPU:{i}" for i in range(8))
    from mpstudio.engine.spec import RunSpec

    for precision in ("mixed_bfloat16", "mixed_float16", "float32"):
        assert run_setup.device_warnings(RunSpec(precision=precision), devices) == []
    cpu = run_devices(gpus=[])
    assert cpu.kind == "CPU" and cpu.label.startswith("CPU (")


def test_a_cpu_is_told_it_lacks_half_math_only_where_it_does():
    """The warning that a CPU has no fast half-precision math: said on one without the
    half type's instructions, not on an AMX / AVX512-FP16 Xeon (it was said there too),
    nor where the OS gives no flag list. CPUs injected, as the advisor's tests do."""
    from mpstudio.engine.hardware.report import CpuInfo
    from mpstudio.engine.spec import RunSpec

    cpu = run_devices(gpus=[])

    def warned(precision: str, flags: set[str], known: bool = True) -> bool:
        info = CpuInfo("x", "x86_64", 2, 2, None, frozenset(flags), known)
        return bool(run_setup.device_warnings(RunSpec(precision=precision), cpu, info))

    epyc, xeon = {"avx2", "f16c"}, {"avx2", "avx512_fp16", "amx_bf16", "amx_fp16"}
    assert warned("mixed_bfloat16", epyc) and warned("mixed_float16", epyc)
    assert not warned("mixed_bfloat16", xeon) and not warned("mixed_float16", xeon)
    assert warned("mixed_bfloat16", {"avx512_fp16"})  # float16's units, not bfloat16's
    assert not warned("mixed_float16", set(), known=False)
    assert not warned("float32", epyc)
    # float16 without its instructions goes through float32 copies: more memory, not less
    said = run_setup.device_warnings(RunSpec(precision="mixed_float16"), cpu,
                                     CpuInfo("x", "x86_64", 2, 2, None, frozenset(epyc), True))
    assert len(said) == 2 and "more memory than float32" in said[1]
    assert len(run_setup.device_warnings(RunSpec(precision="mixed_bfloat16"), cpu, CpuInfo(
        "x", "x86_64", 2, 2, None, frozenset(epyc), True))) == 1


class DeviceMemory:
    """The memory statistics TensorFlow keeps per GPU/TPU: a run allocates on top of what
    earlier runs in the process hold."""

    def __init__(self, held: dict[str, int]) -> None:
        self.current = dict(held)
        self.peak = dict(held)
        self.resets: list[str] = []

    def allocate(self, device: str, nbytes: int) -> None:
        self.current[device] += nbytes
        self.peak[device] = max(self.peak[device], self.current[device])
        self.current[device] -= nbytes

    def reset(self, device: str) -> None:
        if device not in self.current:
            raise ValueError(f"Memory statistics not tracked for {device}")
        self.resets.append(device)
        self.peak[device] = self.current[device]

    def read(self, device: str) -> dict:
        if device not in self.current:
            raise ValueError(f"Memory statistics not tracked for {device}")
        return {"current": self.current[device], "peak": self.peak[device]}


def test_peak_memory_covers_every_replica_device():
    mib = 2**20
    mirrored = Placement("mirrored", None, 2, ("GPU:0", "GPU:1"))
    devices = run_devices(mirrored, gpus=[A100, A100], tf32_on=True)
    assert devices.kind == "GPU" and devices.devices == ("GPU:0", "GPU:1")
    assert devices.label.startswith("GPU:0, GPU:1: 2 x NVIDIA A100")
    stats = DeviceMemory({"GPU:0": 100 * mib, "GPU:1": 0})
    meter = MemoryMeter(devices, read=stats.read, reset=stats.reset).start()
    stats.allocate("GPU:0", 300 * mib)
    stats.allocate("GPU:1", 500 * mib)
    peak = meter.finish()
    assert stats.resets == ["GPU:0", "GPU:1"]
    assert dict(peak.per_device) == {"GPU:0": 300 * mib, "GPU:1": 500 * mib}
    assert peak.largest == 500 * mib and peak.total == 800 * mib
    assert "GPU:0 300 MiB, GPU:1 500 MiB" in peak.note


def test_tpu_memory_is_read_from_the_tpu_and_a_cpu_says_it_keeps_none():
    devices = run_devices(TPU_V4, gpus=[])
    stats = DeviceMemory({f"TPU:{i}": 0 for i in range(8)})
    meter = MemoryMeter(devices, read=stats.read, reset=stats.reset).start()
    for i in range(8):
        stats.allocate(f"TPU:{i}", (i + 1) * 2**20)
    peak = meter.finish()
    assert peak.largest == 8 * 2**20 and peak.total == 36 * 2**20
    cpu = MemoryMeter(RunDevices("CPU", (), "CPU", "float32")).start().finish()
    assert cpu.largest is None and cpu.note == "not reported by the CPU"
    # a GPU that keeps no statistics (here: none exists) is said, not raised
    gpu = MemoryMeter(RunDevices("GPU", ("GPU:0",), "GPU:0", "float32")).start().finish()
    assert gpu.largest is None and "GPU:0 keeps no memory statistics" in gpu.note


def test_a_cpu_is_measured_only_under_the_counting_allocator():
    """TF_CPU_ALLOCATOR_USE_BFC=true: TensorFlow's CPU allocator counts, so a CPU run
    reads CPU:0's peak (the real measurement is test_memory_estimate's)."""

    assert run_devices(None, gpus=[], environ={}).devices == ()
    counting = run_devices(None, gpus=[], environ={"TF_CPU_ALLOCATOR_USE_BFC": "true"})
    assert counting.devices == ("CPU:0",) and counting.kind == "CPU"
