"""Turns the trace tf.profiler wrote (<logdir>/plugins/profile/<run>/<host>.xplane.pb)
into an OpProfile: time per op type, input wait and casts, per training step.

What TF 2.21 records on the "/host:CPU" plane (one line per thread):
- "tf_Compute/<id>" lines (the executor's threads): one event per op execution named
  "<op name>:<op type>" ("StatefulPartitionedCall/sequential/conv2d/convolution:Conv2D",
  display name "Conv2D"), inside "ExecutorState::Process" events, next to runtime
  events ("ParallelFor", "MemoryAllocation" with stats tf_op/data_type/region_type).
  Under XLA, instructions instead ("convolution.1", stat "hlo_op").
- "python": the eager calls ("multi_step_on_iterator", "EagerExecute"...): no ops.
- "tf_data_*" lines: the input pipeline, prefetching in the background; its ops
  ("GatherV2") overlap the step, so they count only through input wait.
- Waiting for a batch: IteratorGetNext is asynchronous, so it has no op event but an
  "ExecutorState::ProcessAsync::Start" on the compute thread and a "...::Done" on the
  "tf_data_iterator_get_next" line (stat kernel_type "IteratorGetNext", paired by the
  _p/_c stats), around "IteratorGetNextOp::DoCompute".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from mpstudio.engine.profiling import device_kernels
from mpstudio.engine.profiling.op_profile import CAST_OP, OpProfile, OpRow
from mpstudio.engine.profiling.xplane_access import (
    PlaneView,
    Tally,
    absolute_ps,
    hlo_op_type,
    parse_tf_op,
)

HOST_PLANE = "/host:CPU"
_INPUT_LINES = "tf_data"
_ITERATOR = "IteratorGetNext"
_ASYNC_START = "ExecutorState::ProcessAsync::Start"
_ASYNC_DONE = "ExecutorState::ProcessAsync::Done"
_DO_COMPUTE_SUFFIX = "Op::DoCompute"
# tensorflow/core/framework/types.proto: the codes a training step allocates.
_DTYPES = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 9: "int64", 10: "bool",
           14: "bfloat16", 19: "float16"}
PS = 1e-12


def find_xplanes(logdir: Path) -> list[Path]:
    """Every trace under logdir, oldest run first (run folders are named by time)."""
    return sorted(Path(logdir).glob("plugins/profile/*/*.xplane.pb"))


def load_xspace(path: Path) -> Any:
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    space = xplane_pb2.XSpace()
    space.ParseFromString(Path(path).read_bytes())
    return space


def read_profile(path: Path, steps: int, wall_seconds: float | None = None) -> OpProfile:
    return profile_from_xspace(load_xspace(path), steps, wall_seconds)


def profile_from_xspace(space: Any, steps: int,
                        wall_seconds: float | None = None) -> OpProfile:
    """steps: training steps inside the trace; wall_seconds: the wall time they took
    (None: the trace's own start and stop times)."""
    steps = max(1, steps)
    step_time = (wall_seconds if wall_seconds else _traced_seconds(space)) / steps
    host = next((p for p in space.planes if p.name == HOST_PLANE), None)
    op_names: dict[str, str] = {}  # op name -> op type: allocations name only the op
    kind, planes = device_kernels.device_planes(space)
    tallies: dict[str, Tally] = {}
    if kind == "GPU":
        for plane in planes:
            _merge(tallies, device_kernels.gpu_tallies(plane, op_names))
    elif kind == "TPU":
        for plane in planes:
            _merge(tallies, device_kernels.tpu_tallies(plane))
    host_tallies = _host_tallies(host, op_names) if host is not None else {}
    if not tallies:  # a CPU run, or an accelerator plane that recorded nothing
        kind, planes, tallies = "CPU", [], host_tallies
    # Per device: data-parallel replicas each run the whole step.
    per_step = steps * max(1, len(planes))
    dtypes = _dtypes(host, op_names) if host is not None else {}
    rows = sorted(
        (_row(op_type, tally, per_step, step_time, kind, dtypes.get(op_type))
         for op_type, tally in tallies.items()),
        key=lambda r: (-r.seconds_per_step, r.op_type))
    wait = _input_wait_ps(host) * PS / steps if host is not None else 0.0
    casts = tallies.get(CAST_OP, Tally())
    return OpProfile(
        device_kind=kind, steps=steps, step_time=step_time, rows=tuple(rows),
        input_wait_fraction=min(1.0, wait / step_time) if step_time > 0 else 0.0,
        cast_seconds_per_step=casts.picoseconds * PS / per_step,
        cast_count_per_step=casts.count / per_step)


def _row(op_type: str, tally: Tally, per_step: int, step_time: float, kind: str,
         dtype: str | None) -> OpRow:
    seconds = tally.picoseconds * PS / per_step
    tensor_core = None
    if kind == "GPU" and tally.kernel_picoseconds > 0:
        tensor_core = tally.tensor_core_picoseconds > 0
    return OpRow(op_type=op_type, seconds_per_step=seconds,
                 count_per_step=tally.count / per_step,
                 share=seconds / step_time if step_time > 0 else 0.0,
                 tensor_core=tensor_core, dtype=dtype)


def _host_tallies(plane: Any, op_names: dict[str, str]) -> dict[str, Tally]:
    """Self time per op type: an op event inside another on the same thread (a
    function-call op running its body inline) is taken out of the outer one."""
    view = PlaneView(plane)
    hlo_stat = view.stat_id("hlo_op")
    kinds: dict[int, str | None] = {}  # event metadata id -> op type, or None
    tallies: dict[str, Tally] = defaultdict(Tally)
    for line in plane.lines:
        if line.name.startswith(_INPUT_LINES):
            continue
        spans: list[tuple[int, int, str]] = []
        for event in line.events:
            op_type = kinds.get(event.metadata_id, "")
            if op_type == "":
                parsed = parse_tf_op(view.event_name(event))
                op_type = kinds[event.metadata_id] = parsed and parsed[1]
                if parsed:
                    op_names[parsed[0]] = parsed[1]
            if op_type is None and hlo_stat is not None and any(
                    s.metadata_id == hlo_stat for s in event.stats):
                op_type = hlo_op_type(view.event_name(event))
            if op_type:
                spans.append((event.offset_ps, event.duration_ps, op_type))
        _add_self_times(spans, tallies)
    return dict(tallies)


def _add_self_times(spans: list[tuple[int, int, str]], tallies: dict[str, Tally]) -> None:
    spans.sort(key=lambda s: (s[0], -s[1]))
    self_ps = [duration for _, duration, _ in spans]
    open_spans: list[tuple[int, int]] = []  # (end, index) of the enclosing events
    for index, (start, duration, _) in enumerate(spans):
        while open_spans and open_spans[-1][0] <= start:
            open_spans.pop()
        if open_spans:
            parent = open_spans[-1][1]
            self_ps[parent] -= min(duration, open_spans[-1][0] - start)
        open_spans.append((start + duration, index))
    for (_, _, op_type), own in zip(spans, self_ps, strict=True):
        tallies[op_type].add(max(0, own))


def _input_wait_ps(plane: Any) -> int:
    """Time steps spent waiting for IteratorGetNext: from the executor starting the
    asynchronous op to the iterator handing the batch over. Failing that (a trace with
    no async pairs), the iterator's own DoCompute time, or a synchronous op's time."""
    view = PlaneView(plane)
    starts: dict[Any, int] = {}
    ends: dict[Any, int] = {}
    do_compute = sync_ops = 0
    for line in plane.lines:
        for event in line.events:
            name = view.event_name(event)
            if name in (_ASYNC_START, _ASYNC_DONE):
                stats = view.stats(event)
                if not str(stats.get("kernel_type", "")).startswith(_ITERATOR):
                    continue
                if name == _ASYNC_START and "_p" in stats:
                    starts[stats["_p"]] = absolute_ps(line, event)
                elif name == _ASYNC_DONE and "_c" in stats:
                    ends[stats["_c"]] = absolute_ps(line, event) + event.duration_ps
            elif name.startswith(_ITERATOR) and name.endswith(_DO_COMPUTE_SUFFIX):
                do_compute += event.duration_ps
            elif not line.name.startswith(_INPUT_LINES):
                parsed = parse_tf_op(name)
                if parsed and parsed[1].startswith(_ITERATOR):
                    sync_ops += event.duration_ps
    paired = sum(max(0, ends[key] - start) for key, start in starts.items() if key in ends)
    return (paired or do_compute) + sync_ops


def _dtypes(plane: Any, op_names: dict[str, str]) -> dict[str, str]:
    """The dtype each op type allocated most, outputs first: the trace has no dtype on
    op events, but large allocations name their op (tf_op) and data_type."""
    view = PlaneView(plane)
    if view.stat_id("data_type") is None:
        return {}
    outputs: dict[str, Counter[str]] = defaultdict(Counter)
    others: dict[str, Counter[str]] = defaultdict(Counter)
    for line in plane.lines:
        for event in line.events:
            if view.event_name(event) != "MemoryAllocation":
                continue
            stats = view.stats(event)
            op_type = op_names.get(str(stats.get("tf_op", "")))
            dtype = _DTYPES.get(int(stats.get("data_type") or 0))
            if op_type and dtype:
                kind = outputs if stats.get("region_type") == "output" else others
                kind[op_type][dtype] += 1
    found = {t: c.most_common(1)[0][0] for t, c in others.items()}
    found.update({t: c.most_common(1)[0][0] for t, c in outputs.items()})
    return found


def _traced_seconds(space: Any) -> float:
    """The session's own span, from the "Task Environment" plane's stats."""
    for plane in space.planes:
        values = PlaneView(plane).stats(plane)  # a plane carries stats as events do
        start, stop = values.get("profile_start_time"), values.get("profile_stop_time")
        if isinstance(start, int) and isinstance(stop, int) and stop > start:
            return (stop - start) * 1e-9
    return 0.0


def _merge(into: dict[str, Tally], more: dict[str, Tally]) -> None:
    for op_type, tally in more.items():
        target = into.setdefault(op_type, Tally())
        target.picoseconds += tally.picoseconds
        target.count += tally.count
        target.kernel_picoseconds += tally.kernel_picoseconds
        target.tensor_core_picoseconds += tally.tensor_core_picoseconds
