"""Out of memory: recognise it, say what did not fit, and try again at half the batch.

GPU memory running out is not always ResourceExhaustedError: copying a batch to the
GPU fails as InternalError "Dst tensor is not initialized" (tensorflow/tensorflow#7025),
cuBLAS as a failed allocation or GEMM launch, cuDNN as UnknownError "Failed to get
convolution algorithm", XLA as "Out of memory while trying to allocate". Each is an
out-of-memory failure of the attempt (recorded, with the batch and memory in its
reason). With ``aids.oom_retry`` on, the run starts
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
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, said
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.memory_release import release_device_memory

_DTYPE_BYTES = {"float": 4, "half": 2, "bfloat16": 2, "double": 8, "int32": 4, "int64": 8,
                "float32": 4, "float16": 2, "float64": 8, "int8": 1, "uint8": 1}
# (what TensorFlow's message says, what it means for the user), most specific first
OOM_MESSAGES: tuple[tuple[str, str], ...] = (
    ("OOM when allocating", N_("TensorFlow could not allocate a tensor")),
    ("out of memory while trying to allocate", N_("XLA could not allocate a buffer")),
    ("Dst tensor is not initialized", N_("a tensor could not be copied to the GPU")),
    ("CUBLAS_STATUS_ALLOC_FAILED", N_("cuBLAS could not allocate its workspace")),
    ("failed to create cublas handle", N_("cuBLAS could not start (no memory left for it)")),
    ("BLAS operation using StreamExecutor without BLAS support",
     N_("cuBLAS could not start (no memory left for it)")),
    ("GEMM launch failed", N_("cuBLAS could not launch a matrix multiply")),
    ("Failed to get convolution algorithm",
     N_("cuDNN could not start a convolution (no memory left for it)")),
    ("CUDNN_STATUS_ALLOC_FAILED", N_("cuDNN could not allocate its workspace")),
    ("CUDA_ERROR_OUT_OF_MEMORY", N_("the CUDA driver ran out of memory")),
    ("out of memory", N_("the device ran out of memory")),
)


def out_of_memory(exc: BaseException) -> str | None:
    """What ran out, in words (a ``Said``), when ``exc`` is TensorFlow running out of
    device memory in any of its forms; None for anything else."""
    import tensorflow as tf

    if not isinstance(exc, tf.errors.OpError):
        return None
    text = str(exc).lower()
    for marker, meaning in OOM_MESSAGES:
        if marker.lower() in text:
            return said(meaning)
    if isinstance(exc, tf.errors.ResourceExhaustedError):
        return said(N_("TensorFlow could not allocate memory"))
    return None


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
    shape = "x".join(map(str, dims)) or said(N_("scalar"))
    if size:
        return said(N_("a {shape} {dtype} tensor ({size} MiB)"), shape=shape, dtype=dtype,
                    size=f"{size / 2**20:,.0f}")
    return said(N_("a {shape} {dtype} tensor"), shape=shape, dtype=dtype)


def oom_reason(spec: RunSpec, replicas: int, params: int, what: str, message: str,
               peak: int | None) -> Said:
    """Why the attempt failed, for the user. ``what``: what ran out, in words
    (out_of_memory); ``message``: TensorFlow's own, which may name the allocation that
    failed. A ``Said``: the history keeps it as its message."""
    tried = failed_allocation(message)
    found = said(N_("it could not allocate {tensor}"), tensor=tried) if tried else what
    if peak:
        found = said(N_("{what} and {peak} MiB were in use at the peak"), what=found,
                     peak=f"{peak / 2**20:,.0f}")
    batch = (said(N_("{batch} per replica"), batch=spec.batch_size) if replicas > 1
             else str(spec.batch_size))
    return said(N_("out of memory at batch size {batch} ({params} parameters, {precision}; "
                   "{found}): lower the batch size, or use mixed precision to halve "
                   "activation memory"), batch=batch, params=f"{params:,}",
                precision=spec.precision, found=found)

def run_with_retries(spec: RunSpec, reporter: Reporter, enabled: bool,
                     attempt: Callable[[RunSpec, int], Any]) -> Any:
    """``attempt(spec, retries_so_far)`` runs once and returns a RunResult. A failed
    attempt is dropped and its memory released before the retry builds its model."""
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
            message=_("out of memory at batch size {batch}; trying again at batch size "
                      "{half} with learning rate {rate:.3g} (scaled linearly with the batch; "
                      "retries stop below batch {floor})").format(
                          batch=current.batch_size, half=half, rate=rate,
                          floor=spec.aids.min_batch_size)))
        current = current.replace(batch_size=half, learning_rate=rate)
        retries += 1
        release_device_memory([result])
        del result  # nor its initial weights
