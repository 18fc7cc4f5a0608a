"""A user's .npz: x_train/y_train (optionally x_test/y_test), or x/y; never unpickled."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, unreadable
from mpstudio.engine.datasets.features import match_test_features, prepare_features
from mpstudio.engine.datasets.labels import match_test_labels, to_class_indices
from mpstudio.engine.datasets.source_data import SourceData

KEY_SETS = (("x_train", "y_train"), ("x", "y"))
OPTIONAL = ("x_test", "y_test", "class_names")


def _array(data: Any, key: str, path: Path) -> np.ndarray:
    try:
        array = data[key]
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise DataError(
                f"{path}: {key} is an object array (pickled Python objects), which mpstudio "
                "never loads because unpickling can run code; save plain numeric or text "
                "arrays, e.g. np.savez(path, x_train=x.astype('float32'), y_train=y)"
            ) from None
        raise DataError(f"{path}: {key} cannot be read ({exc})") from None
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"{path}: {key} is damaged ({exc})") from None
    if not isinstance(array, np.ndarray):
        raise DataError(f"{path}: {key} is not a numpy array; save arrays with np.savez")
    if array.ndim == 0:
        raise DataError(f"{path}: {key} is a single value; it needs one entry per sample")
    return array


def read_npz(dataset: str, options: dict[str, Any], ctx: LoadContext) -> SourceData:
    path = Path(dataset).expanduser()
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
        if magic[:2] != b"PK":
            raise DataError(
                f"{path} is not an .npz file (not a zip archive); save arrays with "
                "np.savez(path, x_train=..., y_train=...)"
            )
        data = np.load(path, allow_pickle=False)
    except OSError as exc:
        raise unreadable(path, exc) from None
    except (ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"{path} is a damaged .npz file ({exc})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise DataError(f"{path} holds a single array, not named x_train/y_train arrays")
    with data:
        keys = set(data.files)
        pair = next((p for p in KEY_SETS if set(p) <= keys), None)
        if pair is None:
            raise DataError(
                f"{path} has no x_train and y_train arrays (nor x and y); it has: "
                f"{', '.join(sorted(keys)) or 'nothing'}. Save it with "
                "np.savez(path, x_train=..., y_train=..., x_test=..., y_test=...)"
            )
        if ("x_test" in keys) != ("y_test" in keys):
            raise DataError(f"{path} has only one of x_test and y_test; give both or neither")
        arrays = {k: _array(data, k, path) for k in (*pair, *OPTIONAL) if k in keys}
        ignored = sorted(keys - set(arrays))
    x_key, y_key = pair
    return _source(path, arrays, x_key, y_key, ignored)


def _source(
    path: Path, arrays: dict[str, np.ndarray], x_key: str, y_key: str, ignored: list[str]
) -> SourceData:
    x, y = arrays[x_key], arrays[y_key]
    if len(x) != len(y):
        raise DataError(
            f"{path}: {x_key} has {len(x):,} samples but {y_key} has {len(y):,}; "
            "they must have one label per sample"
        )
    names = None
    if "class_names" in arrays:
        raw_names = np.asarray(arrays["class_names"]).ravel()
        if raw_names.dtype.kind == "S":
            raw_names = np.char.decode(raw_names, "utf-8", errors="replace")
        names = tuple(str(n) for n in raw_names)
    raw_dtype = str(x.dtype)
    x, kind, scaling, notes = prepare_features(x, f"{path.name}: {x_key}")
    y, class_names, label_notes = to_class_indices(y, f"{path.name}: {y_key}", names)
    notes += label_notes
    x_test = y_test = None
    if "x_test" in arrays:
        x_test, y_test = arrays["x_test"], arrays["y_test"]
        if len(x_test) != len(y_test):
            raise DataError(
                f"{path}: x_test has {len(x_test):,} samples but y_test has {len(y_test):,}"
            )
        x_test = match_test_features(x_test, x, kind, scaling, f"{path.name}: x_test")
        y_test = match_test_labels(y_test, class_names, f"{path.name}: y_test")
    if ignored:
        notes.append(f"ignored arrays: {', '.join(ignored)}")
    return SourceData(
        name=path.name, origin=str(path.resolve()), kind=kind, x_train=x, y_train=y,
        class_names=class_names, scaling=scaling, x_test=x_test, y_test=y_test, notes=notes,
        raw_dtype=raw_dtype,
    )
