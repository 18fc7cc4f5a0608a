"""A custom training loop: ``tf.function`` step with GradientTape, ``scale_loss`` and
``apply``, the Keras 3 pattern for users who write their own loop.

``optimizer.scale_loss`` multiplies by the current scale (dynamic or fixed, or
does nothing); ``optimizer.apply`` unscales, and a LossScaleOptimizer skips the
step and halves the scale when a gradient is not finite.
"""

from __future__ import annotations

import keras
import tensorflow as tf

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.trainer.monitor import RunMonitor


class CustomLoop:
    def __init__(self, model: keras.Model, optimizer: keras.Optimizer, jit_compile: bool):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy()
        self.loss = keras.metrics.Mean(name="loss")
        self.accuracy = keras.metrics.SparseCategoricalAccuracy(name="accuracy")
        self.val_loss = keras.metrics.Mean(name="val_loss")
        self.val_accuracy = keras.metrics.SparseCategoricalAccuracy(name="val_accuracy")
        # As in Keras fit: the step on a batch may be XLA-compiled; fetching the batch
        # (IteratorGetNext, not XLA-compilable) happens in an outer graph, so no Python
        # runs per batch.
        train_on_batch = tf.function(self._train_on_batch, jit_compile=jit_compile)
        eval_on_batch = tf.function(self._eval_on_batch, jit_compile=jit_compile)
        self.train_step = tf.function(lambda batches: train_on_batch(*next(batches)))
        self.eval_step = tf.function(lambda batches: eval_on_batch(*next(batches)))

    def _train_on_batch(self, x, y):
        variables = self.model.trainable_variables
        with tf.GradientTape() as tape:
            probabilities = self.model(x, training=True)
            loss = self.loss_fn(y, probabilities)
            if self.model.losses:
                loss = loss + tf.add_n(self.model.losses)
            scaled = self.optimizer.scale_loss(loss)
        self.optimizer.apply(tape.gradient(scaled, variables), variables)
        self.loss.update_state(loss)
        self.accuracy.update_state(y, probabilities)

    def _eval_on_batch(self, x, y):
        probabilities = self.model(x, training=False)
        self.val_loss.update_state(self.loss_fn(y, probabilities))
        self.val_accuracy.update_state(y, probabilities)

    def running_means(self) -> tuple[tf.Tensor, tf.Tensor]:
        return self.loss.result(), self.accuracy.result()

    def run(self, bundle: DataBundle, monitor: RunMonitor, epochs: int) -> None:
        monitor.train_begin()
        for epoch in range(1, epochs + 1):
            if monitor.stop_before_next_step():
                break
            self.loss.reset_state()
            self.accuracy.reset_state()
            monitor.epoch_begin(epoch)
            batches = iter(bundle.train)
            for _ in range(bundle.steps_per_epoch):  # exact: training batches are all full
                if monitor.stop_before_next_step():
                    break
                self.train_step(batches)
                monitor.step_done()
            monitor.train_epoch_end()
            val_loss, val_accuracy = self.validate(bundle, monitor)
            loss, accuracy = (float(t) for t in self.running_means())
            monitor.epoch_end(loss, accuracy, val_loss, val_accuracy)

    def validate(self, bundle: DataBundle, monitor: RunMonitor) -> tuple[float | None, ...]:
        """Validation loss and accuracy, or None for both when a user stop cuts it short."""
        if bundle.val is None:
            return None, None
        self.val_loss.reset_state()
        self.val_accuracy.reset_state()
        batches = iter(bundle.val)
        while True:
            monitor.poll_stop()
            if monitor.stop_requested:
                return None, None
            try:
                self.eval_step(batches)
            except tf.errors.OutOfRangeError:  # the last batch may be partial: no fixed count
                break
        return float(self.val_loss.result()), float(self.val_accuracy.result())
