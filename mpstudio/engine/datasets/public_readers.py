"""Readers of the public datasets' published file formats. No pickle anywhere.

CIFAR comes from its *binary* release (fixed-size records), not the Python
release, whose batches are pickles: a data file must never run code.
"""

from __future__ import annotations

import gzip
import tarfile
from pathlib import Path

import numpy as np

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.i18n import _

Split = tuple[np.ndarray, np.ndarray]  # (images uint8 NHW[C], labels)

IDX_IMAGES, IDX_LABELS = 2051, 2049  # magic numbers of the IDX format (MNIST family)
CIFAR_PIXELS = 32 * 32 * 3


def read_mnist_npz(path: Path) -> tuple[Split, Split]:
    try:
        with np.load(path, allow_pickle=False) as data:
            return (data["x_train"], data["y_train"]), (data["x_test"], data["y_test"])
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(_("{path} is not a readable MNIST .npz file ({error})").format(
            path=path, error=exc)) from None


def read_idx_gz(path: Path) -> np.ndarray:
    """An IDX file (gzip-compressed): images (N, rows, cols) or labels (N,), uint8."""
    try:
        with gzip.open(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError) as exc:
        raise DataError(_("{path} is not a readable gzip file ({error})").format(
            path=path, error=exc)) from None
    magic = int.from_bytes(raw[:4], "big")
    count = int.from_bytes(raw[4:8], "big")
    shape: tuple[int, ...]
    if magic == IDX_LABELS:
        shape, offset = (count,), 8
    elif magic == IDX_IMAGES:
        rows, cols = int.from_bytes(raw[8:12], "big"), int.from_bytes(raw[12:16], "big")
        shape, offset = (count, rows, cols), 16
    else:
        raise DataError(_("{path} is not an IDX image or label file (magic number "
                          "{magic})").format(path=path, magic=magic))
    expected = offset + int(np.prod(shape))
    if len(raw) != expected:
        raise DataError(_("{path} holds {size:,} bytes, its header says {expected:,}").format(
            path=path, size=len(raw), expected=expected))
    return np.frombuffer(raw, dtype=np.uint8, offset=offset).reshape(shape)


def _records(raw: bytes, label_bytes: int, label_index: int, where: str) -> Split:
    size = label_bytes + CIFAR_PIXELS
    if len(raw) % size:
        raise DataError(_("{where} is not a whole number of {size}-byte CIFAR "
                          "records").format(where=where, size=size))
    records = np.frombuffer(raw, dtype=np.uint8).reshape(-1, size)
    images = records[:, label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), records[:, label_index].copy()


def read_cifar_binary(
    path: Path,
    train_members: tuple[str, ...],
    test_members: tuple[str, ...],
    names_member: str,
    label_bytes: int,
    label_index: int,
    ctx: LoadContext,
) -> tuple[Split, Split, tuple[str, ...]]:
    """CIFAR-10/100 binary release: records of label byte(s) then 3072 pixels (CHW)."""
    wanted = {*train_members, *test_members, names_member}
    found: dict[str, bytes] = {}
    try:
        with tarfile.open(path, "r|gz") as tar:  # one streaming pass: gzip has no seeking
            for member in tar:
                if member.name in wanted and member.isfile():
                    data = tar.extractfile(member)  # bytes in memory; nothing is written
                    found[member.name] = data.read() if data else b""
                    ctx.progress(_("reading {file}").format(file=path.name), len(found),
                                 len(wanted))
                    ctx.check_stop()
    except (OSError, EOFError, tarfile.TarError) as exc:
        raise DataError(_("{path} is not a readable .tar.gz file ({error})").format(
            path=path, error=exc)) from None
    absent = sorted(wanted - found.keys())
    if absent:
        raise DataError(_("{path} has no member {member}: not the CIFAR binary "
                          "release").format(path=path, member=absent[0]))

    def split(members: tuple[str, ...]) -> Split:
        parts = [_records(found[m], label_bytes, label_index, f"{path}:{m}") for m in members]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    names = tuple(line.strip() for line in found[names_member].decode().splitlines())
    return split(train_members), split(test_members), tuple(n for n in names if n)
