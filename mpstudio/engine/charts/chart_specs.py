"""Every chart mpstudio draws, in one table: adding a chart is adding an entry to ``CHARTS``.

The window's live charts (ui/charts), their hover readout and the HTML report
(engine/report) read this table and nothing else to know what a chart is called,
which series it draws, from which field of which event, in what style, on what
kind of axis, and how a value reads under the mouse. Qt-free on purpose: the engine
(the report) and the window both import it, and the engine may not import Qt.

The strings are marked with ``N_`` and shown through ``_()`` by whoever draws them,
so the window and the report speak the same words in every language.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from mpstudio.engine.charts.value_text import (
    four_decimals,
    general,
    percent,
    scale_text,
    whole_number,
)
from mpstudio.engine.i18n import N_

EventKind = Literal["step", "epoch", "underflow"]  # StepMetrics, EpochMetrics, GradientUnderflow
# Which samples a series keeps: "all" (a missing value is a gap: a diverged loss),
# "present" (samples with a value), "steady"/"warmup" (examples/s after or during the
# warm-up; a warm-up window without a figure counts batch / step time), "overflow"
# (samples whose count of skipped steps grew: markers).
Select = Literal["all", "present", "steady", "warmup", "overflow"]
# How a series is drawn (each front end maps these to its own pens).
Style = Literal["line", "step", "validation", "markers", "warmup", "dotted_line",
                "dashed_line"]
# "log2": log2(value) on ticks at whole powers of two; "percent": from just below 0,
# a range that only grows.
Axis = Literal["linear", "log2", "percent"]
# The legend entry a series gets: "run" (named after the run: the chart's main
# series), "key" (one entry explaining the style, once any run has such points),
# "line" (its own entry for each run, named ``legend_name``), "none" (it follows
# its run's main series, shown or hidden with it).
Legend = Literal["run", "key", "line", "none"]


@dataclass(frozen=True)
class Feed:
    """Which field of which event gives a series its values (x is the event's step)."""

    event: EventKind
    field: str
    select: Select = "present"
    scale: float = 1.0  # the field times this (a fraction shown in percent: 100)


@dataclass(frozen=True)
class SeriesSpec:
    name: str  # the key a series is known by (buffers, CSV export, point counts)
    feed: Feed
    style: Style
    readout_name: str  # how the hover readout names it (N_: shown translated)
    readout: Callable[[float], str] = general
    combine: Literal["mean", "last"] = "mean"  # "last": a step function, never averaged
    legend: Legend = "none"
    legend_name: str = ""  # for a "key" or "line" entry (N_)
    in_report: bool = False  # the HTML report draws it too (from the runs the history kept)

    def text(self, value: float) -> str:
        """``value`` as the readout shows it."""
        return "NaN" if math.isnan(value) else self.readout(value)


@dataclass(frozen=True)
class ReportLook:
    """How the HTML report titles a chart (a page has no hover: it says more)."""

    title: str
    y_label: str
    empty: str = N_("no data")  # what it says when no run has a point to draw
    scale: float = 1.0  # values times this (accuracy in percent)


@dataclass(frozen=True)
class ChartSpec:
    name: str
    title: str  # N_
    series: tuple[SeriesSpec, ...]  # the main series first: the legend names runs by it
    axis: Axis = "linear"
    y_limits: tuple[float | None, float | None] = (None, None)  # what the values can be
    # "always": in the grid from a run's first step; "sampled": in a row of its own,
    # hidden until a run sends a sample for it
    shown: Literal["always", "sampled"] = "always"
    report: ReportLook | None = None  # None: the window only (the history lacks its data)

    @property
    def main(self) -> SeriesSpec:
        return self.series[0]


CHARTS: tuple[ChartSpec, ...] = (  # in grid order, row by row
    ChartSpec(
        "loss", N_("Loss"), (
            SeriesSpec("loss", Feed("step", "loss", "all"), "line", N_("loss"),
                       legend="run", in_report=True),
            SeriesSpec("val_loss", Feed("epoch", "val_loss"), "validation", N_("val loss"),
                       legend="key", legend_name=N_("validation (epoch end)"), in_report=True),
        ),
        y_limits=(0.0, None),
        report=ReportLook(N_("Training loss (validation dashed, per epoch)"), N_("loss"))),
    ChartSpec(
        "loss_scale", N_("Loss scale"), (
            SeriesSpec("loss_scale", Feed("step", "loss_scale"), "step", N_("loss scale"),
                       scale_text, combine="last", legend="run", in_report=True),
            SeriesSpec("overflow", Feed("step", "loss_scale", "overflow"), "markers",
                       N_("overflow, scale now"), scale_text, combine="last", legend="key",
                       legend_name=N_("skipped steps")),
        ),
        axis="log2",
        report=ReportLook(N_("Loss scale"), N_("loss scale (log2)"),
                          N_("no loss scaling in these runs"))),
    ChartSpec(
        "throughput", N_("Throughput (examples/s)"), (
            SeriesSpec("throughput", Feed("step", "examples_per_sec", "steady"), "line",
                       N_("examples/s"), whole_number, legend="run", in_report=True),
            SeriesSpec("warmup", Feed("step", "examples_per_sec", "warmup"), "warmup",
                       N_("warm-up examples/s"), whole_number),
        ),
        y_limits=(0.0, None),
        report=ReportLook(N_("Steady throughput"), N_("examples/s"),
                          N_("no steady-state samples (the runs ended in the warm-up)"))),
    ChartSpec(
        "accuracy", N_("Accuracy"), (
            SeriesSpec("accuracy", Feed("step", "accuracy", "all"), "line", N_("accuracy"),
                       four_decimals, legend="run", in_report=True),
            SeriesSpec("val_accuracy", Feed("epoch", "val_accuracy"), "validation",
                       N_("val accuracy"), four_decimals, legend="key",
                       legend_name=N_("validation (epoch end)"), in_report=True),
        ),
        y_limits=(0.0, 1.0),
        report=ReportLook(N_("Accuracy (validation dashed, per epoch)"), N_("accuracy (%)"),
                          scale=100.0)),
    ChartSpec(
        "underflow", N_("Gradient underflow in float16"), (
            SeriesSpec("underflow_unscaled", Feed("underflow", "unscaled", scale=100.0),
                       "dotted_line", N_("underflow without scaling"), percent,
                       legend="line", legend_name=N_("without loss scaling")),
            SeriesSpec("underflow_scaled", Feed("underflow", "scaled", scale=100.0),
                       "dashed_line", N_("at the scale"), percent, legend="line",
                       legend_name=N_("at the current scale")),
        ),
        axis="percent", y_limits=(0.0, 100.0), shown="sampled"),
)

CHART = {chart.name: chart for chart in CHARTS}
SERIES = {series.name: series for chart in CHARTS for series in chart.series}
CHART_OF = {series.name: chart for chart in CHARTS for series in chart.series}
GRID_CHARTS = tuple(chart for chart in CHARTS if chart.shown == "always")
REPORT_CHARTS = tuple(chart for chart in CHARTS if chart.report is not None)


def grid_shape(count: int) -> tuple[int, int]:
    """(rows, columns) for ``count`` charts: as square as it gets, never more columns
    than rows need (4: 2x2, 5 or 6: 2x3, 7 to 9: 3x3)."""
    if count <= 0:
        return 0, 0
    columns = math.ceil(math.sqrt(count))
    return math.ceil(count / columns), columns
