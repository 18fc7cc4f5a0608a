"""Built-in datasets: the bundled digits (checksummed, split from the seed) and synthetic."""

from __future__ import annotations

import hashlib
import re
from importlib import resources

import numpy as np
import pytest

from mpstudio.engine.datasets import load_dataset
from mpstudio.engine.datasets.digits import read_digits
from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.datasets.pipeline import stratified_split
from mpstudio.engine.spec import DataOptions, RunSpec


def test_bundled_digits_match_their_recorded_checksum():
    folder = resources.files("mpstudio.resources").joinpath("datasets")
    data = folder.joinpath("digits.npz").read_bytes()
    recorded = re.search(r"SHA-256 of digits.npz: ([0-9a-f]{64})",
                         folder.joinpath("DIGITS.md").read_text())
    assert recorded and hashlib.sha256(data).hexdigest() == recorded.group(1)


def test_digits_are_the_real_uci_set():
    x, y = read_digits()
    assert x.shape == (1797, 8, 8, 1) and x.dtype == np.uint8  # the model scales them
    assert x.min() == 0 and x.max() == 16
    counts = np.bincount(y)
    assert len(counts) == 10 and counts.min() >= 170  # about 180 per class


def test_split_is_stratified_and_fixed_by_the_seed():
    _, y = read_digits()
    train, val = stratified_split(y, 0.2, seed=3)
    again_train, again_val = stratified_split(y, 0.2, seed=3)
    other_train, _ = stratified_split(y, 0.2, seed=4)
    assert np.array_equal(train, again_train) and np.array_equal(val, again_val)
    assert not np.array_equal(train, other_train)
    assert set(train).isdisjoint(val) and len(train) + len(val) == len(y)
    val_share = np.bincount(y[val], minlength=10) / np.bincount(y, minlength=10)
    assert np.all(np.abs(val_share - 0.2) < 0.02)


def test_digits_bundle_shapes_and_full_batches():
    bundle = load_dataset(RunSpec(batch_size=100, validation_split=0.25))
    assert bundle.input_shape == (8, 8, 1) and bundle.num_classes == 10
    assert bundle.train_examples + bundle.val_examples == 1797
    assert bundle.steps_per_epoch == bundle.train_examples // 100
    sizes = [int(x.shape[0]) for x, _ in bundle.train]
    assert sizes == [100] * bundle.steps_per_epoch  # the partial batch is dropped
    assert sum(int(x.shape[0]) for x, _ in bundle.val) == bundle.val_examples
    assert "digits: " in bundle.summary() and "10 classes" in bundle.summary()
    # uint8 to the device, prefetched after the batch; the model divides by 16
    x, _ = next(iter(bundle.train))
    assert x.dtype.name == "uint8" and int(np.max(x)) == 16
    assert bundle.train.element_spec[0].dtype.name == "uint8"
    assert bundle.val.element_spec[0].dtype.name == "uint8"
    assert type(bundle.train).__name__ == "_PrefetchDataset"
    assert bundle.input_dtype == "uint8" and bundle.input_scale == 1 / 16
    assert bundle.value_range == (0.0, 1.0)  # what the model computes on, after its scaling
    assert "values 0..1" in bundle.summary()


def _label_order(spec: RunSpec, epochs: int = 2) -> list[int]:
    bundle = load_dataset(spec)
    order: list[int] = []
    for _ in range(epochs):
        order += [int(v) for _, y in bundle.train for v in y.numpy()]
    return order


def test_same_seed_gives_the_same_data_order_every_epoch():
    import keras

    spec = RunSpec(batch_size=128, seed=11)
    keras.utils.set_random_seed(spec.seed)
    first = _label_order(spec)
    keras.utils.set_random_seed(spec.seed)
    second = _label_order(spec)
    assert first == second
    per_epoch = len(first) // 2
    assert first[:per_epoch] != first[per_epoch:]  # reshuffled between epochs


def test_no_shuffle_keeps_the_split_order():
    spec = RunSpec(batch_size=128, data=DataOptions(shuffle_buffer=0))
    assert _label_order(spec, 1) == _label_order(spec, 1)


def test_synthetic_bundle():
    spec = RunSpec(
        dataset="synthetic",
        batch_size=16,
        validation_split=0.25,
        dataset_options={"shape": [12, 10, 3], "classes": 7, "samples": 160},
    )
    bundle = load_dataset(spec)
    assert bundle.input_shape == (12, 10, 3) and bundle.num_classes == 7
    assert bundle.steps_per_epoch == 10
    batches = list(bundle.train)
    assert len(batches) == 10
    x, y = batches[0]
    assert x.shape == (16, 12, 10, 3) and x.dtype.name == "float32"
    assert bundle.input_dtype == "float32" and bundle.input_scale is None
    assert int(np.min(y)) >= 0 and int(np.max(y)) < 7
    assert np.array_equal(batches[0][0].numpy(), batches[-1][0].numpy())  # one batch repeated
    assert bundle.val is not None and len(list(bundle.val)) == 2


def test_batch_larger_than_the_data_is_refused():
    with pytest.raises(DataError, match="fewer than one batch of 4,096"):
        load_dataset(RunSpec(batch_size=4096))
