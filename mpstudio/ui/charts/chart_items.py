"""The pyqtgraph items that draw one run on the four charts, and the charts' look.

One ``RunItems`` per run owns a curve per series (the gradient-underflow chart's
only once the run has sampled it); ``update`` hands each curve its
buffer's current view with one ``setData`` call, and only when that buffer changed
since the previous redraw (a finished baseline costs nothing while the mixed run
trains).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QColor

from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.charts.run_curves import SERIES, RunCurves

BASELINE_COLOR = "#5b7590"  # calm blue-grey: the float32 reference
MIXED_COLOR = "#e8710a"  # strong orange: the run under study (a single run too)
OTHER_COLORS = ("#2e8b57", "#8e5bb5", "#c0392b", "#1f9bb4")
OVERFLOW_COLOR = "#d62728"
WARMUP_COLOR = "#8c8c8c"
TEXT_COLOR = "#333333"
AXIS_COLOR = "#6e6e6e"

# Which chart draws each series.
CHART_OF = {
    "loss": "loss", "val_loss": "loss",
    "accuracy": "accuracy", "val_accuracy": "accuracy",
    "loss_scale": "loss_scale", "overflow": "loss_scale",
    "throughput": "throughput", "warmup": "throughput",
    "underflow_unscaled": "underflow", "underflow_scaled": "underflow",
}
MAIN_SERIES = {"loss": "loss", "accuracy": "accuracy", "loss_scale": "loss_scale",
               "throughput": "throughput",
               "underflow": "underflow_unscaled"}  # chart -> the series its legend names
EAGER_CHARTS = ("loss", "accuracy", "loss_scale", "throughput")  # every run draws on these
# The underflow chart names its two lines in the legend (each entry hides its own line):
# the style, not the run, is what a reader needs there (only float16 runs sample it).
UNDERFLOW_NAMES = {"underflow_unscaled": QT_TRANSLATE_NOOP("RunItems", "without loss scaling"),
                   "underflow_scaled": QT_TRANSLATE_NOOP("RunItems", "at the current scale")}
LOG2_SERIES = ("loss_scale", "overflow")  # drawn as log2(scale) on a Log2Axis


def run_color(label: str, baseline: bool, others_before: int) -> str:
    if baseline:
        return BASELINE_COLOR
    return MIXED_COLOR if others_before == 0 else OTHER_COLORS[(others_before - 1) % 4]


def series_style(series: str, color: str) -> dict:
    """PlotDataItem keyword arguments for one series of a run in ``color``."""
    # connect="finite": NaN draws a gap. Dense series get 1 px pens: an antialiased
    # wider pen goes through Qt's stroker, some 50x slower for a few thousand points.
    line = {"connect": "finite", "antialias": True}
    if series in ("loss", "accuracy", "throughput"):
        return {**line, "pen": pg.mkPen(color, width=1)}
    if series in ("val_loss", "val_accuracy"):
        return {
            **line, "pen": pg.mkPen(color, width=1.2, style=Qt.PenStyle.DashLine),
            "symbol": "o", "symbolSize": 7, "symbolPen": pg.mkPen(color, width=1.6),
            "symbolBrush": pg.mkBrush("w"),
        }
    if series == "loss_scale":
        return {**line, "pen": pg.mkPen(color, width=1), "stepMode": "right"}
    if series == "overflow":
        return {
            "pen": None, "symbol": "t", "symbolSize": 9, "antialias": True,
            "symbolPen": pg.mkPen("#8b0000", width=1), "symbolBrush": pg.mkBrush(OVERFLOW_COLOR),
        }
    if series == "underflow_unscaled":  # what float16 alone would lose: the strong line
        return {**line, "pen": pg.mkPen(color, width=1.5), "symbol": "o", "symbolSize": 4,
                "symbolPen": None, "symbolBrush": pg.mkBrush(color)}
    if series == "underflow_scaled":  # what the run loses at its loss scale
        return {**line, "pen": pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)}
    if series == "warmup":
        return {
            **line, "pen": pg.mkPen(WARMUP_COLOR, width=1.2, style=Qt.PenStyle.DashLine),
            "symbol": "o", "symbolSize": 6, "symbolPen": pg.mkPen(color, width=1.2),
            "symbolBrush": pg.mkBrush(QColor(WARMUP_COLOR).lighter(150)),  # grey: not steady
        }
    raise ValueError(f"unknown series {series!r}")


def legend_key(series: str) -> pg.PlotDataItem:
    """A neutral sample for a legend entry that explains a style, not a run."""
    key = pg.PlotDataItem(**series_style(series, "#555555"))
    key.setData([0.0], [0.0])  # the legend draws symbols from the scatter, set up by data
    return key


class RunItems:
    """The curves of one run across the charts."""

    def __init__(self, run: RunCurves, plots: dict[str, pg.PlotItem], color: str) -> None:
        """``plots``: chart name -> PlotItem, each with a ``legend``."""
        self.label = run.label
        self.run = run  # the curves' source (a fresh run under the same label replaces it)
        self.color = color
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.counts = dict.fromkeys(SERIES, 0)  # points handed to setData at the last redraw
        self._versions = dict.fromkeys(SERIES, -1)
        self._plots = plots
        # The main curves at once (the legends name them); the others once they have
        # points: a float32 run never draws overflows, and every item costs each frame.
        for chart in EAGER_CHARTS:
            self._add_curve(MAIN_SERIES[chart])

    def rebind(self, run: RunCurves) -> None:
        """Draw ``run`` from now on: every series redraws on the next update."""
        self.run = run
        self._versions = dict.fromkeys(SERIES, -1)

    def update(self, run: RunCurves) -> bool:
        """Hand changed buffers to their curves; True when anything was redrawn."""
        changed = False
        for series, buffer in run.series().items():
            if buffer.version == self._versions[series]:
                continue
            self._versions[series] = buffer.version
            x, y = buffer.view()
            if series in LOG2_SERIES:
                with np.errstate(divide="ignore", invalid="ignore"):
                    y = np.log2(y)
            curve = self.curves.get(series)
            if curve is None:
                if not len(x):
                    continue
                curve = self._add_curve(series)
            curve.setData(x, y)
            self.counts[series] = len(x)
            changed = True
        return changed

    def _add_curve(self, series: str) -> pg.PlotDataItem:
        chart = CHART_OF[series]
        plot = self._plots[chart]
        curve = pg.PlotDataItem(**series_style(series, self.color))
        curve.setZValue(2 if series in ("overflow", "val_loss", "val_accuracy") else 1)
        plot.addItem(curve)  # applies the plot's downsampling and clipping: set them after
        curve.setDownsampling(auto=True, method="peak")  # peak keeps spikes and NaN gaps
        curve.setClipToView(True)
        # A min and a max per pixel column is all a line can show; pyqtgraph's default
        # (5 per pixel) draws 5x the vertices, and antialiased vertices are costly.
        curve.opts["autoDownsampleFactor"] = 1.0
        main = self.curves.get(MAIN_SERIES[chart])
        if series in UNDERFLOW_NAMES:
            plot.legend.addItem(curve, QCoreApplication.translate("RunItems",
                                                                  UNDERFLOW_NAMES[series]))
        elif main is None:
            plot.legend.addItem(curve, shown_label(self.label))
        else:
            curve.setVisible(main.isVisible())  # the run may be hidden from the legend
        self.curves[series] = curve
        return curve

    def owns(self, curve: object) -> bool:
        return any(c is curve for c in self.curves.values())

    def show_chart(self, chart: str, visible: bool) -> None:
        """Show or hide every series of this run on ``chart`` (its legend entry clicked)."""
        for series, curve in self.curves.items():
            if CHART_OF[series] == chart:
                curve.setVisible(visible)

    def visible(self, series: str) -> bool:
        """Drawn, or to be drawn once it has a curve: its chart's main curve is shown."""
        curve = self.curves.get(series) or self.curves.get(MAIN_SERIES[CHART_OF[series]])
        return curve is None or curve.isVisible()

    def set_legend_text(self, chart: str, text: str) -> None:
        """``text`` as it is shown (translated by the caller)."""
        curve = self.curves[MAIN_SERIES[chart]]
        for sample, label in self._plots[chart].legend.items:
            if sample.item is curve and label.text != text:
                self._plots[chart].legend.relabel(label, text)

    def remove(self) -> None:
        for series, curve in self.curves.items():
            plot = self._plots[CHART_OF[series]]
            plot.legend.removeItem(curve)  # no-op for curves it does not name
            plot.removeItem(curve)
        self.curves.clear()
