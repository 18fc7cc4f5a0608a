"""Out of memory as a GPU reports it, and the memory a retry or the next trial gets back.

Each message family is injected as the error TensorFlow raises on a GPU (same class,
same text) from the first training batch above a batch-size limit; the runs are real.
Whether an earlier run's model is still alive is read from the garbage collector."""

from __future__ import annotations

import gc
import weakref

import keras
import pytest
import tensorflow as tf

from mpstudio.engine.events import (
    CollectingReporter,
    OomRetry,
    RunFailed,
    RunStarted,
)
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.run_models import model_file
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare import compare
from mpstudio.engine.trainer.oom_retry import out_of_memory
from mpstudio.engine.trainer.runner import run

OOM_ON_A_GPU = [  # (error class, the message TensorFlow gives, what mpstudio says ran out)
    (tf.errors.ResourceExhaustedError,
     "OOM when allocating tensor with shape[64,1024] and type float on "
     "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
     "it could not allocate a 64x1024 float tensor"),
    (tf.errors.ResourceExhaustedError,
     "Out of memory while trying to allocate 4294967296 bytes.", "XLA could not allocate"),
    (tf.errors.InternalError,  # tensorflow/tensorflow#7025: a batch copied to the GPU
     "Dst tensor is not initialized. [[{{node IteratorGetNext}}]]",
     "a tensor could not be copied to the GPU"),
    (tf.errors.InternalError,
     "Blas GEMM launch failed : a.shape=(64, 64), b.shape=(64, 1024), m=64, n=1024, k=64 "
     "[Op:MatMul]", "cuBLAS could not launch a matrix multiply"),
    (tf.errors.InternalError,
     "Attempting to perform BLAS operation using StreamExecutor without BLAS support "
     "[Op:MatMul]", "cuBLAS could not start"),
    (tf.errors.InternalError, "failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED",
     "cuBLAS could not allocate its workspace"),
    (tf.errors.UnknownError,
     "Failed to get convolution algorithm. This is probably because cuDNN failed to "
     "initialize, so try looking to see if a warning log message was printed above. "
     "[Op:Conv2D]", "cuDNN could not start a convolution"),
    (tf.errors.InternalError, "CUDA_ERROR_OUT_OF_MEMORY: out of memory",
     "the CUDA driver ran out of memory"),
]


class RunsOutOfMemory(keras.callbacks.Callback):
    """Raises TensorFlow's ``kind`` error with ``message`` (a new one each time, as
    TensorFlow does) on the first training batch when the batch is above ``limit``."""

    def __init__(self, batch_size: int, limit: int, kind: type, message: str):
        super().__init__()
        self.batch_size, self.limit, self.kind, self.message = batch_size, limit, kind, message

    def on_train_batch_begin(self, batch, logs=None):
        if self.batch_size > self.limit:
            raise self.kind(None, None, self.message)


@pytest.mark.parametrize(("kind", "message", "said"), OOM_ON_A_GPU,
                         ids=[m[:24] for _, m, _ in OOM_ON_A_GPU])
def test_every_out_of_memory_family_retries_at_half_the_batch(kind, message, said):
    reporter = CollectingReporter()
    spec = RunSpec(batch_size=64, steps=2, log_every_steps=1)
    result = run(spec, reporter,
                 callbacks=lambda s: [RunsOutOfMemory(s.batch_size, 32, kind, message)])
    (failed,) = reporter.of_type(RunFailed)
    assert failed.kind == "out_of_memory"
    assert "out of memory at batch size 64" in failed.reason and said in failed.reason
    assert [(r.failed_batch_size, r.batch_size) for r in reporter.of_type(OomRetry)] == [(64, 32)]
    assert result.ok and result.spec.batch_size == 32


def test_other_gpu_errors_are_not_out_of_memory():
    for kind, message in ((tf.errors.InternalError, "DNN library is not found."),
                          (tf.errors.InvalidArgumentError, "Incompatible shapes: [64,10] vs [32]"),
                          (tf.errors.UnknownError, "JIT compilation failed.")):
        assert out_of_memory(kind(None, None, message)) is None, message
    reporter = CollectingReporter()
    result = run(RunSpec(batch_size=64, steps=2), reporter, callbacks=lambda s: [
        RunsOutOfMemory(s.batch_size, 32, tf.errors.InternalError, "DNN library is not found.")])
    assert result.failure is not None and result.failure.kind == "error"
    assert "DNN library is not found" in result.failure.reason
    assert reporter.of_type(OomRetry) == []
    assert out_of_memory(ValueError("out of memory")) is None  # only TensorFlow's errors


class WatchesItsModel(keras.callbacks.Callback):
    def __init__(self, models: list[weakref.ref]):
        super().__init__()
        self.models = models

    def set_model(self, model):
        super().set_model(model)
        self.models.append(weakref.ref(model))


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_a_retry_builds_after_the_failed_attempt_is_gone(loop):
    """Keeping the failed attempt (its model, optimizer slots, traced steps) while the
    retry builds would put the retry into the memory that just ran out."""
    models: list[weakref.ref] = []
    alive_when_building: list[bool] = []

    def callbacks(spec: RunSpec):  # called as each attempt starts, before it builds
        alive_when_building.append(any(m() is not None for m in models))
        return [RunsOutOfMemory(spec.batch_size, 16, *OOM_ON_A_GPU[0][:2]),
                WatchesItsModel(models)]

    result = run(RunSpec(batch_size=64, steps=2, loop=loop), CollectingReporter(),
                 callbacks=callbacks)
    assert result.ok and result.retried == 2
    assert alive_when_building == [False, False, False]
    assert len(models) == 3 and models[-1]() is result.model


def _new_models(before: set[int]) -> list[keras.Model]:
    return [o for o in gc.get_objects() if isinstance(o, keras.Model) and id(o) not in before]


def test_each_trial_of_a_comparison_builds_alone_and_every_model_is_kept():
    before = {id(o) for o in gc.get_objects() if isinstance(o, keras.Model)}
    alive_at_start: list[int] = []

    class Counting(RecordingReporter):
        def emit(self, event):
            if isinstance(event, RunStarted):  # the run's own model is built by now
                alive_at_start.append(len(_new_models(before)))
            super().emit(event)

    recorder = Counting(CollectingReporter())
    spec = RunSpec(precision="mixed_float16", batch_size=64, steps=2, log_every_steps=1)
    result = compare(spec, recorder, repeats=2, keep=recorder.keep_model)
    recorder.close()
    assert alive_at_start == [1, 1, 1, 1]  # the old code had 1, 2, 3, 4 alive
    runs = result.results
    assert [r.model is None for r in runs] == [True, True, True, False]  # the last stays
    assert all(model_file(run_id) is not None for run_id in recorder.run_ids)
    assert result.mixed is not None and result.mixed.summary.status == "finished"
