"""Live training charts: loss, loss scale, throughput and accuracy over steps, and the
gradient underflow of float16 runs that sample it (hidden until one does).

Events only fill buffers (``add_events`` is cheap); a QTimer redraws at most
``redraw_hz`` times a second and only when something changed, with one
``setData`` per curve. The timer runs only while there is something to draw and
the widget is visible, so an idle or hidden chart costs nothing.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from mpstudio.engine.charts.chart_specs import (
    CHART,
    CHART_OF,
    CHARTS,
    GRID_CHARTS,
    SERIES,
    grid_shape,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.charts import chart_export
from mpstudio.ui.charts.chart_items import legend_key
from mpstudio.ui.charts.chart_menu import ChartMenu
from mpstudio.ui.charts.chart_panel import (
    RangeFollower,
    build_panel,
    centered_note,
    empty_range,
    recolor_plot,
    warmup_region,
)
from mpstudio.ui.charts.curve_pool import CurvePool
from mpstudio.ui.charts.hover_readout import HoverReadout
from mpstudio.ui.charts.run_curves import ChartData, RunCurves
from mpstudio.ui.charts.underflow_chart import UnderflowChart
from mpstudio.ui.theme import LIGHT_CHARTS, ChartColors, chart_colors

MIN_CHART_WIDTH = 260  # px
# Shown translated (``tr``): what the charts say.
NO_SCALING_ONE = QT_TRANSLATE_NOOP("LiveCharts", "no loss scaling in this run")
NO_SCALING_ALL = QT_TRANSLATE_NOOP("LiveCharts", "no loss scaling in these runs")
NO_SCALING_MARK = QT_TRANSLATE_NOOP("LiveCharts", " (no loss scaling)")  # after a run's label
EMPTY_TEXT = QT_TRANSLATE_NOOP(
    "LiveCharts",
    "No run yet.\n\nPick a dataset, a template and a precision on the left, then click "
    "Run (Ctrl+R): the loss, the loss scale, the throughput and the accuracy stream here "
    "as it trains. With Compare with float32 ticked, a float32 run trains first and the "
    "Comparison tab then sets both side by side.")
STARTING_TEXT = QT_TRANSLATE_NOOP("LiveCharts",
                                  "Starting: the charts appear with the run's first step.")
NO_STEP_TEXT = QT_TRANSLATE_NOOP("LiveCharts",
                                 "The run ended before its first step: nothing to chart.")


def tr(text: str) -> str:
    """A LiveCharts string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("LiveCharts", text)


