"""Accelerator time per op type, from the "/device:GPU:N" (or TPU) planes of a trace.

On a GPU the profiler (CUPTI) records one event per kernel or copy on a line per
stream ("Stream #7(Kernel,MemcpyH2D)"). An event is named after the demangled kernel
and carries the stats TensorFlow's own Kernel Stats page reads: "kernel_details"
(launch shape; its presence is what makes the event a kernel), "memcpy_details" for
copies, and "tf_op" (the launching op, "model/conv2d/Conv2D:Conv2D") or, for XLA
clusters, "hlo_op"/"hlo_module".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from mpstudio.engine.i18n import N_
from mpstudio.engine.profiling.xplane_access import (
    PlaneView,
    Tally,
    hlo_op_type,
    is_launcher,
    parse_tf_op,
)

GPU_PLANE_PREFIX = "/device:GPU:"
TPU_PLANE_PREFIX = "/device:TPU:"

# TensorFlow's profiler decides by kernel name alone: IsKernelUsingTensorCore in
# tensorflow/core/profiler/utils/kernel_stats_utils.cc (now xprof/utils/) checks
# whether the name contains one of these (cuBLAS/cuDNN names such as volta_h884gemm,
# turing_fp16_s1688cudnn_fp16, ampere_fp16_s16816gemm, sm80_xmma_gemm_...).
TF_TENSOR_CORE_PATTERNS = (
    "16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group",
    "first_layer_wgrad_kernel", "h1688", "h884", "hmma", "i16832", "i8816", "s884",
    "s1688", "xmma_gemm", "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_sparse_gemm",
    "xmma_warp_specialized_implicit_gemm",
)
# Names that list misses on newer libraries: cuDNN 8/9 convolutions
# ("sm80_xmma_fprop_implicit_gemm_f16f16_..."), CUTLASS ("cutlass_80_tensorop_...",
# "cutlass3x_sm90_tensorop_gemm_..."), Hopper warpgroup MMA and Blackwell tcgen05.
EXTRA_TENSOR_CORE_PATTERNS = (
    "xmma_fprop", "xmma_dgrad", "xmma_wgrad", "tensorop", "wgmma", "tcgen05",
)
TENSOR_CORE_PATTERNS = TF_TENSOR_CORE_PATTERNS + EXTRA_TENSOR_CORE_PATTERNS

# Lines the trace viewer derives from the others: counting them would count twice.
_DERIVED_LINES = frozenset({"Steps", "TensorFlow Ops", "TensorFlow Name Scope",
                            "XLA Modules", "XLA Ops", "Launch Stats", "Source code"})
UNATTRIBUTED = N_("(kernels of no op)")  # an op type of its own: shown as _(UNATTRIBUTED)


def is_tensor_core_kernel(kernel_name: str) -> bool:
    return any(pattern in kernel_name for pattern in TENSOR_CORE_PATTERNS)


def device_planes(space: Any) -> tuple[str, list[Any]]:
    """("GPU", planes) or ("TPU", planes) when the trace has accelerator planes."""
    gpus = [p for p in space.planes if p.name.startswith(GPU_PLANE_PREFIX)]
    if gpus:
        return "GPU", gpus
    tpus = [p for p in space.planes if p.name.startswith(TPU_PLANE_PREFIX)]
    return ("TPU", tpus) if tpus else ("CPU", [])


def gpu_tallies(plane: Any, op_names: dict[str, str]) -> dict[str, Tally]:
    """Kernel and copy time per op type on one GPU; fills op_names (op name -> type)."""
    view = PlaneView(plane)
    tallies: dict[str, Tally] = defaultdict(Tally)
    for line in plane.lines:
        if line.name in _DERIVED_LINES:
            continue
        for event in line.events:
            if event.duration_ps <= 0:
                continue
            stats = view.stats(event)
            is_kernel = bool(stats.get("kernel_details"))
            if not is_kernel and not stats.get("memcpy_details"):
                continue  # CUPTI overhead, memsets, counters
            name = view.event_name(event)
            op_type = _op_type(name, stats, is_kernel, op_names)
            tally = tallies[op_type]
            tally.add(event.duration_ps)
            if is_kernel:
                tally.kernel_picoseconds += event.duration_ps
                if is_tensor_core_kernel(name):
                    tally.tensor_core_picoseconds += event.duration_ps
    return dict(tallies)


def tpu_tallies(plane: Any) -> dict[str, Tally]:
    """A TPU runs XLA programs: time per XLA instruction kind on its "XLA Ops" line."""
    view = PlaneView(plane)
    tallies: dict[str, Tally] = defaultdict(Tally)
    for line in plane.lines:
        if line.name != "XLA Ops":
            continue
        for event in line.events:
            tallies[hlo_op_type(view.event_name(event))].add(event.duration_ps)
    return dict(tallies)


def _op_type(kernel_name: str, stats: dict[str, Any], is_kernel: bool,
             op_names: dict[str, str]) -> str:
    parsed = parse_tf_op(str(stats.get("tf_op") or ""))
    hlo_op = stats.get("hlo_op")
    if parsed is not None:
        op_names[parsed[0]] = parsed[1]
        if not (is_launcher(parsed[1]) and hlo_op):
            return parsed[1]
    if hlo_op:
        return hlo_op_type(str(hlo_op).split("::")[-1])
    # A copy with no op behind it (the input pipeline's host-to-device transfer).
    return UNATTRIBUTED if is_kernel else kernel_name
