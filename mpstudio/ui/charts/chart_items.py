"""The pyqtgraph items that draw one run on the charts, and the charts' look.

One ``RunItems`` per run owns a curve per series of the chart table (the main
series of every grid chart at once, the others once they have points); ``update``
hands each curve its buffer's current view with one ``setData`` call, and only
when that buffer changed since the previous redraw (a finished baseline costs
nothing while the mixed run trains).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from mpstudio.engine.charts.chart_specs import CHART, CHART_OF, GRID_CHARTS, SERIES, Style
from mpstudio.engine.i18n import _
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.charts.run_curves import RunCurves
from mpstudio.ui.theme import ChartColors

OVERFLOW_COLOR = "#d62728"
WARMUP_COLOR = "#8c8c8c"
TEXT_COLOR = "#333333"
AXIS_COLOR = "#6e6e6e"
ON_TOP = ("markers", "validation")  # styles drawn over the lines of every run
LINE_ONLY = ("line", "step", "dashed_line")  # styles with no symbol at their points


def run_color(baseline: bool, others_before: int, colors: ChartColors) -> str:
    """The float32 reference, the run under study, then further runs in turn, in the
    theme's colours (the light theme's blue-grey baseline was 3.4:1 on the dark charts)."""
    if baseline:
        return colors.baseline
    if others_before == 0:
        return colors.mixed
    return colors.others[(others_before - 1) % len(colors.others)]


def series_style(style: Style, color: str) -> dict:
    """PlotDataItem keyword arguments for a series drawn in ``style`` for a run in ``color``."""
    # connect="finite": NaN draws a gap. Dense series get 1 px pens: an antialiased
    # wider pen goes through Qt's stroker, some 50x slower for a few thousand points.
    line = {"connect": "finite", "antialias": True}
    if style == "line":
        return {**line, "pen": pg.mkPen(color, width=1)}
    if style == "validation":
        return {
            **line, "pen": pg.mkPen(color, width=1.2, style=Qt.PenStyle.DashLine),
            "symbol": "o", "symbolSize": 7, "symbolPen": pg.mkPen(color, width=1.6),
            "symbolBrush": pg.mkBrush("w"),
        }
    if style == "step":
        return {**line, "pen": pg.mkPen(color, width=1), "stepMode": "right"}
    if style == "markers":
        return {
            "pen": None, "symbol": "t", "symbolSize": 9, "antialias": True,
            "symbolPen": pg.mkPen("#8b0000", width=1), "symbolBrush": pg.mkBrush(OVERFLOW_COLOR),
        }
    if style == "dotted_line":  # a strong line with a dot at each sample
        return {**line, "pen": pg.mkPen(color, width=1.5), "symbol": "o", "symbolSize": 4,
                "symbolPen": None, "symbolBrush": pg.mkBrush(color)}
    if style == "dashed_line":
        return {**line, "pen": pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)}
    if style == "warmup":
        return {
            **line, "pen": pg.mkPen(WARMUP_COLOR, width=1.2, style=Qt.PenStyle.DashLine),
            "symbol": "o", "symbolSize": 6, "symbolPen": pg.mkPen(color, width=1.2),
            "symbolBrush": pg.mkBrush(QColor(WARMUP_COLOR).lighter(150)),  # grey: not steady
        }
    raise ValueError(f"unknown series style {style!r}")


def legend_key(series: str) -> pg.PlotDataItem:
    """A neutral sample for a legend entry that explains a style, not a run."""
    key = pg.PlotDataItem(**series_style(SERIES[series].style, "#555555"))
    key.setData([0.0], [0.0])  # the legend draws symbols from the scatter, set up by data
    return key


class RunItems:
    """The curves of one run across the charts. Made once and reused: ``retire`` empties
    them when the charts are cleared, ``reuse`` gives them the next run (pyqtgraph items
    are costly to make and to parent into a plot; emptying and refilling them is not)."""

    def __init__(self, run: RunCurves, plots: dict[str, pg.PlotItem], color: str) -> None:
        """``plots``: chart name -> PlotItem, each with a ``legend``."""
        self.label = run.label
        self.run = run  # the curves' source (a fresh run under the same label replaces it)
        self.color = color
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.counts = dict.fromkeys(SERIES, 0)  # points handed to setData at the last redraw
        self._versions = dict.fromkeys(SERIES, -1)
        self._lone: set[str] = set()  # series drawn with a dot: they hold a single point
        self._plots = plots
        # The grid's main curves at once (the legends name them); the others once they
        # have points: a float32 run never draws overflows, and every item costs each frame.
        for chart in GRID_CHARTS:
            self._add_curve(chart.main.name)

    def rebind(self, run: RunCurves) -> None:
        """Draw ``run`` from now on: every series redraws on the next update."""
        self.run = run
        self._versions = dict.fromkeys(SERIES, -1)

    def retire(self) -> None:
        """Nothing drawn, no legend entry: kept for ``reuse`` by a later run."""
        for series, curve in self.curves.items():
            curve.setData([], [])
            curve.setVisible(True)  # a run hidden from its legend: the next one is shown
            self._set_lone(series, curve, False)
        self.counts = dict.fromkeys(SERIES, 0)
        for chart in {CHART_OF[series].name for series in self.curves}:
            chart_curves = [c for s, c in self.curves.items() if CHART_OF[s].name == chart]
            self._plots[chart].legend.park(chart_curves)

    def reuse(self, run: RunCurves, color: str) -> None:
        """Draw ``run`` (a run of another name maybe) in ``color`` with these items."""
        self.label = run.label
        self.rebind(run)
        self.recolor(color)
        for series, curve in self.curves.items():
            text = self._legend_text(series)
            legend = self._plots[CHART_OF[series].name].legend
            if text is not None and not legend.unpark(curve, text):
                legend.addItem(curve, text)

    def recolor(self, color: str) -> None:
        """Every curve of the run in ``color`` (a theme switch, or another run's turn)."""
        if color != self.color:
            self.color = color
            for series, curve in self.curves.items():
                _restyle(curve, series_style(SERIES[series].style, color))

    def update(self, run: RunCurves) -> bool:
        """Hand changed buffers to their curves; True when anything was redrawn."""
        changed = False
        for series, buffer in run.series().items():
            if buffer.version == self._versions[series]:
                continue
            self._versions[series] = buffer.version
            x, y = buffer.view()
            if CHART_OF[series].axis == "log2":
                with np.errstate(divide="ignore", invalid="ignore"):
                    y = np.log2(y)
            curve = self.curves.get(series)
            if curve is None:
                if not len(x):
                    continue
                curve = self._add_curve(series)
            curve.setData(x, y)
            self._set_lone(series, curve, len(x) == 1)
            self.counts[series] = len(x)
            changed = True
        return changed

    def _set_lone(self, series: str, curve: pg.PlotDataItem, lone: bool) -> None:
        """A line through one point draws nothing (a run stopped at its first step showed
        empty charts): a dot until its second point, for a series drawn without one."""
        if lone == (series in self._lone) or SERIES[series].style not in LINE_ONLY:
            return
        if lone:
            self._lone.add(series)
            curve.setSymbol("o")
            curve.setSymbolSize(5)
            curve.setSymbolPen(None)
            curve.setSymbolBrush(pg.mkBrush(self.color))
        else:
            self._lone.discard(series)
            curve.setSymbol(None)

    def _legend_text(self, series: str) -> str | None:
        """What the legend entry of ``series`` reads; None: it has none of its own."""
        spec = SERIES[series]
        if spec.legend == "line":
            return _(spec.legend_name)
        return shown_label(self.label) if spec.legend == "run" else None

    def _add_curve(self, series: str) -> pg.PlotDataItem:
        spec, chart = SERIES[series], CHART_OF[series]
        plot = self._plots[chart.name]
        curve = pg.PlotDataItem(**series_style(spec.style, self.color))
        curve.setZValue(2 if spec.style in ON_TOP else 1)
        plot.addItem(curve)  # applies the plot's downsampling and clipping: set them after
        curve.setDownsampling(auto=True, method="peak")  # peak keeps spikes and NaN gaps
        curve.setClipToView(True)
        # A min and a max per pixel column is all a line can show; pyqtgraph's default
        # (5 per pixel) draws 5x the vertices, and antialiased vertices are costly.
        curve.opts["autoDownsampleFactor"] = 1.0
        text = self._legend_text(series)
        if text is not None:
            plot.legend.addItem(curve, text)
        else:
            main = self.curves.get(chart.main.name)
            curve.setVisible(main is None or main.isVisible())  # the run may be hidden
        self.curves[series] = curve
        return curve

    def owns(self, curve: object) -> bool:
        return any(c is curve for c in self.curves.values())

    def show_chart(self, chart: str, visible: bool) -> None:
        """Show or hide every series of this run on ``chart`` (its legend entry clicked)."""
        for series, curve in self.curves.items():
            if CHART_OF[series].name == chart:
                curve.setVisible(visible)

    def visible(self, series: str) -> bool:
        """Drawn, or to be drawn once it has a curve: its chart's main curve is shown."""
        curve = self.curves.get(series) or self.curves.get(CHART_OF[series].main.name)
        return curve is None or curve.isVisible()

    def set_legend_text(self, chart: str, text: str) -> None:
        """``text`` as it is shown (translated by the caller)."""
        curve = self.curves[CHART[chart].main.name]
        for sample, label in self._plots[chart].legend.items:
            if sample.item is curve and label.text != text:
                self._plots[chart].legend.relabel(label, text)


def _restyle(curve: pg.PlotDataItem, style: dict) -> None:
    """The colour-bearing parts of ``style`` on ``curve`` (a theme switch, a reused run's
    new colour), set on its line and its symbols directly: PlotDataItem's own setPen,
    setSymbolPen and setSymbolBrush each hand all the data to both again (a theme
    switch re-processed every point of every curve three times, half its cost)."""
    pen = pg.mkPen(style.get("pen"))
    curve.opts["pen"] = pen
    curve.curve.setPen(pen)
    symbols = curve.opts.get("symbol") is not None  # else the next setData passes them on
    if "symbolPen" in style:
        curve.opts["symbolPen"] = symbol_pen = pg.mkPen(style["symbolPen"])
        if symbols:
            curve.scatter.setPen(symbol_pen)
    if "symbolBrush" in style:
        curve.opts["symbolBrush"] = symbol_brush = pg.mkBrush(style["symbolBrush"])
        if symbols:
            curve.scatter.setBrush(symbol_brush)
