"""The grid of plots behind ``LiveCharts``: their look, and ranges that follow the data.

Costs matter here: the panel repaints up to 25 times a second while a run streams.
Two choices below come from measuring that repaint (offscreen raster, 2 cores):
- the grid is drawn with an opaque light pen: a semi-transparent pen made Qt blend
  every pixel of every grid line, which cost more than all the curves together;
- the ranges are not auto-ranged on every frame. Growing, noisy data moved them on
  most frames, and a moved range re-lays out the axes and re-clips every curve.
  ``RangeFollower`` moves them in jumps instead (and stops where the user zooms).
  It also reads calmer: the axes do not twitch while a run streams in.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtGui import QFont

from mpstudio.engine.charts.chart_specs import GRID_CHARTS, ChartSpec, grid_shape
from mpstudio.engine.i18n import _
from mpstudio.ui.charts.chart_axes import Log2Axis, StepAxis, nice_ceil
from mpstudio.ui.charts.legend_fit import FittedLegend
from mpstudio.ui.theme import LIGHT_CHARTS, ChartColors

STEP_LABEL = QT_TRANSLATE_NOOP("ChartPanel", "step")  # the step axis' name
HEADROOM = 1.15  # when the step axis widens, it reaches at least this far past the data
LOOKAHEAD_S = 1.0  # ... and at least as far as the run gets in this long at its pace
MARGIN = 0.06  # a y range reaches this far (of the data's height) past the data
EDGE = 0.02  # ... and at most this far (of its own height) past what the values can be
MIN_STEPS = 10  # the step axis spans at least this many steps (or the run's plan)
LEFT_AXIS_WIDTH = 52  # px, the same on every chart: their grids line up
SLACK = 2.0  # a y range more than this many times the data's height shrinks to it


def tr(text: str) -> str:
    """A ChartPanel string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("ChartPanel", text)


