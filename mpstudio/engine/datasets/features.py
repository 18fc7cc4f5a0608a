"""Turn a user's feature array into model inputs: check it, find its kind, choose a scaling.

Rules (what Keras users expect):
- rank 1 or 2 (samples x features): flat/tabular data for the MLPs, standardized.
- rank 3 of integers, or of floats in [0, 1] or [0, 255]: grayscale images HxW,
  given a channel axis; other rank-3 floats are sequences (time x features).
- rank 4: images; channels-first arrays (N, C, H, W) are transposed to HWC.
- image pixels are divided to [0, 1]; other values are standardized, which also
  keeps large raw values (above float16's 65504) from overflowing in half precision.
"""

from __future__ import annotations

import numpy as np

from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.datasets.source_data import DIVIDE, NONE, STANDARDIZE, Scaling
from mpstudio.engine.i18n import _

IMAGE, SEQUENCE, FLAT = "image", "sequence", "flat"


def check_numeric(x: np.ndarray, where: str) -> np.ndarray:
    """Reject arrays that are not numbers, or that hold NaN or infinity."""
    if x.dtype.kind == "b":
        return x.astype(np.float32)  # 0.0/1.0: already in the model's range
    if x.dtype.kind not in "iuf":
        raise DataError(_(
            "{where} holds {dtype} values, not numbers; save numeric arrays (integers or "
            "floats) for the features").format(where=where, dtype=x.dtype))
    if len(x) == 0:
        raise DataError(_("{where} is empty").format(where=where))
    if x.dtype.kind == "f":
        bad = ~np.isfinite(x)
        if bad.any():
            first = int(np.argwhere(bad)[0][0])
            raise DataError(_(
                "{where} has {count:,} NaN or infinite values (the first in sample {first}); "
                "remove those samples or fill the gaps before training").format(
                    where=where, count=int(bad.sum()), first=first))
    return x


def _is_channels_first(shape: tuple[int, ...]) -> bool:
    return shape[1] in (1, 3, 4) and shape[3] not in (1, 3, 4) and shape[2] > 4


def _image_like(x: np.ndarray) -> bool:
    if x.dtype.kind in "iu":
        return bool(x.min() >= 0)
    lo, hi = float(x.min()), float(x.max())
    return lo >= 0 and (hi <= 1 or (hi <= 255 and bool(np.all(x == np.round(x)))))


def image_scaling(x: np.ndarray) -> tuple[np.ndarray, Scaling]:
    """Pixels to [0, 1]: integers by their bit depth (uint8: 255), floats in [0, 255] by 255."""
    hi = float(x.max())
    if x.dtype.kind in "iu":
        if hi <= 255:
            return x.astype(np.uint8), Scaling(DIVIDE, 255.0)
        return x.astype(np.float32), Scaling(DIVIDE, 65535.0 if hi <= 65535 else hi)
    x = x.astype(np.float32)
    if hi <= 1:
        return x, Scaling(NONE)
    return x, Scaling(DIVIDE, 255.0)


def prepare_features(x: np.ndarray, where: str) -> tuple[np.ndarray, str, Scaling, list[str]]:
    """(array in model layout, kind, scaling, notes) for a user's feature array."""
    x = check_numeric(x, where)
    notes: list[str] = []
    if x.ndim == 1:
        return x.reshape(-1, 1).astype(np.float32), FLAT, Scaling(STANDARDIZE), notes
    if x.ndim == 2:
        return x.astype(np.float32), FLAT, Scaling(STANDARDIZE), notes
    if x.ndim == 3:
        if _image_like(x):
            x, scaling = image_scaling(x[..., np.newaxis])
            return x, IMAGE, scaling, notes
        notes.append(_("{where} is read as sequences (time steps x features)").format(
            where=where))
        return x.astype(np.float32), SEQUENCE, Scaling(STANDARDIZE), notes
    if x.ndim == 4:
        if _is_channels_first(x.shape):
            x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
            notes.append(_("{where} was channels-first (N, C, H, W): transposed to "
                           "(N, H, W, C)").format(where=where))
        if _image_like(x):
            x, scaling = image_scaling(x)
            return x, IMAGE, scaling, notes
        return x.astype(np.float32), IMAGE, Scaling(STANDARDIZE, per_feature=False), notes
    shape = "x".join(map(str, x.shape))
    raise DataError(_(
        "{where} has shape {shape}: mpstudio reads features as (samples, features), images "
        "as (samples, height, width[, channels]) or sequences as (samples, steps, "
        "features)").format(where=where, shape=shape))


def match_test_features(
    x_test: np.ndarray, x_train: np.ndarray, kind: str, scaling: Scaling, where: str
) -> np.ndarray:
    """Bring the test features into the training layout, or say why they do not fit
    (a different shape, or values on another scale than the training features)."""
    train_shape = x_train.shape[1:]
    x_test = check_numeric(x_test, where)
    if kind == FLAT and x_test.ndim == 1:
        x_test = x_test.reshape(-1, 1)
    elif kind == IMAGE and x_test.ndim == 3:
        x_test = x_test[..., np.newaxis]
    elif kind == IMAGE and x_test.ndim == 4 and _is_channels_first(x_test.shape):
        x_test = x_test.transpose(0, 2, 3, 1)
    if tuple(x_test.shape[1:]) != train_shape:
        raise DataError(_(
            "{where} has examples of shape {shape}, but the training examples are "
            "{train_shape}").format(where=where, shape="x".join(map(str, x_test.shape[1:])),
                                    train_shape="x".join(map(str, train_shape))))
    _check_test_scale(x_test, x_train, scaling, where)
    pixels = x_test.dtype.kind in "iu" and 0 <= x_test.min() <= x_test.max() <= 255
    if scaling.mode == DIVIDE and pixels:
        return x_test.astype(np.uint8)
    return x_test.astype(np.float32)


def _check_test_scale(x_test: np.ndarray, x_train: np.ndarray, scaling: Scaling, where: str):
    """Test pixels must be on the training pixels' scale, or the test accuracy means nothing."""
    if scaling.mode == STANDARDIZE:
        return
    lo, hi = float(x_test.min()), float(x_test.max())
    train_hi = float(x_train.max())
    top = scaling.divisor if scaling.mode == DIVIDE else 1.0
    if lo < 0 or hi > top or (train_hi > 1 and 0 < hi <= 1):
        raise DataError(_(
            "{where} has values {low:g}..{high:g}, but the training images are "
            "0..{train_high:g}; save x_test on the same scale as x_train").format(
                where=where, low=lo, high=hi, train_high=train_hi))