class LiveCharts(QWidget):
    """The charts of ``chart_specs.CHARTS`` for the runs in progress; a comparison draws
    both runs on each."""

    redrawn = Signal()  # after each redraw

    def __init__(self, parent: QWidget | None = None, redraw_hz: float = 25.0) -> None:
        super().__init__(parent)
        self.redraws = 0
        self._data = ChartData()
        self._starting = False  # cleared for a run: no step of it yet
        self._hidden_hold = False  # the legends are held while the charts are hidden
        self.panel, self.plots = build_panel(GRID_CHARTS)
        rows, columns = grid_shape(len(GRID_CHARTS))
        self.underflow = UnderflowChart(self.panel, self.plots, CHART["underflow"], rows)
        self.plots["underflow"] = self.underflow.plot  # its y range is its own (percent)
        self._pool = CurvePool(self.plots, LIGHT_CHARTS)
        self._items = self._pool.items  # label -> the curves of each run on the charts
        self._ranges = RangeFollower(
            self.plots,
            limits={chart.name: chart.y_limits for chart in CHARTS if chart.axis == "linear"},
            empty={chart.name: empty_range(chart) for chart in CHARTS if chart.axis != "percent"})
        self._keys = {  # legend entries that explain a style, added once it appears
            name: legend_key(name) for name, spec in SERIES.items() if spec.legend == "key"
        }
        self._keys_shown: set[str] = set()
        self._settling = False  # a new run's curves exist; its ranges come on the next tick
        self._warmup_region = warmup_region(self.plots[CHART_OF["warmup"].name])
        self._no_scaling = centered_note(self.plots[CHART_OF["loss_scale"].name])

        self.readout = QLabel()
        # Before any run, empty charts showed axes from 0.2 to 0.8 that meant nothing:
        # say what to do instead, until a run's first curves arrive.
        self.empty = QLabel(tr(EMPTY_TEXT))
        self.empty.setObjectName("chartsEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.empty, 1)
        layout.addWidget(self.panel, 1)
        layout.addWidget(self.readout)
        # Each column of charts at least this wide: a run's legend entry fits one line
        # (the window's docks give way; below this the charts were unreadable).
        self.setMinimumWidth(columns * MIN_CHART_WIDTH)
        self._show_empty(True)
        self.hover = HoverReadout(
            self.panel, self.plots, self._runs, self.readout, self._series_visible
        )
        self.menu = ChartMenu(self, self.panel, self.plots, self.save, self._runs)
        for name, plot in self.plots.items():
            plot.legend.sigSampleClicked.connect(
                lambda curve, chart=name: self._on_legend_clicked(chart, curve)
            )

        self.colors = LIGHT_CHARTS
        self.set_colors(chart_colors(self.palette()))

        self._timer = QTimer(self)
        self._timer.setObjectName("LiveCharts.redrawTimer")
        self._timer.setInterval(max(1, round(1000 / redraw_hz)))
        self._timer.timeout.connect(self._on_tick)
        # A turn of the theme (View > Theme, or the system's scheme) is followed on the
        # event loop's next turn: the window's own repaint and the charts' recolour and
        # repaint are each a turn of their own then (together they held the window's
        # thread some 50 ms; a zero timer would run in the same turn as the switch's
        # posted events).
        self._palette_timer = QTimer(self)
        self._palette_timer.setObjectName("LiveCharts.paletteTimer")
        self._palette_timer.setSingleShot(True)
        self._palette_timer.setInterval(1)
        self._palette_timer.timeout.connect(self._follow_palette)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.isVisible():
            self._palette_timer.start()

    def _follow_palette(self) -> None:
        colors = chart_colors(self.palette())
        if colors != self.colors:
            self.set_colors(colors)

    # ------------------------------------------------------------------ API
    def set_colors(self, colors: ChartColors) -> None:
        """Light or dark (``theme.chart_colors``): everything drawn so far and after."""
        self.colors = colors
        self._pool.recolor(colors)
        self.panel.setBackground(colors.background)
        for plot in self.plots.values():
            recolor_plot(plot, colors)
        self.underflow.set_colors(colors)
        self._warmup_region.setBrush(pg.mkBrush(colors.band))
        self._warmup_region.label.setColor(colors.muted)
        self._no_scaling.setColor(colors.muted)
        self.readout.setStyleSheet(
            f"color: {colors.axis}; background: {colors.background};"
            f" border-top: 1px solid {colors.rule}; padding: 3px 8px;")
        self.empty.setStyleSheet(f"color: {colors.axis}; background: {colors.background};"
                                 " padding: 24px; font-size: 14px;")

    def add_events(self, events: Sequence[object]) -> None:
        """Buffer engine events; the next timer tick draws them."""
        self._data.add_events(events)
        if self._data.dirty:
            self._start_timer()

    def clear(self) -> None:
        """Forget every run (a new run starts from empty charts)."""
        self._timer.stop()
        self.hover.stop()
        self.hover.hide()
        self._show_empty(True)  # first: nothing below is laid out or painted while hidden
        self._pool.clear()
        for series in self._keys_shown:
            self.plots[CHART_OF[series].name].legend.park([self._keys[series]])
        self._keys_shown.clear()
        self._data.clear()
        self._data.dirty = False
        self._warmup_region.hide()
        self._no_scaling.hide()
        self.underflow.hide()
        self._ranges.reset()
        self.empty.setText(tr(STARTING_TEXT))
        self._starting = True

    def finish(self) -> None:
        """The run ended: draw what is left, fit the step axis to it, stop the timer."""
        self._timer.stop()
        self._redraw(fit=True)

    def point_counts(self) -> dict[str, dict[str, int]]:
        """Series name -> run label -> points handed to the chart at the last redraw."""
        return {s: {label: it.counts[s] for label, it in self._items.items()} for s in SERIES}

    def points_held(self) -> int:
        """Points in every buffer (bounded however long the run)."""
        return self._data.points_held()

    @property
    def underflow_shown(self) -> bool:
        """Whether the gradient-underflow chart is on screen (a run sampled it)."""
        return self.underflow.shown

    def save(self, path: str | Path) -> None:
        """The charts as .png (as on screen) or .svg (vectors); ValueError otherwise."""
        chart_export.check_suffix(path)
        self._redraw()  # what was buffered is in the picture
        self.hover.hide()  # the crosshair is for the screen, not for a report
        chart_export.save_widget(self.panel, path)

    # -------------------------------------------------------------- drawing
    def _runs(self) -> list[RunCurves]:
        return list(self._data.runs.values())

    def _series_visible(self, label: str, series: str) -> bool:
        items = self._items.get(label)
        return items is not None and items.visible(series)

    def _on_legend_clicked(self, chart: str, curve: object) -> None:
        """A run's legend entry hides its main curve; its other series on the chart follow.
        The underflow chart's entries name one line each: each hides only its own."""
        if CHART[chart].main.legend == "line":
            return
        for items in self._items.values():
            if items.owns(curve):
                items.show_chart(chart, curve.isVisible())  # type: ignore[attr-defined]

    def _start_timer(self) -> None:
        if self.isVisible() and not self._timer.isActive():
            self._timer.start()

    def _on_tick(self) -> None:
        if not self._data.dirty:
            self._timer.stop()  # idle until the next events
            return
        # A new run costs three frames' worth of work: its curves and legend entries,
        # then the axes laid out for its ranges, then its points. One per tick, so no
        # tick is a long stall; the points come two ticks (80 ms) later. Until a run has
        # a point the charts stay hidden: empty axes would keep the last runs' ranges.
        if self._add_new_runs():
            self._settling = True
            return
        if self.empty.isVisible():
            if self._data.points_held():
                self._settling = False
                self._update_annotations()
                self._update_ranges()
                self._show_empty(False)
            else:
                self._data.dirty = False  # a run started, no step yet: nothing to draw
            return
        if self._settling:
            self._settling = False
            self._update_annotations()
            self._update_ranges()
            return
        self._redraw()

    def _add_new_runs(self) -> bool:
        """Curves for the runs that have none yet (reused where a cleared run left some);
        True when there were such runs."""
        runs = self._data.runs
        if not self._pool.missing(runs):
            self._pool.follow(runs)  # a run replaced under its label: redrawn from it
            return False
        # Their entries, and the texts that change with them ("(no loss scaling)"), then
        # one layout of each legend: each layout can move every chart's axes.
        self._hold_legends(True)
        self._pool.follow(runs)
        self._update_annotations()
        self._hold_legends(False)
        return True

    def _hold_legends(self, hold: bool) -> None:
        for plot in self.plots.values():
            if hold:
                plot.header.hold()
            else:
                plot.header.release()
        if not hold and self.panel.isVisible():
            # A legend that grew a row changes its plot's title row, and the grid's rows
            # follow only a layout pass later: left to Qt that is two passes, each moving
            # every axis and repainting every chart. Both now, one paint after them.
            for plot in self.plots.values():
                plot.layout.activate()
            self.panel.ci.layout.activate()

    def _show_empty(self, empty: bool) -> None:
        """The note instead of the charts, or the charts. While they are hidden their
        legends are held: a run's start changes every entry, laid out once when shown."""
        if empty and not self._hidden_hold:
            self._hidden_hold = True
            self._hold_legends(True)
        self.empty.setVisible(empty)
        self.panel.setVisible(not empty)
        self.readout.setVisible(not empty)
        if not empty and self._hidden_hold:
            self._hidden_hold = False
            self._hold_legends(False)

    def _redraw(self, fit: bool = False) -> None:
        """Every changed buffer to its curve; ``fit``: the step axis to the data."""
        self._add_new_runs()
        self._settling = False
        self._data.dirty = False
        for label, run in self._data.runs.items():
            self._items[label].update(run)
        self._update_annotations()
        self._update_ranges(fit)
        if self.empty.isVisible() and self._data.points_held():
            self._show_empty(False)
        elif self._starting and fit and not self._data.points_held():
            self.empty.setText(tr(NO_STEP_TEXT))  # it ended (a Stop, a failure) before one
        self._starting = self._starting and not self._data.points_held()
        self.redraws += 1
        self.redrawn.emit()

    def _update_ranges(self, fit: bool = False) -> bool:
        """Ranges follow the buffered data (drawn or not yet); True when one moved."""
        last, total = self._data.last_step(), self._data.total_steps()
        return self._ranges.update(last, total, self._y_bounds(), exact=fit)

    def _y_bounds(self) -> dict[str, tuple[float, float] | None]:
        """Chart name -> (low, high) of what it shows of the runs not hidden (as drawn:
        log2 on a log2 axis); a percent chart places its own range."""
        out: dict[str, tuple[float, float] | None] = {}
        for chart in CHARTS:
            if chart.axis == "percent":
                continue
            found = [bounds for label, run in self._data.runs.items() for series in chart.series
                     if self._series_visible(label, series.name)
                     and (bounds := run.buffers[series.name].bounds()) is not None]
            low = min((b[0] for b in found), default=None)
            high = max((b[1] for b in found), default=None)
            if low is None or high is None or (chart.axis == "log2" and low <= 0):
                out[chart.name] = None
            elif chart.axis == "log2":
                out[chart.name] = (math.log2(low), math.log2(high))
            else:
                out[chart.name] = (low, high)
        return out

    def _update_annotations(self) -> None:
        runs = self._runs()
        for series, key in self._keys.items():
            if series not in self._keys_shown and any(len(r.buffers[series]) for r in runs):
                legend, text = self.plots[CHART_OF[series].name].legend, _(
                    SERIES[series].legend_name)
                if not legend.unpark(key, text):
                    legend.addItem(key, text)
                self._keys_shown.add(series)
        self.underflow.update(self._data, self._ranges.following_y["underflow"])
        span = self._data.warmup_span()
        if span is not None:
            self._warmup_region.setRegion(span)
            self._warmup_region.show()
        scaling = {run.label: run.loss_scaling for run in runs}
        unscaled = [label for label, s in scaling.items() if s is False]
        for label in scaling:
            note = (tr(NO_SCALING_MARK) if label in unscaled and len(unscaled) < len(runs)
                    else "")
            self._items[label].set_legend_text(CHART_OF["loss_scale"].name,
                                               shown_label(label) + note)
        if unscaled and len(unscaled) == len(runs):
            text = tr(NO_SCALING_ONE if len(runs) == 1 else NO_SCALING_ALL)
            if self._no_scaling.textItem.toPlainText() != text:
                self._no_scaling.setText(text)
            self._no_scaling.show()
        else:
            self._no_scaling.hide()

    # ---------------------------------------------------------------- Qt
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._follow_palette()  # a theme turned while hidden
        if self._data.dirty:
            self._start_timer()

    def hideEvent(self, event: QHideEvent) -> None:
        self._timer.stop()  # nothing to see: buffers keep filling, a show redraws
        self._palette_timer.stop()  # the show follows the palette
        self.hover.stop()
        super().hideEvent(event)

    def leaveEvent(self, event) -> None:
        self.hover.hide()
        super().leaveEvent(event)


if __name__ == "__main__":  # made-up data, to look at: python -m mpstudio.ui.charts.live_charts
    from PySide6.QtWidgets import QApplication

    from devtools.chart_demo import comparison_events

    app = QApplication(sys.argv)
    charts = LiveCharts()
    charts.resize(1100, 650)
    charts.show()
    charts.add_events(comparison_events())
    charts.finish()
    sys.exit(app.exec())
