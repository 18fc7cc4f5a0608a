"""The tf.data pipeline every in-memory source shares: split, cache, shuffle, batch, prefetch."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.spec import DataOptions


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


def make_dataset(
    x: np.ndarray,
    y: np.ndarray,
    batch_size: int,
    options: DataOptions,
    seed: int,
    training: bool,
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
    if options.prefetch:
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return ds


def bundle_from_arrays(
    name: str,
    x: np.ndarray,
    y: np.ndarray,
    class_names: tuple[str, ...],
    batch_size: int,
    validation_split: float,
    seed: int,
    options: DataOptions,
) -> DataBundle:
    """Split in-memory arrays from the seed and wrap them as train/validation pipelines."""
    train_idx, val_idx = stratified_split(y, validation_split, seed)
    if len(train_idx) < batch_size:
        raise ValueError(
            f"dataset {name!r} has {len(train_idx)} training examples after the validation "
            f"split, fewer than one batch of {batch_size}; lower the batch size"
        )
    train = make_dataset(x[train_idx], y[train_idx], batch_size, options, seed, training=True)
    val = None
    if len(val_idx):
        val = make_dataset(x[val_idx], y[val_idx], batch_size, options, seed, training=False)
    return DataBundle(
        name=name,
        train=train,
        val=val,
        input_shape=tuple(int(n) for n in x.shape[1:]),
        num_classes=len(class_names),
        class_names=class_names,
        train_examples=len(train_idx),
        val_examples=len(val_idx),
        batch_size=batch_size,
        steps_per_epoch=len(train_idx) // batch_size,
        value_range=(float(x.min()), float(x.max())),
    )
