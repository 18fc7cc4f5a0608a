"""Events turned into a series' points, as the chart table's ``Feed`` says (NumPy, no Qt).

The window feeds its live buffers from batches of engine events; the report feeds
its SVG charts from the events a run's history kept (the same StepMetrics and
EpochMetrics). Both go through ``points`` here, so a chart draws the same points
live and on the page. A batch is read into columns once (one array per field) and
each series is then a few vectorised selections of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

import numpy as np

from mpstudio.engine.charts.chart_specs import SERIES, EventKind, Feed

X_FIELD: dict[str, str] = {"step": "step", "epoch": "steps", "underflow": "step"}
# What the derived selections read besides the series' own field.
_HELPERS: dict[str, tuple[str, ...]] = {"step": ("step_time", "warmup", "overflow_steps")}


def _fields(kind: str) -> tuple[str, ...]:
    fed = [spec.feed.field for spec in SERIES.values() if spec.feed.event == kind]
    return tuple(dict.fromkeys([X_FIELD[kind], *fed, *_HELPERS.get(kind, ())]))


FIELDS: dict[str, tuple[str, ...]] = {kind: _fields(kind) for kind in X_FIELD}
_EMPTY = np.empty(0)


def columns(events: Sequence[object], kind: EventKind) -> dict[str, np.ndarray]:
    """The fields the table reads of ``events`` (all of one ``kind``), one float array
    each: None becomes NaN, a bool 0 or 1."""
    names = FIELDS[kind]
    if not events:
        return {name: _EMPTY for name in names}
    get = attrgetter(*names)
    rows = [get(event) for event in events]
    table = np.array(rows, dtype=float).reshape(len(rows), len(names))
    return {name: table[:, i] for i, name in enumerate(names)}


def points(
    feed: Feed,
    table: dict[str, np.ndarray],
    batch_size: int | None = None,
    overflows_before: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of the series ``feed`` describes, from ``columns`` of its event kind.

    ``batch_size``: turns a warm-up window's step time into examples/s where the
    engine sent no figure; ``overflows_before``: the count of skipped steps before
    this batch (an "overflow" series marks the samples where it grew)."""
    x = table[X_FIELD[feed.event]]
    y = table[feed.field]  # the column itself: copied below before anything writes to it
    if feed.scale != 1.0:
        y = y * feed.scale
    select = feed.select
    if select == "all":
        return x, y
    if select == "present":
        keep = ~np.isnan(y)
    elif select == "overflow":
        grew = np.diff(table["overflow_steps"], prepend=overflows_before) > 0
        keep = grew & ~np.isnan(y)
    else:  # steady or warmup
        missing = np.isnan(y)
        if batch_size and missing.any():
            y = y.copy()
            with np.errstate(divide="ignore", invalid="ignore"):
                y[missing] = batch_size / table["step_time"][missing]
        warm = table["warmup"] > 0
        keep = np.isfinite(y) & (y > 0) & (warm if select == "warmup" else ~warm)
    return x[keep], y[keep]
