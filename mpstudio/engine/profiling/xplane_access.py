"""Small readers over one XPlane of a profiler trace (tsl/profiler/protobuf/xplane.proto).

An XPlane keeps names out of its events: each event points at an event metadata entry
(its name) and each stat at a stat metadata entry (the stat's name); a string stat
value may itself be a reference to a stat metadata entry whose name is the string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# "model/conv2d/Conv2D:Conv2D": a TF op's name, then its type. Anything else with a
# colon ("ExecutorState::Process", "EagerLocalExecute: Cast") is the runtime's own.
_TF_OP = re.compile(r"^(?P<name>[^:]+):(?P<type>[A-Za-z_]\w*)$")
# "convolution.1", "multiply_add_fusion.3": an XLA instruction and its unique suffix.
_HLO_SUFFIX = re.compile(r"\.\d+$")
# oneDNN rewrites ops to kernels of its own ("_MklNativeFusedConv2D", "_MklMatMul"):
# the same op under a library prefix, so float32 and float16 rows still line up.
_LIBRARY_PREFIXES = ("_MklNative", "_Mkl", "_")

# Ops that run whole XLA clusters or functions: their kernels are better named by the
# XLA instruction inside (hlo_op) than by the launcher.
_LAUNCHERS = frozenset({"XlaLaunch", "XlaRun", "XlaLaunchV2", "StatefulPartitionedCall",
                        "PartitionedCall"})


@dataclass
class Tally:
    """Accumulates one op type's time over the whole profiled window."""

    picoseconds: int = 0
    count: int = 0
    kernel_picoseconds: int = 0  # GPU kernels only (not copies): judged for Tensor Cores
    tensor_core_picoseconds: int = 0

    def add(self, duration_ps: int) -> None:
        self.picoseconds += duration_ps
        self.count += 1


class PlaneView:
    """Name lookups for one plane, resolved once instead of per event."""

    def __init__(self, plane: Any) -> None:
        self.plane = plane
        self.name = plane.name
        self._event_names = {i: m.name for i, m in plane.event_metadata.items()}
        self._stat_names = {i: m.name for i, m in plane.stat_metadata.items()}
        self._stat_ids = {name: i for i, name in self._stat_names.items()}

    def event_name(self, event: Any) -> str:
        return self._event_names.get(event.metadata_id, "")

    def stat_id(self, name: str) -> int | None:
        return self._stat_ids.get(name)

    def stats(self, event: Any) -> dict[str, Any]:
        return {self._stat_names.get(s.metadata_id, ""): self._value(s) for s in event.stats}

    def stat(self, event: Any, name: str) -> Any:
        wanted = self._stat_ids.get(name)
        if wanted is None:
            return None
        return next((self._value(s) for s in event.stats if s.metadata_id == wanted), None)

    def _value(self, stat: Any) -> Any:
        kind = stat.WhichOneof("value")
        if kind == "ref_value":
            return self._stat_names.get(stat.ref_value, "")
        return getattr(stat, kind) if kind else None


def parse_tf_op(fullname: str) -> tuple[str, str] | None:
    """("model/conv2d/Conv2D", "Conv2D") from "model/conv2d/Conv2D:Conv2D", else None."""
    match = _TF_OP.match(fullname)
    if match is None:
        return None
    return match["name"], normalize_op_type(match["type"])


def normalize_op_type(op_type: str) -> str:
    for prefix in _LIBRARY_PREFIXES:
        if op_type.startswith(prefix) and len(op_type) > len(prefix):
            return op_type[len(prefix):]
    return op_type


def is_launcher(op_type: str) -> bool:
    return op_type in _LAUNCHERS


def hlo_op_type(hlo_name: str) -> str:
    """An XLA instruction by its kind: "convolution.1" and "convolution.4" are one row."""
    return _HLO_SUFFIX.sub("", hlo_name) or hlo_name


def absolute_ps(line: Any, event: Any) -> int:
    """Events keep offsets from their line's start; lines may start at different times."""
    return line.timestamp_ns * 1000 + event.offset_ps
