"""The tf.data pipeline every in-memory source shares: split, cache, shuffle, batch,
transform, prefetch.

uint8 images stay uint8 all the way to the device: the model's first layer scales
them (DataBundle.input_scale), so a batch crosses to a GPU in a quarter of float32's
bytes. Other inputs (standardized features, float arrays) are transformed here,
per batch after the cache, and reach the model as float32.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import tensorflow as tf

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.errors import FewerExamplesThanBatch
from mpstudio.engine.datasets.source_data import DIVIDE, STANDARDIZE, Scaling, SourceData
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import DataOptions

Transform = Callable[[tf.Tensor], tf.Tensor]


def stratified_split(
    labels: np.ndarray, validation_split: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of a train/validation split that keeps class proportions, fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    train, val = [], []
    for cls in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == cls))
        n_val = round(len(idx) * validation_split)
        val.append(idx[:n_val])
        train.append(idx[n_val:])
    # Interleave classes: a permutation of the concatenation, again from the seed.
    train_idx = rng.permutation(np.concatenate(train))
    val_idx = rng.permutation(np.concatenate(val)) if val else np.array([], dtype=np.int64)
    return train_idx, val_idx


def scaling_transform(scaling: Scaling, x_train: np.ndarray) -> tuple[Transform, float, float]:
    """(stored values -> float32 model inputs, and the inputs' min and max on ``x_train``).

    Standardization statistics come from ``x_train`` only: the training split, so the
    validation data does not leak into the model's inputs.
    """
    lo, hi = float(x_train.min()), float(x_train.max())
    if scaling.mode == DIVIDE:
        factor = np.float32(1.0 / scaling.divisor)
        return (lambda x: tf.cast(x, tf.float32) * factor), lo * factor, hi * factor
    if scaling.mode == STANDARDIZE:
        axes = tuple(range(x_train.ndim - 1)) if scaling.per_feature else None
        mean = x_train.mean(axis=axes, dtype=np.float64)
        std = x_train.std(axis=axes, dtype=np.float64)
        std = np.where(std > 0, std, 1.0)  # a constant feature stays 0, not NaN
        mean32, inv32 = mean.astype(np.float32), (1.0 / std).astype(np.float32)
        scaled = (x_train - mean32) * inv32
        return (
            (lambda x: (tf.cast(x, tf.float32) - mean32) * inv32),
            float(scaled.min()),
            float(scaled.max()),
        )
    return (lambda x: tf.cast(x, tf.float32)), lo, hi


def make_dataset(
    x: np.ndarray,
    y: np.ndarray,
    batch_size: int,
    options: DataOptions,
    seed: int,
    training: bool,
    transform: Transform | None = None,
) -> tf.data.Dataset:
    """Batched (x, y) pipeline. Training batches are full (fixed shapes: no retracing,
    XLA-friendly); the shuffle order is fixed by ``seed`` and differs each epoch."""
    ds = tf.data.Dataset.from_tensor_slices((x, y.astype(np.int32)))
    if options.cache:
        ds = ds.cache()
    if training and options.shuffle_buffer > 0:
        ds = ds.shuffle(
            min(options.shuffle_buffer, len(x)), seed=seed, reshuffle_each_iteration=True
        )
    ds = ds.batch(batch_size, drop_remainder=training)
    if transform is not None:
        ds = ds.map(lambda xb, yb: (transform(xb), yb), num_parallel_calls=tf.data.AUTOTUNE)
    if options.prefetch:
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return ds


def bundle_from_source(
    data: SourceData,
    batch_size: int,
    validation_split: float,
    seed: int,
    options: DataOptions,
    replicas: int = 1,
) -> DataBundle:
    """Split the source's training data from the seed and wrap it as pipelines.

    ``batch_size`` is per replica, as in Keras: a distribution strategy with
    ``replicas`` replicas takes global batches of ``batch_size * replicas``.
    """
    global_batch = batch_size * replicas
    train_idx, val_idx = stratified_split(data.y_train, validation_split, seed)
    if len(train_idx) < global_batch:
        raise FewerExamplesThanBatch(_(
            "dataset {name!r} has {examples:,} training examples after the validation split, "
            "fewer than one batch of {batch:,}; lower the batch size").format(
                name=data.name, examples=len(train_idx), batch=global_batch),
            len(train_idx) // replicas)
    x_train = data.x_train[train_idx]
    transform: Transform | None
    transform, lo, hi = scaling_transform(data.scaling, x_train)  # lo, hi: after scaling
    input_scale = data.in_model_scale()
    if input_scale is not None:
        transform = None  # the model scales the uint8 batches itself, on the device

    def pipeline(x: np.ndarray, y: np.ndarray, training: bool) -> tf.data.Dataset:
        return make_dataset(x, y, global_batch, options, seed, training, transform)

    val = None
    if len(val_idx):
        val = pipeline(data.x_train[val_idx], data.y_train[val_idx], training=False)
    test, test_examples = None, 0
    if data.x_test is not None and data.y_test is not None and len(data.x_test):
        test = pipeline(data.x_test, data.y_test, training=False)
        test_examples = len(data.x_test)
    return DataBundle(
        name=data.name,
        train=pipeline(x_train, data.y_train[train_idx], training=True),
        val=val,
        input_shape=data.input_shape,
        num_classes=len(data.class_names),
        class_names=data.class_names,
        train_examples=len(train_idx),
        val_examples=len(val_idx),
        batch_size=global_batch,
        steps_per_epoch=len(train_idx) // global_batch,
        value_range=(float(lo), float(hi)),
        report=data.report(),
        test=test,
        test_examples=test_examples,
        input_scale=input_scale,
    )
