"""Builders for the kinds of data users bring: .npz files, CSV files and image folders;
and ``unprivileged()``, for reading them as a user without root's rights."""

from __future__ import annotations

import contextlib
import csv
import os
from pathlib import Path

import numpy as np


def learnable_images(n: int, size: int = 8, classes: int = 3, seed: int = 0):
    """uint8 images whose brightness encodes the class, and the labels."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    x = (rng.random((n, size, size)) * 60 + y[:, None, None] * 90).astype(np.uint8)
    return x, y


def write_npz(path: Path, **arrays) -> Path:
    np.savez(path, **arrays)
    return path


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def iris_like_rows(n: int = 120, seed: int = 0) -> list[list[object]]:
    """Four numeric features on very different scales and a text label."""
    rng = np.random.default_rng(seed)
    names = ["setosa", "versicolor", "virginica"]
    rows = []
    for i in range(n):
        c = i % 3
        rows.append([
            round(float(rng.normal(c, 0.3)), 4),
            round(float(rng.normal(10 * c, 2)), 4),
            round(float(rng.normal(50_000 * c, 9_000)), 1),  # above float16's range
            int(rng.integers(0, 5)),
            names[c],
        ])
    return rows


def write_image_folder(root: Path, classes=("cats", "dogs"), per_class: int = 12,
                       size=(10, 12)) -> Path:
    """PNG and JPEG files, one sub-folder per class, brightness encoding the class."""
    import tensorflow as tf

    rng = np.random.default_rng(0)
    for c, name in enumerate(classes):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(per_class):
            pixels = (rng.random((*size, 3)) * 60 + c * 150).astype(np.uint8)
            if i % 2:
                data = tf.io.encode_jpeg(pixels, quality=95).numpy()
                (folder / f"{i}.jpg").write_bytes(data)
            else:
                (folder / f"{i}.png").write_bytes(tf.io.encode_png(pixels).numpy())
    return root


def listing(root: Path) -> dict[str, tuple[int, float]]:
    """Every file under ``root`` with its size and modification time."""
    if root.is_file():
        return {root.name: (root.stat().st_size, root.stat().st_mtime)}
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime)
        for p in root.rglob("*") if p.is_file()
    }


@contextlib.contextmanager
def unprivileged():
    """Root reads any file; drop to 'nobody' for the block so permissions apply."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
