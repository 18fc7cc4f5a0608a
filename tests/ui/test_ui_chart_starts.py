"""The live charts around a run's start and end: a new run starts on clean charts (not
the last runs' axes), a run stopped at its first step still shows its point on sensible
axes, and a run's start reuses the chart items instead of making and parenting new ones
(which stalled the window's thread at every start)."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from devtools.chart_demo import comparison_events, synthetic_run
from mpstudio.engine.events import StepMetrics
from mpstudio.ui.charts.chart_axes import StepAxis
from mpstudio.ui.charts.live_charts import NO_STEP_TEXT, STARTING_TEXT, LiveCharts
from mpstudio.ui.charts.run_curves import is_baseline

from support.chart_events import started


@pytest.fixture
def charts(qtbot):
    widget = LiveCharts(redraw_hz=25)
    qtbot.addWidget(widget)
    widget.resize(1000, 640)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def first_step(n: int = 1, accuracy: float = 0.1, loss: float = 2.3,
               scale: float | None = 32768.0) -> StepMetrics:
    return StepMetrics(step=n, epoch=1, loss=loss, accuracy=accuracy, loss_scale=scale,
                       overflow_steps=0, examples_per_sec=None, step_time=3.0, warmup=True)


def settle(qtbot, charts: LiveCharts) -> None:
    """Every redraw tick the events asked for has run."""
    timer = charts._timer
    qtbot.waitUntil(lambda: not timer.isActive(), timeout=3000)


def test_a_new_run_waits_for_its_first_step_instead_of_showing_the_last_ranges(charts,
                                                                                qtbot):
    charts.add_events(comparison_events(steps=4000, steps_per_epoch=800))
    charts.finish()
    assert charts.panel.isVisible()
    charts.clear()
    charts.add_events([started("float32 baseline", total=500)])
    settle(qtbot, charts)
    # no data yet: the note, not empty axes from 0 to 4000 (the last comparison's)
    assert charts.empty.isVisible() and not charts.panel.isVisible()
    assert charts.empty.text() == STARTING_TEXT
    charts.add_events([first_step(5, scale=None), first_step(10, scale=None)])
    qtbot.waitUntil(charts.panel.isVisible, timeout=3000)
    settle(qtbot, charts)
    x_min, x_max = charts.plots["loss"].getViewBox().viewRange()[0]
    assert x_min <= 0 and 10 <= x_max <= 20  # the new run's steps, not the old ones'
    low, high = charts.plots["loss"].getViewBox().viewRange()[1]
    assert low <= 2.3 <= high and high - low < 2  # its loss, with a margin
    # no loss scale in this run: a neutral range, not the last comparison's 2^13..2^16
    assert charts.plots["loss_scale"].getViewBox().viewRange()[1] == pytest.approx([0, 16])


def test_a_run_that_ends_before_its_first_step_says_so(charts, qtbot):
    charts.clear()
    charts.add_events([started()])
    charts.finish()
    assert charts.empty.isVisible() and charts.empty.text() == NO_STEP_TEXT


def test_a_run_stopped_at_its_first_step_shows_its_point_on_sensible_axes(charts, qtbot):
    """It showed empty charts on a step axis from 0 to 1 and an accuracy axis from -0.4
    to 0.6 (a line through one point draws nothing)."""
    charts.clear()
    charts.add_events([started("mixed_float16", total=500), first_step(1)])
    charts.finish()
    assert charts.panel.isVisible()
    items = charts._items["mixed_float16"]
    for series in ("loss", "accuracy", "loss_scale"):
        assert items.curves[series].opts["symbol"] is not None, series  # a dot, seen
    x_min, x_max = charts.plots["loss"].getViewBox().viewRange()[0]
    assert x_min <= 0 and x_max >= 10  # a few steps wide, not 0 to 1
    low, high = charts.plots["accuracy"].getViewBox().viewRange()[1]
    assert -0.05 <= low <= 0.1 <= high <= 1.05  # accuracy is 0 to 1
    low, high = charts.plots["throughput"].getViewBox().viewRange()[1]
    assert low >= -0.05 * high  # no negative examples/s
    charts.add_events([first_step(2, accuracy=0.2)])
    charts.finish()
    assert items.curves["accuracy"].opts["symbol"] is None  # two points: a line again


def test_the_step_axis_never_ticks_between_steps(qapp):
    axis = StepAxis()
    for span in (1, 2, 3, 10, 1000):
        assert all(spacing >= 1 for spacing, _ in axis.tickSpacing(0, span, 400)), span


def _items_in_plots(charts: LiveCharts) -> dict[str, list[object]]:
    return {name: list(plot.listDataItems()) for name, plot in charts.plots.items()}


def _legend_entries(charts: LiveCharts) -> dict[str, list[tuple[object, object]]]:
    return {name: list(plot.legend.items) for name, plot in charts.plots.items()}


def test_a_run_start_reuses_the_chart_items(charts, qtbot, monkeypatch):
    """The same comparison again: the same curves in the same plots, the same legend
    entries, and not one item added to a plot or a legend."""
    charts.add_events(comparison_events())
    charts.finish()
    curves = _items_in_plots(charts)
    parents = {id(c): c.parentItem() for items in curves.values() for c in items}
    entries = _legend_entries(charts)
    added = []
    monkeypatch.setattr(pg.PlotItem, "addItem",
                        lambda self, *a, **k: added.append(a))
    monkeypatch.setattr(pg.LegendItem, "addItem", lambda self, *a, **k: added.append(a))
    for _ in range(2):
        charts.clear()
        charts.add_events(comparison_events())
        charts.finish()
        assert _items_in_plots(charts) == curves
        assert all(c.parentItem() is parents[id(c)] for items in curves.values()
                   for c in items)
        assert _legend_entries(charts) == entries
        assert charts.point_counts()["loss"] == {"float32 baseline": 80, "mixed_float16": 80}
    assert added == []


def test_other_runs_reuse_the_curves_under_their_own_names_and_colours(charts, qtbot):
    charts.add_events(comparison_events())
    charts.finish()
    curves = {id(c) for items in _items_in_plots(charts).values() for c in items}
    charts.clear()
    charts.add_events(synthetic_run("mixed_bfloat16", "mixed_bfloat16", loss_scale=None))
    charts.finish()
    now = {id(c) for items in _items_in_plots(charts).values() for c in items}
    assert now == curves  # nothing made: one run's curves reused, the other's idle
    labels = [label.text for _, label in charts.plots["loss"].legend.items]
    assert labels == ["mixed_bfloat16", "validation (epoch end)"]  # no idle run's entry
    items = charts._items["mixed_bfloat16"]
    assert not is_baseline(items.label)
    assert items.curves["loss"].opts["pen"].color().name() == items.color
    idle = [c for c in charts.plots["loss"].listDataItems() if not items.owns(c)]
    assert idle and all(len(c.xData if c.xData is not None else ()) == 0 for c in idle)


def test_the_curves_take_the_themes_colours_and_follow_a_switch(charts, qtbot):
    """The light theme's blue-grey float32 curve was 3.4:1 on the dark charts: the curves
    are drawn in the theme's colours, those already drawn recoloured on a switch."""
    from mpstudio.ui.theme import DARK_CHARTS, LIGHT_CHARTS

    charts.set_colors(LIGHT_CHARTS)
    charts.add_events(comparison_events(steps=400, steps_per_epoch=100))
    charts.finish()
    settle(qtbot, charts)

    def pen_colors() -> dict[bool, str]:
        return {is_baseline(label): items.curves["loss"].opts["pen"].color().name()
                for label, items in charts._pool.items.items()}

    assert pen_colors() == {True: LIGHT_CHARTS.baseline, False: LIGHT_CHARTS.mixed}
    charts.set_colors(DARK_CHARTS)
    assert pen_colors() == {True: DARK_CHARTS.baseline, False: DARK_CHARTS.mixed}
    charts.clear()  # a later run's curves are made (or reused) in the current theme
    charts.add_events(comparison_events(steps=200, steps_per_epoch=100))
    charts.finish()
    settle(qtbot, charts)
    assert pen_colors() == {True: DARK_CHARTS.baseline, False: DARK_CHARTS.mixed}
