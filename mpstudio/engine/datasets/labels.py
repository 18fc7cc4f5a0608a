"""Labels to class indices: integers 0..classes-1, class names, or one-hot rows."""

from __future__ import annotations

import numpy as np

from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.i18n import _

MAX_CLASSES = 10_000  # more than this is an ID column or a regression target, not classes


def _as_vector(y: np.ndarray, where: str, notes: list[str]) -> np.ndarray:
    if y.ndim == 2 and y.shape[1] == 1:
        return y[:, 0]
    if y.ndim == 2 and y.dtype.kind in "biuf":
        rows_one_hot = np.all((y == 0) | (y == 1)) and np.all(y.sum(axis=1) == 1)
        if rows_one_hot:
            notes.append(_("{where} is one-hot: converted to class indices").format(
                where=where))
            return np.argmax(y, axis=1)
    if y.ndim != 1:
        shape = "x".join(map(str, y.shape))
        raise DataError(_(
            "{where} has shape {shape}; labels must be one value per sample (a class index "
            "or a class name) or one-hot rows").format(where=where, shape=shape))
    return y


def _names_of(y: np.ndarray, where: str) -> np.ndarray:
    if y.dtype.kind == "S":
        try:
            return np.char.decode(y, "utf-8")
        except UnicodeDecodeError:
            raise DataError(_("{where} holds byte strings that are not UTF-8 text").format(
                where=where)) from None
    return y


def to_class_indices(
    y: np.ndarray, where: str, class_names: tuple[str, ...] | None = None
) -> tuple[np.ndarray, tuple[str, ...], list[str]]:
    """(int32 indices, class names, notes) for the training labels.

    Text labels become classes in sorted order; integer labels must be 0 or more
    and give classes 0..max. ``class_names``, when the data names its classes,
    must match the number of classes.
    """
    notes: list[str] = []
    y = _as_vector(np.asarray(y), where, notes)
    if len(y) == 0:
        raise DataError(_("{where} is empty").format(where=where))
    if y.dtype.kind in "US":
        text = _names_of(y, where)
        uniques, indices = np.unique(text, return_inverse=True)
        found = tuple(str(n) for n in uniques)
        _check_count(len(found), where)
        return indices.astype(np.int32), found, notes
    if y.dtype.kind == "b":
        y = y.astype(np.int32)
    if y.dtype.kind not in "iuf":
        raise DataError(_("{where} holds {dtype} values; labels must be integers or "
                          "text").format(where=where, dtype=y.dtype))
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            raise DataError(_("{where} has NaN or infinite labels; every sample needs a "
                              "class").format(where=where))
        fractional = y[y != np.round(y)]
        if len(fractional):
            raise DataError(_(
                "{where} has non-integer labels such as {value:g}: labels must be class "
                "indices or class names (is this a regression target?)").format(
                    where=where, value=fractional[0]))
    low, high = int(y.min()), int(y.max())
    if low < 0:
        raise DataError(_(
            "{where} has labels out of range: found {label}; labels must be integers from "
            "0 to classes-1 (or class names)").format(where=where, label=low))
    if high >= MAX_CLASSES:
        raise DataError(_(
            "{where} has labels out of range: found {label}, which would mean {classes:,} "
            "classes; labels must be integers from 0 to classes-1 (is this an ID or a "
            "regression column?)").format(where=where, label=high, classes=high + 1))
    classes = high + 1
    if class_names is not None and len(class_names) != classes:
        if len(class_names) < classes:
            raise DataError(_(
                "{where} has labels out of range: found {label}, but the data names only "
                "{count} classes ({names}...)").format(
                    where=where, label=high, count=len(class_names),
                    names=", ".join(class_names[:5])))
        classes = len(class_names)
    _check_count(classes, where)
    counts = np.bincount(y.astype(np.int64), minlength=classes)
    empty = np.flatnonzero(counts == 0)
    if len(empty):
        shown = ", ".join(str(c) for c in empty[:8]) + ("..." if len(empty) > 8 else "")
        notes.append(_(
            "{where}: {empty} of {classes} classes have no examples ({shown}); labels are "
            "read as indices 0..max").format(where=where, empty=len(empty), classes=classes,
                                             shown=shown))
    names = class_names or tuple(str(c) for c in range(classes))
    return y.astype(np.int32), tuple(names), notes


def _check_count(classes: int, where: str) -> None:
    if classes < 2:
        raise DataError(_(
            "{where} has only one class; a classifier needs examples of at least two").format(
                where=where))


def match_test_labels(y: np.ndarray, class_names: tuple[str, ...], where: str) -> np.ndarray:
    """Test labels in the training classes' indices, or a message naming the stranger."""
    notes: list[str] = []
    y = _as_vector(np.asarray(y), where, notes)
    if y.dtype.kind in "US":
        text = _names_of(y, where)
        index = {name: i for i, name in enumerate(class_names)}
        unknown = sorted(set(text.tolist()) - index.keys())
        if unknown:
            raise DataError(_(
                "{where} has classes the training labels do not: {classes}").format(
                    where=where, classes=", ".join(unknown[:5])))
        return np.array([index[t] for t in text], dtype=np.int32)
    if y.dtype.kind not in "biuf":
        raise DataError(_("{where} holds {dtype} values; labels must be integers or "
                          "text").format(where=where, dtype=y.dtype))
    if y.dtype.kind == "f" and (not np.all(np.isfinite(y)) or np.any(y != np.round(y))):
        raise DataError(_("{where} has NaN, infinite or non-integer labels; labels must be "
                          "class indices or names").format(where=where))
    if len(y) and (y.min() < 0 or y.max() >= len(class_names)):
        bad = int(y.min()) if y.min() < 0 else int(y.max())
        raise DataError(_(
            "{where} has labels out of range: found {label}, but the training labels have "
            "classes 0..{last}").format(where=where, label=bad, last=len(class_names) - 1))
    return y.astype(np.int32)
