"""The gradient-underflow chart: how much of a float16 run's gradient float16 rounds to 0.

Only mixed_float16 runs with ``aids.underflow_every`` set send GradientUnderflow
samples, so the chart is built with the others but stays hidden (taking no room in
the panel) until a run on the charts has sent one. It sits in its own row under the
grid, its step axis linked to theirs: the plot with two lines per run (without
loss scaling: solid with dots; at the scale in force: dashed), and beside it the
legend and the latest sample's worst layers. Its y range (percent) starts just below
0 and only grows.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from mpstudio.engine.charts.chart_specs import ChartSpec
from mpstudio.engine.events import GradientUnderflow
from mpstudio.engine.i18n import _
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.charts.chart_axes import StepAxis, nice_ceil
from mpstudio.ui.charts.chart_items import AXIS_COLOR, TEXT_COLOR
from mpstudio.ui.charts.chart_panel import LEFT_AXIS_WIDTH, style_plot
from mpstudio.ui.charts.legend_entries import ReusableLegend
from mpstudio.ui.charts.run_curves import ChartData, RunCurves
from mpstudio.ui.theme import ChartColors

MEANING = QT_TRANSLATE_NOOP("UnderflowChart",
                            "% of the nonzero gradient values float16 rounds to 0")
WORST_LAYERS = 3
NAME_CHARS = 22  # a longer layer name is cut (with an ellipsis) so the column stays narrow
MIN_TOP = 1.0  # percent: the y axis never reads finer than 0..1%
FLOOR = 0.04  # the y range starts this far (of its top) below 0


def tr(text: str) -> str:
    """An UnderflowChart string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("UnderflowChart", text)


def pct(fraction: float) -> str:
    return f"{100 * fraction:.1f}%"


def worst_layers(sample: GradientUnderflow, n: int = WORST_LAYERS) -> list[str]:
    """"logits (float16): 12.7% / 0.0%" for the ``n`` layers that lose the most without
    loss scaling (then at the scale), worst first."""
    ranked = sorted(sample.layers, key=lambda layer: (layer.unscaled, layer.scaled), reverse=True)
    lines = []
    for layer in ranked[:n]:
        name = layer.layer if len(layer.layer) <= NAME_CHARS else layer.layer[:NAME_CHARS - 1] + "…"
        lines.append(f"{name} ({layer.dtype}): {pct(layer.unscaled)} / {pct(layer.scaled)}")
    return lines


def breakdown_html(label: str, sample: GradientUnderflow, muted: str = AXIS_COLOR) -> str:
    """The text beside the plot: the latest sample, overall and its worst layers."""
    grey = f'<span style="color:{muted}">'
    latest = QCoreApplication.translate("UnderflowChart", "Latest sample")
    where = QCoreApplication.translate("UnderflowChart", "· {label}, step {step}").format(
        label=shown_label(label), step=f"{sample.step:,}")
    scale = QCoreApplication.translate(
        "UnderflowChart", "without loss scaling / at scale {scale}").format(
        scale=f"{sample.scale:g}")
    everything = QCoreApplication.translate(
        "UnderflowChart", "all layers: {unscaled} / {scaled}").format(
        unscaled=pct(sample.unscaled), scaled=pct(sample.scaled))
    rows = [
        f"{grey}{html.escape(tr(MEANING))}</span>",
        "",
        f"<b>{html.escape(latest)}</b> {grey}{html.escape(where)}</span>",
        f"{grey}{html.escape(scale)}</span>",
        html.escape(everything),
    ]
    worst = worst_layers(sample)
    if worst:
        heading = QCoreApplication.translate("UnderflowChart", "worst layers:")
        rows.append(f"{grey}{html.escape(heading)}</span>")
        rows += [html.escape(line) for line in worst]
    return "<br>".join(rows)


class UnderflowChart:
    """The plot and its side column; ``update`` shows them once there is data."""

    def __init__(self, panel: pg.GraphicsLayoutWidget, plots: dict[str, pg.PlotItem],
                 chart: ChartSpec, row: int) -> None:
        """``row``: the first row under the grid of ``plots``."""
        self._grid = panel.ci.layout
        # A row of its own under the grid, the plot under the loss chart (the same width
        # and place: pyqtgraph aligns linked step axes by screen position), the legend and
        # the latest sample's worst layers beside it. Hidden, they take no room (Qt lays
        # out visible items only; stretch factors would keep an empty row's room).
        self.plot = panel.addPlot(row=row, col=0, axisItems={"bottom": StepAxis()})
        style_plot(self.plot, _(chart.title), legend=False)
        self.plot.setXLink(next(iter(plots.values())))  # one step axis with the other charts
        self.side = panel.ci.addLayout(row=row, col=1)
        self.side.setContentsMargins(12, 6, 4, 4)
        # the legend goes in the side column: the title row is short
        self.plot.legend = ReusableLegend(
            colCount=1, labelTextSize="8pt", labelTextColor=TEXT_COLOR, frame=False,
            horSpacing=2, verSpacing=-4,
        )
        self.side.addItem(self.plot.legend, row=0, col=0)
        self.layers = pg.LabelItem(justify="left", color=TEXT_COLOR, size="8pt")
        self.side.addItem(self.layers, row=1, col=0)
        self.side.layout.setRowStretchFactor(1, 1)
        self._series = tuple(series.name for series in chart.series)
        self._text = ""
        self._muted = AXIS_COLOR
        self._top = 0.0
        self.plot.hide()
        self.side.hide()

    def set_colors(self, colors: ChartColors) -> None:
        self._muted = colors.axis
        self.plot.legend.setLabelTextColor(colors.text)
        for _sample, label in self.plot.legend.items:
            label.setText(label.text)
        self.layers.setAttr("color", colors.text)
        self._text = ""  # the next update writes the column again in these colours

    @property
    def shown(self) -> bool:
        return self.plot.isVisible()

    def update(self, data: ChartData, following_y: bool = True) -> None:
        """Show (or hide) the row, follow the y range, refresh the layer column."""
        latest = data.latest_underflow()
        if latest is None:
            self.hide()
            return
        if not self.shown:
            self.plot.show()
            self.side.show()
            self._grid.invalidate()  # Qt does not notice a shown or hidden item by itself
            # pyqtgraph sizes an axis restyled while hidden (a theme change) to 0: again
            self.plot.getAxis("left").setWidth(LEFT_AXIS_WIDTH)
            self.plot.getAxis("bottom").setHeight(None)
        text = breakdown_html(*latest, muted=self._muted)
        if text != self._text:  # setText lays the label out again: only when it changed
            self._text = text
            self.layers.setText(text)
        if following_y:
            self._follow(data.runs.values())
        else:
            self._top = 0.0  # the user zoomed: when they press "A" it starts over

    def hide(self) -> None:
        if self.shown:
            self.plot.hide()
            self.side.hide()
            self._grid.invalidate()
        self._text = ""
        self._top = 0.0

    def _follow(self, runs: Iterable[RunCurves]) -> None:
        high = 0.0
        for run in runs:
            for series in self._series:
                bounds = run.buffers[series].bounds()
                if bounds is not None:
                    high = max(high, bounds[1])
        top = max(self._top, min(100.0, nice_ceil(max(MIN_TOP, high * 1.1))))
        low, high_shown = self.plot.getViewBox().viewRange()[1]
        if top != self._top or not (math.isclose(low, -FLOOR * top, abs_tol=1e-9)
                                    and math.isclose(high_shown, top)):
            self._top = top  # never lower while following: the axis does not twitch
            # A little below 0: a line at 0% stays clear of the axis.
            self.plot.setYRange(-FLOOR * top, top, padding=0)
