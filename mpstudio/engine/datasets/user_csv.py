"""A user's CSV: numeric feature columns and a label column chosen by name (tabular data)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, unreadable
from mpstudio.engine.datasets.features import FLAT, check_numeric
from mpstudio.engine.datasets.labels import to_class_indices
from mpstudio.engine.datasets.source_data import STANDARDIZE, Scaling, SourceData
from mpstudio.engine.datasets.user_sources import CsvOptions
from mpstudio.engine.i18n import _

SNIFF_BYTES = 64 * 1024
MAX_LINE_CHARS = 16 * 2**20  # a line this long is not a table row (a file without newlines)
# Parsed rows are Python lists of strings: about ten times the file's bytes in memory,
# and the arrays built from them come on top.
MEMORY_PER_FILE_BYTE = 12


def _check_size(path: Path) -> None:
    """Refuse a CSV that cannot be read into the memory free, before reading any of it."""
    import psutil

    try:
        size = path.stat().st_size
    except OSError as exc:
        raise unreadable(path, exc) from None
    need, free = size * MEMORY_PER_FILE_BYTE, psutil.virtual_memory().available
    if need > free:
        raise DataError(_(
            "{path} is {size:,.1f} GB; reading a CSV takes about {need:,.0f} GB of memory "
            "here and {free:,.1f} GB is free: save the data as .npz (numpy.savez, read "
            "without the text), or use a sample of it").format(
                path=path, size=size / 2**30, need=need / 2**30, free=free / 2**30))


def _lines(fh: Any, path: Path) -> Iterator[str]:
    """The file's lines, each read with a cap: a file without newlines would otherwise
    be read whole as one line."""
    number = 0
    while line := fh.readline(MAX_LINE_CHARS + 1):
        number += 1
        if len(line) > MAX_LINE_CHARS:
            raise DataError(_(
                "{path}: line {line} is longer than {mb} MB, which is not a table row; "
                "check that it is a CSV file with one sample per line").format(
                    path=path, line=number, mb=MAX_LINE_CHARS // 2**20))
        yield line


def _read_rows(path: Path) -> tuple[list[str], list[list[str]], list[int]]:
    """The header, the non-blank rows and each row's line number in the file."""
    _check_size(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            sample = fh.read(SNIFF_BYTES)
            fh.seek(0)
            try:
                dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
            except csv.Error:
                dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
            reader = csv.reader(_lines(fh, path), dialect)
            header = next(reader, None)
            rows: list[list[str]] = []
            lines: list[int] = []
            for row in reader:
                if any(cell.strip() for cell in row):
                    rows.append(row)
                    lines.append(reader.line_num)  # blank lines and quoted newlines counted
    except OSError as exc:
        raise unreadable(path, exc) from None
    except UnicodeDecodeError:
        raise DataError(_("{path} is not UTF-8 text; save the CSV as UTF-8").format(
            path=path)) from None
    except csv.Error as exc:
        raise DataError(_("{path} is not a readable CSV file ({error})").format(
            path=path, error=exc)) from None
    if not header or not rows:
        raise DataError(_("{path} has no data rows; it needs a header row, then one row per "
                          "sample").format(path=path))
    return [name.strip() for name in header], rows, lines


def _column(
    rows: list[list[str]], lines: list[int], index: int, name: str, path: Path
) -> np.ndarray:
    """One feature column as float64, or a message naming the first cell that is not a number."""
    cells = [row[index].strip() for row in rows]
    try:
        return np.asarray(cells, dtype=np.float64)
    except ValueError:
        pass
    for line, cell in zip(lines, cells, strict=True):
        try:
            float(cell)
        except ValueError:
            if not cell:
                raise DataError(_(
                    "{path}: column {column!r} is empty on line {line}; fill in or drop rows "
                    "with missing values").format(path=path, column=name, line=line)) from None
            raise DataError(_(
                "{path}: column {column!r} has text ({cell!r} on line {line}); mpstudio reads "
                "numeric features only: encode it as numbers or drop the column").format(
                    path=path, column=name, cell=cell, line=line)) from None
    raise AssertionError("unreachable: some cell failed to parse")


def read_csv(dataset: str, options: dict[str, Any], ctx: LoadContext) -> SourceData:
    opts = CsvOptions.from_dict(options)
    path = Path(dataset).expanduser()
    header, rows, lines = _read_rows(path)
    if opts.label_column not in header:
        raise DataError(_(
            "{path} has no column {column!r}; its columns are: {columns}. Choose the label "
            "column with --label-column (label_column in the run config)").format(
                path=path, column=opts.label_column, columns=", ".join(header)))
    for line, row in zip(lines, rows, strict=True):
        if len(row) != len(header):
            raise DataError(_(
                "{path}: line {line} has {fields} fields but the header has {header}").format(
                    path=path, line=line, fields=len(row), header=len(header)))
    label_index = header.index(opts.label_column)
    features = [(i, name) for i, name in enumerate(header) if i != label_index]
    if not features:
        raise DataError(_("{path} has no feature columns besides {column!r}").format(
            path=path, column=opts.label_column))
    columns = []
    for i, name in features:
        columns.append(_column(rows, lines, i, name, path))
        ctx.check_stop()
    x64 = check_numeric(np.stack(columns, axis=1),
                        _("{file}: features").format(file=path.name))
    too_big = np.abs(x64) > np.finfo(np.float32).max
    if too_big.any():
        row, col = np.argwhere(too_big)[0]
        raise DataError(_(
            "{path}: column {column!r} has {value:g} on line {line}, beyond float32's range; "
            "rescale that column").format(path=path, column=features[col][1],
                                          value=x64[row, col], line=lines[row]))
    x = x64.astype(np.float32)
    raw_labels = np.array([row[label_index].strip() for row in rows])
    empty = np.flatnonzero(raw_labels == "")
    if len(empty):
        raise DataError(_(
            "{path}: the label column {column!r} is empty on line {line}; every row needs a "
            "label").format(path=path, column=opts.label_column, line=lines[empty[0]]))
    try:
        labels: np.ndarray = raw_labels.astype(np.float64)
    except ValueError:
        labels = raw_labels  # class names
    y, class_names, notes = to_class_indices(labels, _("{file}: column {column!r}").format(
        file=path.name, column=opts.label_column))
    notes.append(_("{count} feature columns: {names}").format(
        count=len(features),
        names=", ".join(name for _i, name in features[:8]) + ("..." if len(features) > 8 else "")))
    return SourceData(
        name=path.name, origin=str(path.resolve()), kind=FLAT, x_train=x, y_train=y,
        class_names=class_names, scaling=Scaling(STANDARDIZE), notes=notes,
    )
