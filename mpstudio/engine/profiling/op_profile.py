"""What a few profiled training steps spent their time on, per op type.

Plain values only (no TensorFlow, no protobuf): a profile is kept in the run history as
JSON and read back by the window, which never imports TensorFlow.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

FORMAT_VERSION = 1
CAST_OP = "Cast"


@dataclass(frozen=True)
class OpRow:
    """One op type over the profiled steps, as per-step averages."""

    op_type: str
    seconds_per_step: float  # self time on the host, kernel time on a GPU
    count_per_step: float  # op executions (host) or kernels (GPU) per step
    share: float  # seconds_per_step / the step's wall time; parallel ops can sum past 1
    tensor_core: bool | None = None  # None: not a GPU, or no kernels to judge by
    dtype: str | None = None  # from the allocations the op made, when the trace has any

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OpRow:
        tensor_core = data.get("tensor_core")
        dtype = data.get("dtype")
        return cls(
            op_type=str(data["op_type"]),
            seconds_per_step=_number(data.get("seconds_per_step")),
            count_per_step=_number(data.get("count_per_step")),
            share=_number(data.get("share")),
            tensor_core=None if tensor_core is None else bool(tensor_core),
            dtype=None if dtype is None else str(dtype),
        )


@dataclass(frozen=True)
class OpProfile:
    device_kind: str  # "CPU", "GPU" or "TPU": where the rows' time was measured
    steps: int  # training steps inside the profiled window
    step_time: float  # seconds of wall time per step while profiling
    rows: tuple[OpRow, ...] = field(default_factory=tuple)  # slowest op type first
    input_wait_fraction: float = 0.0  # of the step, waiting for the next batch
    cast_seconds_per_step: float = 0.0
    cast_count_per_step: float = 0.0

    def row(self, op_type: str) -> OpRow | None:
        return next((r for r in self.rows if r.op_type == op_type), None)

    @property
    def op_seconds_per_step(self) -> float:
        return sum(r.seconds_per_step for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rows"] = [r.to_dict() for r in self.rows]
        data["version"] = FORMAT_VERSION
        # JSON has no NaN or infinity; a profile never needs them.
        return {k: (0.0 if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OpProfile:
        return cls(
            device_kind=str(data.get("device_kind", "CPU")),
            steps=int(data.get("steps", 0)),
            step_time=_number(data.get("step_time")),
            rows=tuple(OpRow.from_dict(r) for r in data.get("rows", ())),
            input_wait_fraction=_number(data.get("input_wait_fraction")),
            cast_seconds_per_step=_number(data.get("cast_seconds_per_step")),
            cast_count_per_step=_number(data.get("cast_count_per_step")),
        )


def _number(value: Any) -> float:
    """Missing or null (an older or hand-edited history entry) reads as 0."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0
