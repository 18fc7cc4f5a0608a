"""Training with Keras ``fit``, reported through the shared RunMonitor.

Under the TensorFlow backend Keras converts each batch's logs to Python floats
after every step whatever the callbacks are (keras/src/backend/tensorflow/core.py:
``IS_THREAD_SAFE = False``, so callback_list.py never dispatches batch ends
asynchronously and calls ``pythonify_logs`` every batch): fit waits for the
device each step on its own. The monitor's batch-end hook therefore costs no
synchronisation fit did not already pay, and lets a Stop end the run before the
next batch. The monitor reads its fused state only when it samples.
"""

from __future__ import annotations

from collections.abc import Sequence

import keras

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.trainer.monitor import RunMonitor


class MonitorCallback(keras.callbacks.Callback):
    def __init__(self, monitor: RunMonitor):
        super().__init__()
        self.monitor = monitor
        self._step_pending = False  # a batch was dispatched and not yet counted

    def on_train_begin(self, logs=None):
        self.monitor.train_begin()

    def on_epoch_begin(self, epoch, logs=None):
        self.monitor.epoch_begin(epoch + 1)

    def on_train_batch_begin(self, batch, logs=None):
        self._count_pending_step()
        self.monitor.before_step()
        self._step_pending = True
        if self.monitor.next_step_is_last():
            self.model.stop_training = True  # fit breaks right after this batch

    def on_train_batch_end(self, batch, logs=None):
        # Keras checks stop_training right after this: a stop clicked during the batch
        # ends the run now, before the next batch starts (not one batch later).
        self.monitor.poll_stop()
        if self.monitor.stop_requested:
            self.model.stop_training = True

    def on_test_begin(self, logs=None):
        self._close_training_part()

    def on_test_batch_begin(self, batch, logs=None):
        self.monitor.poll_stop()
        if self.monitor.stop_requested:
            self.model.stop_evaluating = True  # a user stop skips the rest of validation

    def on_epoch_end(self, epoch, logs=None):
        self._close_training_part()
        logs = logs or {}
        stopped = self.monitor.stop_requested
        self.monitor.epoch_end(
            loss=logs.get("loss", float("nan")),
            accuracy=logs.get("accuracy", float("nan")),
            val_loss=None if stopped else logs.get("val_loss"),
            val_accuracy=None if stopped else logs.get("val_accuracy"),
        )
        if self.monitor.stop_before_next_step():  # a stop or divergence seen at epoch end
            self.model.stop_training = True

    def _count_pending_step(self) -> None:
        if self._step_pending:
            self._step_pending = False
            self.monitor.step_done()

    def _close_training_part(self) -> None:
        self._count_pending_step()
        self.monitor.train_epoch_end()


def run_fit(model: keras.Model, bundle: DataBundle, monitor: RunMonitor, epochs: int,
            callbacks: Sequence[keras.callbacks.Callback] = ()) -> None:
    """``callbacks``: more Keras callbacks, after the monitor's (a test injecting an
    error, a user's own)."""
    model.fit(
        bundle.train,
        validation_data=bundle.val,
        epochs=epochs,
        shuffle=False,  # the tf.data pipeline shuffles, from the run's seed
        verbose=0,
        callbacks=[MonitorCallback(monitor), *callbacks],
    )
