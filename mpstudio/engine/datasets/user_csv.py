"""A user's CSV: numeric feature columns and a label column chosen by name (tabular data)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, unreadable
from mpstudio.engine.datasets.features import FLAT, check_numeric
from mpstudio.engine.datasets.labels import to_class_indices
from mpstudio.engine.datasets.source_data import STANDARDIZE, Scaling, SourceData
from mpstudio.engine.datasets.user_sources import CsvOptions

SNIFF_BYTES = 64 * 1024


def _read_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            sample = fh.read(SNIFF_BYTES)
            fh.seek(0)
            try:
                dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
            except csv.Error:
                dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
            reader = csv.reader(fh, dialect)
            header = next(reader, None)
            rows = [row for row in reader if any(cell.strip() for cell in row)]
    except OSError as exc:
        raise unreadable(path, exc) from None
    except UnicodeDecodeError:
        raise DataError(f"{path} is not UTF-8 text; save the CSV as UTF-8") from None
    except csv.Error as exc:
        raise DataError(f"{path} is not a readable CSV file ({exc})") from None
    if not header or not rows:
        raise DataError(f"{path} has no data rows; it needs a header row, then one row per sample")
    return [name.strip() for name in header], rows


def _column(rows: list[list[str]], index: int, name: str, path: Path) -> np.ndarray:
    """One feature column as float64, or a message naming the first cell that is not a number."""
    cells = [row[index].strip() for row in rows]
    try:
        return np.asarray(cells, dtype=np.float64)
    except ValueError:
        pass
    for line, cell in enumerate(cells, start=2):
        try:
            float(cell)
        except ValueError:
            if not cell:
                raise DataError(
                    f"{path}: column {name!r} is empty on line {line}; fill in or drop rows "
                    "with missing values"
                ) from None
            raise DataError(
                f"{path}: column {name!r} has text ({cell!r} on line {line}); mpstudio reads "
                "numeric features only: encode it as numbers or drop the column"
            ) from None
    raise AssertionError("unreachable: some cell failed to parse")


def read_csv(dataset: str, options: dict[str, Any], ctx: LoadContext) -> SourceData:
    opts = CsvOptions.from_dict(options)
    path = Path(dataset).expanduser()
    header, rows = _read_rows(path)
    if opts.label_column not in header:
        raise DataError(
            f"{path} has no column {opts.label_column!r}; its columns are: "
            f"{', '.join(header)}. Choose the label column with --label-column "
            "(label_column in the run config)"
        )
    for line, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise DataError(
                f"{path}: line {line} has {len(row)} fields but the header has {len(header)}"
            )
    label_index = header.index(opts.label_column)
    features = [(i, name) for i, name in enumerate(header) if i != label_index]
    if not features:
        raise DataError(f"{path} has no feature columns besides {opts.label_column!r}")
    columns = []
    for i, name in features:
        columns.append(_column(rows, i, name, path))
        ctx.check_stop()
    x = check_numeric(np.stack(columns, axis=1).astype(np.float32), f"{path.name}: features")
    raw_labels = np.array([row[label_index].strip() for row in rows])
    empty = np.flatnonzero(raw_labels == "")
    if len(empty):
        raise DataError(
            f"{path}: the label column {opts.label_column!r} is empty on line {empty[0] + 2}; "
            "every row needs a label"
        )
    try:
        labels: np.ndarray = raw_labels.astype(np.float64)
    except ValueError:
        labels = raw_labels  # class names
    y, class_names, notes = to_class_indices(labels, f"{path.name}: column {opts.label_column!r}")
    notes.append(
        f"{len(features)} feature columns: "
        + ", ".join(name for _, name in features[:8])
        + ("..." if len(features) > 8 else "")
    )
    return SourceData(
        name=path.name, origin=str(path.resolve()), kind=FLAT, x_train=x, y_train=y,
        class_names=class_names, scaling=Scaling(STANDARDIZE), notes=notes,
    )
