"""A custom training loop: ``tf.function`` step with GradientTape, ``scale_loss`` and
``apply``, the Keras 3 pattern for users who write their own loop.

``optimizer.scale_loss`` multiplies by the current scale (dynamic or fixed, or
does nothing); ``optimizer.apply`` unscales, and a LossScaleOptimizer skips the
step and halves the scale when a gradient is not finite.

Under a ``tf.distribute`` strategy each replica's loss is its share of the global
batch's mean (``compute_average_loss``), gradients are summed across replicas by
``apply``, and the metrics (created in the strategy's scope) sum over replicas
when read. Build the loop inside ``strategy.scope()``.
"""

from __future__ import annotations

import keras
import tensorflow as tf

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.trainer.monitor import RunMonitor


def _shard_by_data(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """In-memory data has no files to split: every worker reads the whole pipeline
    (same seed, same order) and keeps its own part of each global batch."""
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return dataset.with_options(options)


class CustomLoop:
    def __init__(self, model: keras.Model, optimizer: keras.Optimizer, jit_compile: bool,
                 strategy: tf.distribute.Strategy | None = None, global_batch: int = 0):
        self.model = model
        self.optimizer = optimizer
        self.strategy = strategy
        self.global_batch = global_batch
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(
            reduction=None if strategy else "sum_over_batch_size")
        self.loss = keras.metrics.Mean(name="loss")
        self.accuracy = keras.metrics.SparseCategoricalAccuracy(name="accuracy")
        self.val_loss = keras.metrics.Mean(name="val_loss")
        self.val_accuracy = keras.metrics.SparseCategoricalAccuracy(name="val_accuracy")
        # As in Keras fit: the step on a batch may be XLA-compiled; fetching the batch
        # (IteratorGetNext, not XLA-compilable) happens in an outer graph, so no Python
        # runs per batch.
        if strategy is not None:  # no XLA under a strategy (jit_compile is off)
            self.train_step = tf.function(lambda batches: strategy.run(
                self._replica_train_step, args=next(batches)))
            self.eval_batch = tf.function(lambda batch: strategy.run(
                self._eval_on_batch, args=batch))
            return
        train_on_batch = tf.function(self._train_on_batch, jit_compile=jit_compile)
        eval_on_batch = tf.function(self._eval_on_batch, jit_compile=jit_compile)
        self.train_step = tf.function(lambda batches: train_on_batch(*next(batches)))
        self.eval_step = tf.function(lambda batches: eval_on_batch(*next(batches)))

    def _replica_train_step(self, x, y):
        variables = self.model.trainable_variables
        with tf.GradientTape() as tape:
            probabilities = self.model(x, training=True)
            per_example = self.loss_fn(y, probabilities)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=self.global_batch)
            if self.model.losses:
                loss = loss + tf.nn.scale_regularization_loss(tf.add_n(self.model.losses))
            scaled = self.optimizer.scale_loss(loss)
        self.optimizer.apply(tape.gradient(scaled, variables), variables)  # sums replicas
        self.loss.update_state(per_example)  # a mean over every example of every replica
        self.accuracy.update_state(y, probabilities)

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

    def batches(self, dataset: tf.data.Dataset):
        """An epoch's batches: the dataset itself, or distributed over the replicas."""
        if self.strategy is None:
            return iter(dataset)
        return iter(self.strategy.experimental_distribute_dataset(_shard_by_data(dataset)))

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
            batches = self.batches(bundle.train)
            for _ in range(bundle.steps_per_epoch):  # exact: training batches are all full
                if monitor.stop_before_next_step():
                    break
                monitor.before_step()
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
        return self.evaluate(bundle.val, monitor)

    def evaluate(self, dataset: tf.data.Dataset,
                 monitor: RunMonitor | None = None) -> tuple[float | None, ...]:
        """Mean loss and accuracy over ``dataset`` (None, None when a stop cuts it short)."""
        self.val_loss.reset_state()
        self.val_accuracy.reset_state()
        if self.strategy is not None:
            # A Python loop over the distributed dataset: every worker agrees on the last
            # (partial) batch, so no worker waits in a collective for a batch that never comes.
            for batch in self.batches(dataset):
                self.eval_batch(batch)
            return float(self.val_loss.result()), float(self.val_accuracy.result())
        batches = iter(dataset)
        while True:
            if monitor is None:
                try:
                    self.eval_step(batches)
                except tf.errors.OutOfRangeError:
                    break
                continue
            monitor.poll_stop()
            if monitor.stop_requested:
                return None, None
            try:
                self.eval_step(batches)
            except tf.errors.OutOfRangeError:  # the last batch may be partial: no fixed count
                break
        return float(self.val_loss.result()), float(self.val_accuracy.result())
