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
from mpstudio.engine.i18n import _

KEY_SETS = (("x_train", "y_train"), ("x", "y"))
OPTIONAL = ("x_test", "y_test", "class_names")


def _array(data: Any, key: str, path: Path) -> np.ndarray:
    try:
        array = data[key]
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise DataError(_(
                "{path}: {key} is an object array (pickled Python objects), which mpstudio "
                "never loads because unpickling can run code; save plain numeric or text "
                "arrays, e.g. np.savez(path, x_train=x.astype('float32'), y_train=y)").format(
                    path=path, key=key)) from None
        raise DataError(_("{path}: {key} cannot be read ({error})").format(
            path=path, key=key, error=exc)) from None
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(_("{path}: {key} is damaged ({error})").format(
            path=path, key=key, error=exc)) from None
    if not isinstance(array, np.ndarray):
        raise DataError(_("{path}: {key} is not a numpy array; save arrays with "
                          "np.savez").format(path=path, key=key))
    if array.ndim == 0:
        raise DataError(_("{path}: {key} is a single value; it needs one entry per "
                          "sample").format(path=path, key=key))
    return array


def read_npz(dataset: str, options: dict[str, Any], ctx: LoadContext) -> SourceData:
    path = Path(dataset).expanduser()
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
        if magic[:2] != b"PK":
            raise DataError(_(
                "{path} is not an .npz file (not a zip archive); save arrays with "
                "np.savez(path, x_train=..., y_train=...)").format(path=path))
        data = np.load(path, allow_pickle=False)
    except DataError:
        raise  # a ValueError too: it says it already
    except OSError as exc:
        raise unreadable(path, exc) from None
    except (ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(_("{path} is a damaged .npz file ({error})").format(
            path=path, error=exc)) from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise DataError(_("{path} holds a single array, not named x_train/y_train "
                          "arrays").format(path=path))
    with data:
        keys = set(data.files)
        pair = next((p for p in KEY_SETS if set(p) <= keys), None)
        if pair is None:
            raise DataError((_(
                "{path} has no x_train and y_train arrays (nor x and y); it has: {arrays}. "
                "Save it with np.savez(path, x_train=..., y_train=..., x_test=..., "
                "y_test=...)") if keys else _(
                "{path} has no arrays at all. Save it with np.savez(path, x_train=..., "
                "y_train=..., x_test=..., y_test=...)")).format(
                    path=path, arrays=", ".join(sorted(keys))))
        if ("x_test" in keys) != ("y_test" in keys):
            raise DataError(_("{path} has only one of x_test and y_test; give both or "
                              "neither").format(path=path))
        arrays = {k: _array(data, k, path) for k in (*pair, *OPTIONAL) if k in keys}
        ignored = sorted(keys - set(arrays))
    x_key, y_key = pair
    return _source(path, arrays, x_key, y_key, ignored)


def _source(
    path: Path, arrays: dict[str, np.ndarray], x_key: str, y_key: str, ignored: list[str]
) -> SourceData:
    x, y = arrays[x_key], arrays[y_key]
    if len(x) != len(y):
        raise DataError(_(
            "{path}: {x_key} has {x_count:,} samples but {y_key} has {y_count:,}; they must "
            "have one label per sample").format(path=path, x_key=x_key, y_key=y_key,
                                                x_count=len(x), y_count=len(y)))
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
            raise DataError(_(
                "{path}: x_test has {x_count:,} samples but y_test has {y_count:,}").format(
                    path=path, x_count=len(x_test), y_count=len(y_test)))
        x_test = match_test_features(x_test, x, kind, scaling, f"{path.name}: x_test")
        y_test = match_test_labels(y_test, class_names, f"{path.name}: y_test")
    if ignored:
        notes.append(_("ignored arrays: {arrays}").format(arrays=", ".join(ignored)))
    return SourceData(
        name=path.name, origin=str(path.resolve()), kind=kind, x_train=x, y_train=y,
        class_names=class_names, scaling=scaling, x_test=x_test, y_test=y_test, notes=notes,
        raw_dtype=raw_dtype,
    )