def build_panel(
    charts: tuple[ChartSpec, ...] = GRID_CHARTS,
) -> tuple[pg.GraphicsLayoutWidget, dict[str, pg.PlotItem]]:
    """A plot per chart of ``charts``, row by row in as many columns as ``grid_shape``
    gives their count; one step axis for all (zooming one zooms all)."""
    panel = pg.GraphicsLayoutWidget()
    panel.setBackground(LIGHT_CHARTS.background)
    panel.ci.setContentsMargins(4, 4, 8, 4)
    columns = grid_shape(len(charts))[1]
    plots: dict[str, pg.PlotItem] = {}
    for i, chart in enumerate(charts):
        axes = {"bottom": StepAxis()}
        if chart.axis == "log2":
            axes["left"] = Log2Axis()
        plot = panel.addPlot(row=i // columns, col=i % columns, axisItems=axes)
        # only a chart with none under it names the step axis (the rows share it)
        style_plot(plot, _(chart.title), step_label=i + columns >= len(charts))
        plots[chart.name] = plot
    for column in range(columns):  # equal columns, whatever their titles and legends hold
        panel.ci.layout.setColumnStretchFactor(column, 1)
        panel.ci.layout.setColumnPreferredWidth(column, 1)
    first, *others = plots.values()
    for plot in others:
        plot.setXLink(first)
    return panel, plots


def style_plot(plot: pg.PlotItem, title: str, legend: bool = True,
               step_label: bool = True) -> None:
    """The look every chart shares; ``legend``: give it a ``FittedLegend`` (in the title
    row, or under the title when the plot is narrow: it never hides a curve). ``title``
    is shown as it is (translated by the caller)."""
    font = QFont()
    font.setPointSizeF(8.5)
    # pyqtgraph's automatic SI prefix rewrites an axis label's HTML on every range
    # change, the hidden top and right axes' too (they follow the view all the same).
    for side in ("top", "right"):
        plot.getAxis(side).enableAutoSIPrefix(False)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.enableAutoSIPrefix(False)
        axis.setTickFont(font)
        axis.setGrid(255)
        axis.setStyle(tickAlpha=255, maxTickLevel=1)
        axis.setZValue(-1)  # the grid under the curves (pyqtgraph puts axes above the view)
    plot.getAxis("left").setWidth(LEFT_AXIS_WIDTH)
    # The plot hands these to every curve it adds (its context menu offers them too).
    plot.setDownsampling(auto=True, mode="peak")
    plot.setClipToView(True)
    title_font = QFont()
    title_font.setPointSizeF(10)
    title_font.setBold(True)
    if step_label:
        plot.setLabel("bottom", tr(STEP_LABEL))
    plot.header = FittedLegend(plot, title, title_font, "8pt", LIGHT_CHARTS.text)
    if legend:  # else the caller puts a legend of its own elsewhere
        plot.legend = plot.header
    recolor_plot(plot, LIGHT_CHARTS)


def recolor_plot(plot: pg.PlotItem, colors: ChartColors) -> None:
    """The axes, grid, title and legend in ``colors`` (light or dark)."""
    if plot.getAxis("bottom").labelText:  # only the lowest row names its axis
        plot.setLabel("bottom", tr(STEP_LABEL), color=colors.axis)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setPen(pg.mkPen(colors.axis))
        axis.setTextPen(pg.mkPen(colors.text))
        axis.setTickPen(pg.mkPen(colors.grid))  # with the grid on, ticks are the grid lines
    plot.header.set_text_color(colors.text)


def warmup_region(plot: pg.PlotItem) -> pg.LinearRegionItem:
    """A shaded strip over the warm-up steps, labelled along its edge (``region.label``)."""
    region = pg.LinearRegionItem(movable=False, brush=pg.mkBrush(LIGHT_CHARTS.band),
                                 pen=pg.mkPen(None))
    region.setZValue(-10)
    region.label = pg.InfLineLabel(  # along the strip's right edge, inside it: clear of curves
        region.lines[1], text=QCoreApplication.translate("ChartPanel", "warm-up"),
        position=0.8, rotateAxis=(1, 0),
        anchors=[(0.5, 1), (0.5, 1)], color=LIGHT_CHARTS.muted,
    )
    plot.addItem(region, ignoreBounds=True)
    region.hide()
    view = plot.getViewBox()

    def fit_label() -> None:
        # A strip narrower than the label's line (a few warm-up steps of a long run)
        # would spill it over the axis's tick labels: the shading and the hover readout
        # say it there.
        start, end = region.getRegion()
        per_pixel = view.viewPixelSize()[0]
        wide = per_pixel > 0 and (end - start) / per_pixel >= region.label.boundingRect().height()
        if region.label.isVisible() != wide:
            region.label.setVisible(wide)

    region.sigRegionChanged.connect(fit_label)
    view.sigXRangeChanged.connect(fit_label)
    view.sigResized.connect(fit_label)
    return region


def centered_note(plot: pg.PlotItem) -> pg.TextItem:
    """A grey note in the middle of the plot's view, kept there when it resizes."""
    view = plot.getViewBox()
    note = pg.TextItem(color=LIGHT_CHARTS.muted, anchor=(0.5, 0.5))
    note.setParentItem(view)  # view pixels, not data: it stays centred however it zooms
    view.sigResized.connect(lambda v: note.setPos(v.rect().center()))
    note.hide()
    return note


def empty_range(chart: ChartSpec) -> tuple[float, float]:
    """A chart's y range while it has no data: what its values can be, else 0 to 1; a
    loss scale from 1 to 2¹⁶ (where mpstudio's dynamic scaling starts and stays)."""
    if chart.axis == "log2":
        return 0.0, 16.0
    floor, ceiling = chart.y_limits
    low = 0.0 if floor is None else floor
    return low, low + 1.0 if ceiling is None else ceiling


def follow_span(
    current: tuple[float, float] | None, low: float, high: float,
    limits: tuple[float | None, float | None] = (None, None),
) -> tuple[float, float] | None:
    """A y range for data from ``low`` to ``high``: None keeps ``current``, which still
    holds the data and is not more than twice its height; else the data with a margin
    (so the next small excursion does not move the range again), no further than a
    sliver past ``limits``, what the values can be (an accuracy of 0.1 read from -0.4
    to 0.6 after a run stopped at its first step)."""
    floor, ceiling = limits
    if high - low <= 1e-12 * max(1.0, abs(high)):
        pad = 0.5 if abs(high) < 10 else 0.05 * abs(high)  # a constant: centre it
        low, high = low - pad, high + pad
        if floor is not None and low < floor <= high - pad:
            low = floor
        if ceiling is not None and high > ceiling >= low + pad:
            high = ceiling
    if current is not None:
        bottom, top = current
        if bottom <= low and high <= top and (high - low) * SLACK >= top - bottom:
            return None
    margin = MARGIN * (high - low)
    edge = EDGE * (high - low)
    low, high = low - margin, high + margin
    if floor is not None and low < floor - edge:
        low = floor - edge
    if ceiling is not None and high > ceiling + edge:
        high = ceiling + edge
    return low, high


class RangeFollower:
    """Keeps every chart showing all its data, moved in jumps rather than every frame.

    The step axis (shared) widens in nice steps when the data reaches its end, with
    room for about a second more of the run; each y range changes only when its
    data leaves it or fills less than half of it. Following stops on an axis the user
    pans or zooms, and starts again when they press the plot's auto-range button ("A")."""

    def __init__(
        self, plots: dict[str, pg.PlotItem], clock: Callable[[], float] = time.monotonic,
        limits: dict[str, tuple[float | None, float | None]] | None = None,
        empty: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        """``limits``: chart name -> what its values can be (``follow_span``); ``empty``:
        chart name -> its y range until it has data (after ``reset``: not the last runs')."""
        self._clock = clock
        self._limits = limits or {}
        self._empty = empty or {}
        self._widened: tuple[float, float] | None = None  # (when, at which step) it last grew
        self._views = {name: plot.getViewBox() for name, plot in plots.items()}
        self._master = next(iter(self._views.values()))  # the others are x-linked to it
        self.following_x = True
        self.following_y = dict.fromkeys(self._views, True)
        self._upper: float | None = None
        self._y: dict[str, tuple[float, float]] = {}
        for name, view in self._views.items():
            view.sigRangeChangedManually.connect(
                lambda mask, name=name: self._on_manual(name, mask)
            )
        self.reset()

    def reset(self) -> None:
        self.following_x = True
        self._upper = None
        self._widened = None
        self._y.clear()
        for name, view in self._views.items():
            self.following_y[name] = True
            view.enableAutoRange(x=False, y=False)
            if name in self._empty:
                view.setYRange(*self._empty[name], padding=0)
        self._master.setXRange(0, MIN_STEPS, padding=0.02)

    def update(
        self,
        last_step: float | None,
        total_steps: int | None,
        y_bounds: dict[str, tuple[float, float] | None],
        exact: bool = False,
    ) -> bool:
        """Follow the data; ``exact``: fit the step axis to it (the run is over).
        True when a range moved."""
        moved = False
        for name, view in self._views.items():
            if any(view.autoRangeEnabled()):  # the "A" button: follow again
                view.enableAutoRange(x=False, y=False)
                self.following_x = self.following_y[name] = True
                self._upper = self._widened = None
                self._y.pop(name, None)
        if self.following_x and last_step:
            moved = self._follow_steps(last_step, total_steps, exact)
        for name, bounds in y_bounds.items():
            if bounds is None or not self.following_y[name]:
                continue
            span = follow_span(self._y.get(name), *bounds,
                               limits=self._limits.get(name, (None, None)))
            if span is not None:
                self._y[name] = span
                self._views[name].setYRange(*span, padding=0)
                moved = True
        return moved

    def _follow_steps(self, last_step: float, total_steps: int | None, exact: bool) -> bool:
        if exact:
            upper = last_step
        elif self._upper is not None and last_step <= self._upper:
            return False  # it still fits: never narrower while following
        else:
            # Room for some 15% more steps, or for a second of training at the pace
            # since the last widening: a fast run does not move the axis every frame.
            now = self._clock()
            pace = 0.0
            if self._widened is not None and now > self._widened[0]:
                pace = (last_step - self._widened[1]) / (now - self._widened[0])
            self._widened = (now, last_step)
            upper = nice_ceil(max(last_step * HEADROOM, last_step + pace * LOOKAHEAD_S))
            if total_steps:
                upper = max(last_step, min(upper, total_steps))  # no emptiness past the plan
        # A few steps at least: a run stopped at step 1 had a step axis from 0 to 1.
        upper = max(upper, min(MIN_STEPS, total_steps or MIN_STEPS))
        if upper == self._upper:
            return False
        self._upper = upper
        self._master.setXRange(0, upper, padding=0.02)
        return True

    def _on_manual(self, name: str, mask) -> None:
        if mask is None or mask[0]:
            self.following_x = False
        if mask is None or mask[1]:
            self.following_y[name] = False
