"""The public datasets Keras users know: fetched once into the cache folder, then offline.

Each file is pinned by size and SHA-256 (values from the Keras loaders and the
TensorFlow Datasets checksum tables). CIFAR uses the binary release (no pickle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mpstudio.engine.datasets import public_readers as readers
from mpstudio.engine.datasets.cache_dir import datasets_dir
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.download import RemoteFile, fetch, local_copy
from mpstudio.engine.datasets.source_data import DIVIDE, Scaling, SourceData
from mpstudio.engine.i18n import N_, _

KERAS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
TORONTO_URL = "https://www.cs.toronto.edu/~kriz/"

Splits = tuple[readers.Split, readers.Split, tuple[str, ...]]


@dataclass(frozen=True)
class PublicDataset:
    name: str
    description: str
    files: tuple[RemoteFile, ...]
    read: Callable[[dict[str, Path], LoadContext], Splits]
    input_shape: tuple[int, ...]  # per example, known before the download (model previews)
    num_classes: int

    @property
    def download_size(self) -> int:
        return sum(f.size for f in self.files)

    def folder(self) -> Path:
        return datasets_dir() / self.name


def _read_mnist(paths: dict[str, Path], ctx: LoadContext) -> Splits:
    train, test = readers.read_mnist_npz(paths["mnist.npz"])
    return train, test, tuple(str(d) for d in range(10))


FASHION_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                   "Sneaker", "Bag", "Ankle boot")


def _read_fashion(paths: dict[str, Path], ctx: LoadContext) -> Splits:
    def split(prefix: str) -> readers.Split:
        return (readers.read_idx_gz(paths[f"{prefix}-images-idx3-ubyte.gz"]),
                readers.read_idx_gz(paths[f"{prefix}-labels-idx1-ubyte.gz"]))

    return split("train"), split("t10k"), FASHION_CLASSES


def _read_cifar10(paths: dict[str, Path], ctx: LoadContext) -> Splits:
    root = "cifar-10-batches-bin/"
    return readers.read_cifar_binary(
        paths["cifar-10-binary.tar.gz"],
        train_members=tuple(f"{root}data_batch_{i}.bin" for i in range(1, 6)),
        test_members=(f"{root}test_batch.bin",),
        names_member=f"{root}batches.meta.txt",
        label_bytes=1, label_index=0, ctx=ctx,
    )


def _read_cifar100(paths: dict[str, Path], ctx: LoadContext) -> Splits:
    root = "cifar-100-binary/"
    return readers.read_cifar_binary(
        paths["cifar-100-binary.tar.gz"],
        train_members=(f"{root}train.bin",),
        test_members=(f"{root}test.bin",),
        names_member=f"{root}fine_label_names.txt",
        label_bytes=2, label_index=1, ctx=ctx,  # coarse label, then the fine label we use
    )


def _fashion_file(name: str, size: int, sha256: str) -> RemoteFile:
    return RemoteFile(name, KERAS_URL + name, sha256, size, keras_name=f"fashion-mnist/{name}")


PUBLIC: dict[str, PublicDataset] = {
    d.name: d
    for d in (
        PublicDataset(
            "mnist",
            N_("MNIST handwritten digits: 70,000 28x28 grayscale images, 10 classes"),
            (RemoteFile("mnist.npz", KERAS_URL + "mnist.npz",
                        "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
                        11_490_434, keras_name="mnist.npz"),),
            _read_mnist,
            (28, 28, 1),
            10,
        ),
        PublicDataset(
            "fashion_mnist",
            N_("Fashion-MNIST clothing: 70,000 28x28 grayscale images, 10 classes"),
            (
                _fashion_file("train-labels-idx1-ubyte.gz", 29_515,
                    "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845"),
                _fashion_file("train-images-idx3-ubyte.gz", 26_421_880,
                    "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84"),
                _fashion_file("t10k-labels-idx1-ubyte.gz", 5_148,
                    "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5"),
                _fashion_file("t10k-images-idx3-ubyte.gz", 4_422_102,
                    "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073"),
            ),
            _read_fashion,
            (28, 28, 1),
            10,
        ),
        PublicDataset(
            "cifar10",
            N_("CIFAR-10: 60,000 32x32 color images, 10 classes"),
            (RemoteFile("cifar-10-binary.tar.gz", TORONTO_URL + "cifar-10-binary.tar.gz",
                        "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
                        170_052_171),),
            _read_cifar10,
            (32, 32, 3),
            10,
        ),
        PublicDataset(
            "cifar100",
            N_("CIFAR-100: 60,000 32x32 color images, 100 fine classes"),
            (RemoteFile("cifar-100-binary.tar.gz", TORONTO_URL + "cifar-100-binary.tar.gz",
                        "58a81ae192c23a4be8b1804d68e518ed807d710a4eb253b1f2a199162a40d8ec",
                        168_513_733),),
            _read_cifar100,
            (32, 32, 3),
            100,
        ),
    )
}


def cached_folders(name: str) -> list[Path] | None:
    """Where the files are when all are on disk with the right size (the checksum is
    checked when loading), else None."""
    dataset = PUBLIC[name]
    found = [local_copy(f, dataset.folder()) for f in dataset.files]
    if any(path is None for path in found):
        return None
    return sorted({path.parent for path in found if path is not None})


def read_public(name: str, options: dict, ctx: LoadContext) -> SourceData:
    dataset = PUBLIC[name]
    folder = dataset.folder()
    missing = tuple(f.name for f in dataset.files if local_copy(f, folder) is None)
    paths = {f.name: fetch(f, folder, ctx, missing) for f in dataset.files}
    (x_train, y_train), (x_test, y_test), class_names = dataset.read(paths, ctx)
    if x_train.ndim == 3:  # grayscale: give it the channel axis the conv templates expect
        x_train, x_test = x_train[..., np.newaxis], x_test[..., np.newaxis]
    where = sorted({str(p.parent) for p in paths.values()})
    return SourceData(
        name=name,
        origin=_("cached in {folders}").format(folders=", ".join(where)),
        kind="image",
        x_train=x_train,
        y_train=y_train.astype(np.int32),
        class_names=class_names,
        scaling=Scaling(DIVIDE, 255.0),
        x_test=x_test,
        y_test=y_test.astype(np.int32),
    )
