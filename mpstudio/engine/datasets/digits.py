"""The bundled UCI digits (8x8x1, 10 classes): real data that works offline on first launch."""

from __future__ import annotations

from typing import Any

import numpy as np

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.source_data import DIVIDE, Scaling, SourceData
from mpstudio.engine.i18n import _
from mpstudio.resources import where

PIXEL_MAX = 16.0  # each pixel counts set pixels in a 4x4 block


def read_digits() -> tuple[np.ndarray, np.ndarray]:
    """Images as uint8 NHWC with values 0..16, and labels as int32."""
    ref = where("datasets", "digits.npz")
    with ref.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
        x = data["x"].astype(np.uint8)[..., np.newaxis]
        y = data["y"].astype(np.int32)
    return x, y


def read_digits_source(name: str, options: dict[str, Any], ctx: LoadContext) -> SourceData:
    x, y = read_digits()
    return SourceData(
        name="digits",
        origin=_("bundled with mpstudio"),
        kind="image",
        x_train=x,
        y_train=y,
        class_names=tuple(str(d) for d in range(10)),
        scaling=Scaling(DIVIDE, PIXEL_MAX),
    )
