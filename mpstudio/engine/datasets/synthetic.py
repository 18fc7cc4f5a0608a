"""Synthetic data for pure compute throughput: one random batch, made once, repeated.

No decoding, shuffling or augmentation per step: the only input work left is
handing the same batch to the step (on a GPU, Keras prefetches it to the device
while the previous step runs), so the measured examples/s is what the model and
device can do, as in GPU benchmark suites.
"""

from __future__ import annotations

import tensorflow as tf

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import FewerExamplesThanBatch
from mpstudio.engine.datasets.synthetic_options import SyntheticOptions, synthetic_report
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec


def _random_batch(
    shape: tuple[int, ...], classes: int, batch_size: int, seed: int
) -> tuple[tf.Tensor, tf.Tensor]:
    x = tf.random.stateless_uniform((batch_size, *shape), seed=(seed, 1), dtype=tf.float32)
    y = tf.random.stateless_uniform(
        (batch_size,), seed=(seed, 2), maxval=classes, dtype=tf.int32
    )
    return x, y


def load_synthetic(spec: RunSpec, ctx: LoadContext, replicas: int = 1) -> DataBundle:
    opts = SyntheticOptions.from_dict(spec.dataset_options)
    batch = spec.batch_size * replicas
    if opts.samples < batch:
        raise FewerExamplesThanBatch(_(
            "synthetic samples ({samples}) are fewer than one batch of {batch}; raise the "
            "samples or lower the batch size").format(samples=opts.samples, batch=batch),
            opts.samples // replicas)
    steps = opts.samples // batch
    val_steps = round(steps * spec.validation_split)
    train = tf.data.Dataset.from_tensors(_random_batch(opts.shape, opts.classes, batch, spec.seed))
    train = train.repeat(steps).prefetch(tf.data.AUTOTUNE)
    val = None
    if val_steps:
        val_batch = _random_batch(opts.shape, opts.classes, batch, spec.seed + 1)
        val = tf.data.Dataset.from_tensors(val_batch).repeat(val_steps)
    return DataBundle(
        name="synthetic",
        train=train,
        val=val,
        input_shape=opts.shape,
        num_classes=opts.classes,
        class_names=tuple(str(c) for c in range(opts.classes)),
        train_examples=steps * batch,
        val_examples=val_steps * batch,
        batch_size=batch,
        steps_per_epoch=steps,
        value_range=(0.0, 1.0),
        report=synthetic_report(spec.dataset_options),
        distinct_examples=False,
    )
