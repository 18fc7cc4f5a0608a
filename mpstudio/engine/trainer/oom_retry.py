"""Out of memory: say what did not fit, and try again at half the batch.

A run that raises ResourceExhaustedError ends as a failed attempt (recorded, with
the batch and memory in its reason). With ``aids.oom_retry`` on, the run starts
again from the same seed at half the batch and the linearly scaled learning rate
(the linear scaling rule, so each example still moves the weights as much), down
to ``aids.min_batch_size``. Each retry is an OomRetry event; the attempt that fits
records how many retries it took and that its batch is the largest that fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mpstudio.engine.events import OomRetry, Reporter
from mpstudio.engine.spec import RunSpec

_DTYPE_BYTES = {"float": 4, "half": 2, "bfloat16": 2, "double": 8, "int32": 4, "int64": 8,
                "float32": 4, "float16": 2, "float64": 8, "int8": 1, "uint8": 1}
_TENSOR = re.compile(r"allocating tensor with shape\s*\[([\d,\s]*)\]\s*and type\s*(\w+)")


def failed_allocation(message: str) -> str:
    """The allocation TensorFlow names in an out-of-memory message, in words, e.g.
    "a 256x64x64x32 float tensor (128 MiB)"; "" when the message names none."""
    match = _TENSOR.search(message)
    if not match:
        return ""
    dims = [int(d) for d in match.group(1).replace(" ", "").split(",") if d]
    dtype = match.group(2)
    size = _DTYPE_BYTES.get(dtype, 0)
    for d in dims:
        size *= d
    shape = "x".join(map(str, dims)) or "scalar"
    return f"a {shape} {dtype} tensor ({size / 2**20:,.0f} MiB)" if size else \
        f"a {shape} {dtype} tensor"


def run_with_retries(spec: RunSpec, reporter: Reporter, enabled: bool,
                     attempt: Callable[[RunSpec, int], Any]) -> Any:
    """``attempt(spec, retries_so_far)`` runs once and returns a RunResult."""
    retries = 0
    current = spec
    while True:
        result = attempt(current, retries)
        failure = result.failure
        if not enabled or failure is None or failure.kind != "out_of_memory" \
                or reporter.should_stop():
            return result
        half = current.batch_size // 2
        if half < spec.aids.min_batch_size:
            return result  # its reason says what ran out; below the floor there is no retry
        rate = current.learning_rate * half / current.batch_size
        reporter.emit(OomRetry(
            failed_batch_size=current.batch_size, batch_size=half, learning_rate=rate,
            message=(f"out of memory at batch size {current.batch_size}; trying again at "
                     f"batch size {half} with learning rate {rate:.3g} (scaled linearly "
                     f"with the batch; retries stop below batch {spec.aids.min_batch_size})")))
        current = current.replace(batch_size=half, learning_rate=rate)
        retries += 1
