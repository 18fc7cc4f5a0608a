"""The op-by-op profile: real tiny models traced by tf.profiler on the CPU, and a
hand-built GPU trace (no GPU here) for kernel time and Tensor Core marking."""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest
import tensorflow as tf
from tensorflow.tsl.profiler.protobuf import xplane_pb2

from mpstudio.engine.profiling import (
    ROW_HEADERS,
    OpProfile,
    OpRow,
    compare_profiles,
    slower_reason,
)
from mpstudio.engine.profiling.device_kernels import is_tensor_core_kernel
from mpstudio.engine.profiling.step_profiler import StepProfiler
from mpstudio.engine.profiling.xplane_reader import profile_from_xspace

BATCH = 32


def _conv_model() -> keras.Model:
    model = keras.Sequential([
        keras.Input((16, 16, 3)),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(10),
        keras.layers.Activation("softmax", dtype="float32"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def _data(batches: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (rng.random((batches * BATCH, 16, 16, 3), dtype=np.float32),
            rng.integers(0, 10, batches * BATCH))


def _fit_profiled(policy: str, logdir) -> StepProfiler:
    """2 warm-up steps, 4 profiled (steps 3-6), 2 more."""
    keras.backend.clear_session()
    keras.config.set_dtype_policy(policy)
    try:
        profiler = StepProfiler(start_step=3, steps=4, logdir=logdir)
        x, y = _data(8)
        _conv_model().fit(x, y, batch_size=BATCH, epochs=1, callbacks=[profiler], verbose=0)
        return profiler
    finally:
        keras.config.set_dtype_policy("float32")
        keras.backend.clear_session()


@pytest.fixture(scope="module")
def conv_profiles(tmp_path_factory) -> tuple[StepProfiler, StepProfiler]:
    logdir = tmp_path_factory.mktemp("profiles")
    return _fit_profiled("float32", logdir / "f32"), _fit_profiled("mixed_float16",
                                                                  logdir / "mixed")


def test_cpu_profiles_time_the_conv_ops(conv_profiles):
    for profiler in conv_profiles:
        assert profiler.problem is None
        profile = profiler.profile
        assert profile is not None and profile.device_kind == "CPU"
        assert profiler.steps_profiled == profile.steps == 4
        assert profile.step_time > 0 and profiler.trace_path.name.endswith(".xplane.pb")
        conv = [r for r in profile.rows if "Conv2D" in r.op_type]
        assert {r.op_type for r in conv} & {"Conv2D", "FusedConv2D"}
        assert all(r.seconds_per_step > 0 and r.count_per_step > 0 for r in conv)
        assert all(r.tensor_core is None for r in profile.rows)  # no GPU
        assert 0 <= profile.input_wait_fraction <= 1
        assert "GatherV2" not in {r.op_type for r in profile.rows}  # input pipeline


def test_mixed_precision_adds_casts(conv_profiles):
    float32, mixed = (p.profile for p in conv_profiles)
    assert mixed.cast_count_per_step >= float32.cast_count_per_step + 4
    assert mixed.cast_seconds_per_step > 0
    assert mixed.row("Cast").count_per_step == mixed.cast_count_per_step
    # The dtype comes from the allocations the trace records. On CPUs where oneDNN's
    # kernels allocate outside TensorFlow's traced allocator (this AVX512-FP16/AMX one)
    # the conv rows carry none: never a wrong one.
    conv_dtypes = {r.dtype for r in mixed.rows if "Conv2D" in r.op_type}
    assert conv_dtypes <= {"float16", None}
    if conv_dtypes != {None}:
        float16_ops = {r.op_type for r in mixed.rows if r.dtype == "float16"}
        assert float16_ops & {"Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"}


def test_comparison_ranks_by_time_lost_and_names_an_op(conv_profiles):
    float32, mixed = (p.profile for p in conv_profiles)
    comparison = compare_profiles(float32, mixed)
    lost = [row.lost_seconds for row in comparison.rows]
    assert lost == sorted(lost, reverse=True)
    assert comparison.casts_added_count >= 4
    conv = next(r for r in comparison.rows if r.op_type == "Conv2D")  # FusedConv2D in float32
    assert conv.float32_seconds > 0 and conv.mixed_seconds > 0
    table = comparison.rows_text()
    assert len(table) == len(comparison.rows) and all(len(r) == len(ROW_HEADERS) for r in table)
    reason = slower_reason(comparison, "mixed_float16", "this CPU")
    assert reason.endswith(".") and "this CPU" in reason
    assert any(row.op_type in reason for row in comparison.rows)


def test_profile_round_trips_through_json(conv_profiles):
    profile = conv_profiles[1].profile
    assert OpProfile.from_dict(json.loads(json.dumps(profile.to_dict()))) == profile


def test_a_profiler_that_cannot_start_leaves_training_alone(tmp_path):
    tf.profiler.experimental.start(str(tmp_path / "someone_else"))
    try:
        profiler = StepProfiler(start_step=2, steps=2, logdir=tmp_path / "ours")
        x, y = _data(4)
        keras.backend.clear_session()
        history = _conv_model().fit(x, y, batch_size=BATCH, epochs=2, callbacks=[profiler],
                                    verbose=0)
    finally:
        tf.profiler.experimental.stop()
    assert profiler.profile is None and "already running" in profiler.problem
    assert len(history.history["loss"]) == 2


def test_custom_loop_counts_calls_not_batch_indices(tmp_path):
    """A custom loop passes the index within the epoch; profilers count calls, and one
    still running when training ends stops there with the steps it saw."""
    keras.backend.clear_session()
    dense = keras.layers.Dense(8)
    dense.build((None, 4))
    optimizer = keras.optimizers.SGD(0.1)

    @tf.function
    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(dense(x)))
        optimizer.apply(tape.gradient(loss, dense.trainable_variables),
                        dense.trainable_variables)

    first = StepProfiler(start_step=2, steps=2, logdir=tmp_path / "first")
    second = StepProfiler(start_step=5, steps=10, logdir=tmp_path / "second")
    x = tf.ones((16, 4))
    for _epoch in range(2):
        for batch_index in range(4):
            for profiler in (first, second):
                profiler.on_train_batch_begin(batch_index)
            train_step(x)
    for profiler in (first, second):
        profiler.on_train_end()
    assert (first.steps_profiled, second.steps_profiled) == (2, 4)
    for profiler in (first, second):
        assert profiler.problem is None, profiler.problem
        assert profiler.profile.row("MatMul").count_per_step == pytest.approx(1.0)
        assert profiler.profile.row("MatMul").seconds_per_step > 0


def test_stops_at_epoch_end_and_reports_a_run_too_short(tmp_path):
    profiler = StepProfiler(start_step=2, steps=5, logdir=tmp_path)
    for batch_index in range(3):
        profiler.on_train_batch_begin(batch_index)
    profiler.on_epoch_end(0)  # batches 2 and 3 ran; the epoch's end is not training
    assert profiler.steps_profiled == 2 and profiler.profile is not None
    assert profiler.profile.rows == ()  # nothing ran in the window
    late = StepProfiler(start_step=10, steps=2, logdir=tmp_path / "late")
    for batch_index in range(3):
        late.on_train_batch_begin(batch_index)
    late.on_train_end()
    assert late.profile is None and "ended after 3 steps" in late.problem


# A hand-built trace with the planes, lines and stats a real TF 2.21 GPU trace has.
class _Plane:
    def __init__(self, space, name: str) -> None:
        self.plane = space.planes.add(id=len(space.planes), name=name)

    def _stat_id(self, name: str) -> int:
        for sid, meta in self.plane.stat_metadata.items():
            if meta.name == name:
                return sid
        sid = len(self.plane.stat_metadata) + 1
        self.plane.stat_metadata[sid].id, self.plane.stat_metadata[sid].name = sid, name
        return sid

    def _stats(self, target, stats: dict) -> None:
        for name, value in stats.items():
            stat = target.stats.add(metadata_id=self._stat_id(name))
            if isinstance(value, str):  # strings go by reference, as the profiler writes
                stat.ref_value = self._stat_id(value)
            else:
                stat.int64_value = value

    def line(self, name: str):
        return self.plane.lines.add(id=len(self.plane.lines) + 1, name=name, timestamp_ns=0)

    def event(self, line, name: str, start_us: float, duration_us: float, **stats) -> None:
        mid = next((i for i, m in self.plane.event_metadata.items() if m.name == name), None)
        if mid is None:
            mid = len(self.plane.event_metadata) + 1
            self.plane.event_metadata[mid].id, self.plane.event_metadata[mid].name = mid, name
        event = line.events.add(metadata_id=mid, offset_ps=int(start_us * 1e6),
                                duration_ps=int(duration_us * 1e6))
        self._stats(event, stats)


DETAILS = "regs:128 static_shared:0 dynamic_shared:49152 grid:16,1,1 block:256,1,1 occ_pct:50"


def _gpu_space():
    space = xplane_pb2.XSpace()
    host = _Plane(space, "/host:CPU")
    compute = host.line("tf_Compute/11")
    host.event(compute, "model/dense/MatMul:MatMul", 0, 30)  # the launch, not device time
    host.event(compute, "ExecutorState::ProcessAsync::Start", 0, 2, kernel_type="IteratorGetNext",
               _p=77)
    host.event(host.line("tf_data_iterator_get_next/12"), "ExecutorState::ProcessAsync::Done",
               95, 5, kernel_type="IteratorGetNext", _c=77)
    host.event(compute, "MemoryAllocation", 40, 0, tf_op="model/dense/MatMul", data_type=19,
               region_type="output")
    gpu = _Plane(space, "/device:GPU:0")
    gpu._stats(gpu.plane, {"devcap_compute_cap_major": 8})
    stream = gpu.line("Stream #7(Kernel,MemcpyH2D)")
    kernels = [
        ("volta_h884gemm_64x64_ldg8_nn", 100, "model/dense/MatMul:MatMul"),
        ("sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64",
         300, "model/conv2d/Conv2D:Conv2D"),
        ("void cudnn::ops::nchwToNhwcKernel<__half, __half, float, false, true>", 20,
         "model/conv2d/Conv2D:Conv2D"),
        ("void cudnn::cnn::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>", 200,
         "gradient_tape/model/conv2d/Conv2DBackpropFilter:Conv2DBackpropFilter"),
        ("void Eigen::internal::EigenMetaKernel<scalar_cast_op<float, Eigen::half>>", 10,
         "model/Cast:Cast"),
        ("loop_add_fusion", 6, "cluster_0_1/xla_run:_XlaRun"),
    ]
    start = 0
    for name, duration, tf_op in kernels:
        extra = {"hlo_op": "add_fusion.2", "hlo_module": "cluster_0"} if "Xla" in tf_op else {}
        gpu.event(stream, name, start, duration, correlation_id=start, context_id="$$1",
                  kernel_details=DETAILS, tf_op=tf_op, **extra)
        start += duration + 1
    other = gpu.line("Stream #14(Kernel)")
    gpu.event(other, "void Eigen::internal::EigenMetaKernel<scalar_cast_op<float, Eigen::half>>",
              5, 10, kernel_details=DETAILS, tf_op="model/Cast_1:Cast")
    gpu.event(other, "MemcpyH2D", 50, 50,
              memcpy_details="kind_src:pageable kind_dst:device size:98304 dest:0 async:0")
    gpu.event(gpu.line("CUPTI overhead"), "CUPTI overhead", 0, 999)  # no details: not work
    env = _Plane(space, "Task Environment")
    env._stats(env.plane, {"profile_start_time": 10**18, "profile_stop_time": 10**18 + 4_000_000})
    return space


def test_gpu_kernels_by_op_type_with_tensor_cores():
    profile = profile_from_xspace(_gpu_space(), steps=2, wall_seconds=0.002)
    assert profile.device_kind == "GPU" and profile.step_time == pytest.approx(0.001)
    rows = {r.op_type: r for r in profile.rows}
    assert rows["MatMul"].seconds_per_step == pytest.approx(50e-6)  # device, not host, time
    assert rows["MatMul"].share == pytest.approx(0.05)
    assert rows["MatMul"].tensor_core is True and rows["MatMul"].dtype == "float16"
    assert rows["Conv2D"].tensor_core is True and rows["Conv2D"].count_per_step == 1.0
    assert rows["Conv2D"].seconds_per_step == pytest.approx(160e-6)
    assert rows["Conv2DBackpropFilter"].tensor_core is False
    assert rows["Cast"].tensor_core is False and rows["Cast"].count_per_step == 1.0
    assert profile.cast_count_per_step == 1.0
    assert profile.cast_seconds_per_step == pytest.approx(10e-6)
    assert rows["add_fusion"].count_per_step == 0.5  # XLA kernels by their HLO instruction
    assert rows["MemcpyH2D"].tensor_core is None  # a copy is no kernel
    assert "CUPTI overhead" not in rows
    assert profile.input_wait_fraction == pytest.approx(0.05)  # 100 us over 2 steps of 1 ms
    assert profile_from_xspace(_gpu_space(), steps=2).step_time == pytest.approx(0.002)


def test_tensor_core_kernel_names():
    for name in ("volta_h884gemm_128x128_ldg8_nn", "turing_fp16_s1688cudnn_fp16_256x128",
                 "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
                 "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
                 "cutlass_80_tensorop_f16_s16816gemm_relu_f16_64x64_64x4_nn_align8",
                 "sm80_xmma_wgrad_implicit_gemm_indexed_f16f16_f16f32_f32"):
        assert is_tensor_core_kernel(name), name
    for name in ("volta_sgemm_128x64_nn", "void cudnn::cnn::wgrad_alg0_engine<float, 512>",
                 "void Eigen::internal::EigenMetaKernel<scalar_cast_op<float, Eigen::half>>"):
        assert not is_tensor_core_kernel(name), name


def test_host_self_time_and_library_names():
    space = xplane_pb2.XSpace()
    host = _Plane(space, "/host:CPU")
    line = host.line("tf_Compute/1")
    host.event(line, "outer:PartitionedCall", 0, 100)  # a function call running inline
    host.event(line, "outer/conv:_MklNativeFusedConv2D", 10, 50)
    host.event(line, "outer/Cast:Cast", 70, 10)
    host.event(host.line("tf_data_private_threadpool/2"), "GatherV2:GatherV2", 0, 500)
    host.event(host.line("tf_data_iterator_get_next/3"), "IteratorGetNextOp::DoCompute", 0, 20)
    profile = profile_from_xspace(space, steps=1, wall_seconds=0.001)
    seconds = {r.op_type: r.seconds_per_step for r in profile.rows}
    assert seconds == pytest.approx({"PartitionedCall": 40e-6, "FusedConv2D": 50e-6,
                                     "Cast": 10e-6})
    assert profile.input_wait_fraction == pytest.approx(0.02)  # DoCompute, no async pair


def _profile(step_ms: float, wait: float, **ops: tuple[float, float]) -> OpProfile:
    rows = tuple(OpRow(op_type=name, seconds_per_step=ms / 1e3, count_per_step=count,
                       share=ms / step_ms) for name, (ms, count) in ops.items())
    cast_ms, cast_count = ops.get("Cast", (0.0, 0.0))
    return OpProfile(device_kind="CPU", steps=4, step_time=step_ms / 1e3, rows=rows,
                     input_wait_fraction=wait, cast_seconds_per_step=cast_ms / 1e3,
                     cast_count_per_step=cast_count)


def test_reason_sentence_and_table_cells():
    float32 = _profile(2.5, 0.02, FusedConv2D=(1.0, 2), Conv2DBackpropFilterWithBias=(1.0, 2),
                       Cast=(0.01, 2), Mean=(0.3, 1))
    mixed = _profile(5.0, 0.10, Conv2D=(2.0, 2), Conv2DBackpropFilter=(3.1, 2),
                     BiasAdd=(0.1, 2), Cast=(0.41, 10))
    comparison = compare_profiles(float32, mixed)
    assert [r.op_type for r in comparison.rows] == [
        "Conv2DBackpropFilter", "Conv2D", "Cast", "BiasAdd", "Mean"]
    assert comparison.rows_text()[0] == (
        "Conv2DBackpropFilter", "1.00", "3.10", "3.1x", "+2.10", "-")
    assert comparison.rows_text()[3][3] == "new" and comparison.rows_text()[4][3] == "gone"
    assert slower_reason(comparison, "mixed_float16", "this CPU") == (
        "Conv2DBackpropFilter in float16 took 3.1x longer on this CPU, 62% of the step, and "
        "Conv2D 2.0x longer; casts added 0.40 ms per step (8%); waiting for input rose from "
        "2% to 10% of the step.")
    same = compare_profiles(float32, float32)
    assert slower_reason(same, "mixed_bfloat16", "this GPU") == (
        "No op type took longer in bfloat16 on this GPU.")
