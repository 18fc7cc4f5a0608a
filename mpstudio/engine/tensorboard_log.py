"""A run's metrics as TensorBoard scalars, written by TensorFlow's own summary writer
(``tf.summary``; the ``tensorboard`` package is needed only to view them).

``TensorBoardReporter`` wraps another reporter: every event goes on to it unchanged,
and the numbers in it are written into event files as well. It only ever sees
Python floats, so it never waits for the device, and its writer ops run eagerly on
the CPU. Writing never fails a run: a disk that fills up or a folder that cannot be
written costs one warning, and logging stops there.

``read_scalars`` reads the event files back (the tests and ``mpstudio tensorboard
--print-scalars`` use it).
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from mpstudio.engine.events import (
    AidAction,
    EpochMetrics,
    Event,
    GradientUnderflow,
    PassingReporter,
    Reporter,
    RunFailed,
    RunFinished,
    RunWarning,
    StepMetrics,
)
from mpstudio.engine.i18n import _

LOGS_FOLDER = "tensorboard"  # inside a run's folder: runs/<id>/tensorboard
_UNSAFE = re.compile(r"[^-_/.A-Za-z0-9]")  # what tf.summary would silently drop from a tag

def _tag(name: str) -> str:
    return _UNSAFE.sub("_", name)


def scalars_of(event: Event) -> tuple[int, dict[str, float]] | None:
    """The step and the scalars ``event`` puts into TensorBoard; None: nothing."""
    if isinstance(event, StepMetrics):
        values = {"train/loss": event.loss, "train/accuracy": event.accuracy,
                  "throughput/step_time_ms": event.step_time * 1000.0,
                  "loss_scale/overflow_steps": float(event.overflow_steps)}
        if event.loss_scale is not None:
            values["loss_scale"] = event.loss_scale
        if event.examples_per_sec is not None:
            values["throughput/examples_per_sec"] = event.examples_per_sec
        return event.step, values
    if isinstance(event, EpochMetrics):
        values = {"epoch/loss": event.loss, "epoch/accuracy": event.accuracy}
        if event.val_loss is not None:
            values["epoch/val_loss"] = event.val_loss
        if event.val_accuracy is not None:
            values["epoch/val_accuracy"] = event.val_accuracy
        return event.steps, values
    if isinstance(event, AidAction) and event.aid == "reduce_lr" and event.value is not None:
        return event.step, {"learning_rate": event.value}
    if isinstance(event, GradientUnderflow):
        values = {"underflow/unscaled": event.unscaled, "underflow/scaled": event.scaled}
        for layer in event.layers:
            values[_tag(f"underflow_layers/{layer.layer}/unscaled")] = layer.unscaled
            values[_tag(f"underflow_layers/{layer.layer}/scaled")] = layer.scaled
        return event.step, values
    return None


class TensorBoardReporter(PassingReporter):
    """Passes every event on to ``inner`` and writes its scalars under ``logdir``
    (created, with its writer, at the first scalar)."""

    def __init__(self, inner: Reporter, logdir: Path) -> None:
        super().__init__(inner)
        self.logdir = Path(logdir)
        self.failed: str | None = None  # why logging stopped, once it has
        self._writer: Any = None

    def emit(self, event: Event) -> None:
        self.inner.emit(event)
        if self.failed is not None:
            return
        try:
            self._write(event)
        except Exception as exc:  # logs are never worth a run: see _is_write_error
            if not _is_write_error(exc):
                raise
            self._give_up(exc)

    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except Exception as exc:
                if not _is_write_error(exc):
                    raise
                self._give_up(exc)

    # ------------------------------------------------------------ writing
    def _write(self, event: Event) -> None:
        found = scalars_of(event)
        if found is not None:
            import tensorflow as tf

            step, values = found
            with tf.device("/CPU:0"), self._open().as_default(step=step):
                for name, value in values.items():
                    tf.summary.scalar(name, float(value))
        if self._writer is not None and isinstance(event, (EpochMetrics, RunFinished,
                                                           RunFailed)):
            self._writer.flush()

    def _open(self) -> Any:
        if self._writer is None:
            import tensorflow as tf

            self.logdir.mkdir(parents=True, exist_ok=True)  # a clear OSError when it cannot
            with tf.device("/CPU:0"):
                self._writer = tf.summary.create_file_writer(str(self.logdir))
        return self._writer

    def _give_up(self, exc: BaseException) -> None:
        if self.failed is not None:
            return
        self.failed = _("TensorBoard logs stopped ({folder}): {error}").format(
            folder=self.logdir, error=_describe(exc))
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):  # it already failed; the warning says so
                writer.close()
        self.inner.emit(RunWarning(self.failed))


def _is_write_error(exc: BaseException) -> bool:
    """A file-system failure: OSError, or TensorFlow's own errors for the same causes
    (its writer reports a full disk or a denied folder as an ``OpError``)."""
    if isinstance(exc, OSError):
        return True
    import sys

    tf = sys.modules.get("tensorflow")
    return tf is not None and isinstance(exc, tf.errors.OpError)


def _describe(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return " ".join(str(message).split())


# ---------------------------------------------------------------- reading
def event_files(logdir: Path) -> list[Path]:
    """The event files under ``logdir`` (its subfolders too), oldest name first."""
    logdir = Path(logdir)
    if not logdir.is_dir():
        return []
    return sorted(p for p in logdir.rglob("events.out.tfevents.*") if p.is_file())


def read_scalars(logdir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar written under ``logdir``: tag -> [(step, value)] in step order.
    Tags from a subfolder are prefixed with its path ("train/loss" in ``sub/`` reads
    as "sub/train/loss"). A file cut short (a killed run) yields what it holds."""
    import tensorflow as tf
    from tensorflow.core.util import event_pb2

    logdir = Path(logdir)
    scalars: dict[str, list[tuple[int, float]]] = {}
    for path in event_files(logdir):
        parent = path.parent.relative_to(logdir).as_posix()
        prefix = "" if parent == "." else parent + "/"
        try:
            for raw in tf.data.TFRecordDataset(str(path)):
                record = event_pb2.Event.FromString(raw.numpy())
                for value in record.summary.value:
                    number = _value_of(tf, value)
                    if number is not None:
                        scalars.setdefault(prefix + value.tag, []).append((record.step, number))
        except tf.errors.DataLossError:
            continue  # a truncated last record: keep what came before it
    for points in scalars.values():
        points.sort(key=lambda point: point[0])
    return scalars


def _value_of(tf: Any, value: Any) -> float | None:
    if value.HasField("tensor"):  # TF2 summaries store scalars as tensors
        array = tf.make_ndarray(value.tensor)
        if array.size != 1 or array.dtype.kind not in "fiub":
            return None
        return float(array.reshape(-1)[0])
    if value.HasField("simple_value"):  # TF1 style
        return float(value.simple_value)
    return None
