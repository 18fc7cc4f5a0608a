"""One table of charts (engine/charts/chart_specs.py): the window draws every chart in
it, the hover readout reads every series of it, the HTML report draws every chart whose
data the history keeps, and the window's grid follows the count of charts."""

from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtCore import QPointF

from devtools.chart_demo import comparison_events
from mpstudio.engine.charts.chart_specs import (
    CHART_OF,
    CHARTS,
    GRID_CHARTS,
    REPORT_CHARTS,
    SERIES,
    grid_shape,
)
from mpstudio.engine.charts.series_points import columns, points
from mpstudio.engine.events import GradientUnderflow, LayerUnderflow
from mpstudio.engine.i18n import _
from mpstudio.engine.report.html_report import render_html
from mpstudio.ui.charts.chart_panel import build_panel
from mpstudio.ui.charts.hover_readout import readout
from mpstudio.ui.charts.live_charts import LiveCharts

from support.stored_runs import pair

SVG = "{http://www.w3.org/2000/svg}"
KEPT = ("step", "epoch")  # the events a run's history keeps (StoredRun.steps, .epochs)


def test_the_table_is_consistent():
    assert len({chart.name for chart in CHARTS}) == len(CHARTS)
    assert len(SERIES) == sum(len(chart.series) for chart in CHARTS)  # unique series names
    for chart in CHARTS:
        assert chart.title and chart.series and chart.main.legend in ("run", "line")
        for series in chart.series:
            assert CHART_OF[series.name] is chart
            assert series.readout_name
            assert isinstance(series.text(1234.5), str) and series.text(math.nan) == "NaN"
            if series.legend in ("key", "line"):
                assert series.legend_name


def test_the_report_draws_every_chart_whose_data_the_history_keeps():
    kept = [chart for chart in CHARTS if all(s.feed.event in KEPT for s in chart.series)]
    assert list(REPORT_CHARTS) == kept  # underflow samples are not kept: window only
    root = ET.fromstring(render_html(*pair()).split("\n", 1)[1])
    titles = [svg.find(f"{SVG}title").text for svg in root.iter(f"{SVG}svg")]
    assert titles == [_(chart.report.title) for chart in REPORT_CHARTS]


def test_the_report_and_the_window_take_the_same_points():
    base, _mixed = pair()
    run = base[0]
    table = columns(run.steps, "step")
    x, y = points(SERIES["throughput"].feed, table)
    steady = [s for s in run.steps if not s.warmup and s.examples_per_sec is not None]
    assert list(x) == [s.step for s in steady]  # what the report drew before the table
    assert list(y) == [s.examples_per_sec for s in steady]
    x, y = points(SERIES["val_loss"].feed, columns(run.epochs, "epoch"))
    assert list(x) == [e.steps for e in run.epochs] and list(y) == [e.val_loss for e in
                                                                     run.epochs]


@pytest.mark.parametrize(("count", "shape"), [(1, (1, 1)), (2, (1, 2)), (3, (2, 2)),
                                              (4, (2, 2)), (5, (2, 3)), (6, (2, 3)),
                                              (7, (3, 3)), (9, (3, 3))])
def test_the_grid_shape_follows_the_count(count, shape):
    assert grid_shape(count) == shape


def test_the_panel_lays_out_any_number_of_charts(qapp):
    """One chart more than the table: its grid shape's columns, row by row; only a chart
    with none under it names the step axis; every chart shares the first one's."""
    extra = dataclasses.replace(GRID_CHARTS[0], name="extra")
    charts = (*GRID_CHARTS, extra)
    rows, columns = grid_shape(len(charts))
    panel, plots = build_panel(charts)
    layout = panel.ci.layout
    assert list(plots) == [c.name for c in charts]
    for i, plot in enumerate(plots.values()):
        assert layout.itemAt(i // columns, i % columns) is plot
    named = [name for name, plot in plots.items() if plot.getAxis("bottom").labelText]
    assert named == [c.name for i, c in enumerate(charts) if i + columns >= len(charts)]
    assert rows * columns >= len(charts) > (rows - 1) * columns
    first = plots[charts[0].name].getViewBox()
    assert all(plot.getViewBox().linkedView(0) is first for plot in list(plots.values())[1:])
    panel.close()


def underflow(step: int) -> GradientUnderflow:
    return GradientUnderflow(step, 1, 32768.0, 0.02, 0.001,
                             (LayerUnderflow("dense", "float16", 100, 0.02, 0.001),), 0.01)


def test_the_window_draws_every_chart_and_reads_every_series(qtbot):
    charts = LiveCharts()
    qtbot.addWidget(charts)
    charts.resize(1100, 800)
    charts.show()
    qtbot.waitExposed(charts)
    charts.add_events([*comparison_events(), *[underflow(n) for n in (100, 200, 300)]])
    charts.finish()
    assert list(charts.plots) == [chart.name for chart in CHARTS]
    for chart in CHARTS:
        plot = charts.plots[chart.name]
        assert plot.isVisible(), chart.name
        assert plot.header._title_text == _(chart.title)
        assert (chart.axis == "log2") == (type(plot.getAxis("left")).__name__ == "Log2Axis")
    counts = charts.point_counts()
    assert set(counts) == set(SERIES)
    assert all(counts[series]["mixed_float16"] for series in SERIES), counts
    runs = charts._runs()
    for chart in CHARTS:
        step, text = readout(chart.name, runs, 200.0, tolerance=1000.0)
        assert step is not None
        for series in chart.series:  # each series says its name and its value as specified
            assert _(series.readout_name) in text, (series.name, text)
            y = runs[-1].buffers[series.name].view()[1]
            assert any(series.text(value) in text for value in y), (series.name, text)
    qtbot.wait(20)
    view = charts.plots["accuracy"].getViewBox()
    shown = charts.hover.show_at(view.mapViewToScene(QPointF(240, 0.5)))  # an epoch's end
    assert _(SERIES["val_accuracy"].readout_name) in shown
