"""The bundled UCI digits (8x8x1, 10 classes): real data that works offline on first launch."""

from __future__ import annotations

from importlib import resources

import numpy as np

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.pipeline import bundle_from_arrays
from mpstudio.engine.spec import RunSpec

PIXEL_MAX = 16.0  # each pixel counts set pixels in a 4x4 block


def read_digits() -> tuple[np.ndarray, np.ndarray]:
    """Images as float32 NHWC in [0, 1] and labels as int32."""
    ref = resources.files("mpstudio.resources").joinpath("datasets/digits.npz")
    with ref.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
        x = data["x"].astype(np.float32)[..., np.newaxis] / PIXEL_MAX
        y = data["y"].astype(np.int32)
    return x, y


def load_digits(spec: RunSpec) -> DataBundle:
    x, y = read_digits()
    return bundle_from_arrays(
        "digits",
        x,
        y,
        class_names=tuple(str(d) for d in range(10)),
        batch_size=spec.batch_size,
        validation_split=spec.validation_split,
        seed=spec.seed,
        options=spec.data,
    )
