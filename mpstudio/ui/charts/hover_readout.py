"""Values under the mouse: a crosshair on every chart and a one-line text readout.

Mouse moves arrive far faster than anyone reads; they are throttled to about 30
updates a second by a single-shot timer (the first move is shown at once, the
latest one when the timer runs out). Finding the nearest point is a binary
search on a buffer's x, so hovering costs the same at a hundred points or a
hundred thousand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QPointF, Qt, QTimer
from PySide6.QtWidgets import QLabel

from mpstudio.engine.charts.chart_specs import CHART
from mpstudio.engine.i18n import _
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.charts.run_curves import RunCurves

HINT = QT_TRANSLATE_NOOP("HoverReadout", "Hover a chart to read its values.")
THROTTLE_MS = 33  # about 30 readouts a second
SNAP_PX = 12  # a secondary point (validation, warm-up, overflow) this close is shown too

def tr(text: str) -> str:
    """A HoverReadout string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("HoverReadout", text)


def nearest_index(x: np.ndarray, at: float) -> int | None:
    """Index of the point of sorted ``x`` nearest to ``at`` (O(log n))."""
    if not len(x):
        return None
    i = int(np.searchsorted(x, at))
    if i == len(x) or (i > 0 and at - x[i - 1] <= x[i] - at):
        i -= 1
    return i


def readout(
    chart: str,
    runs: Sequence[RunCurves],
    at: float,
    tolerance: float,
    visible: Callable[[str, str], bool] = lambda label, series: True,
) -> tuple[float | None, str]:
    """(the step the readout snapped to, its text) for the mouse at step ``at``.

    Each run shows its visible series with a point within ``tolerance`` of ``at``, or
    else its one nearest point; a point at another step than the first one says which."""
    snapped: float | None = None
    parts: list[str] = []
    for run in runs:
        found = []  # (distance, series spec, x, y)
        for spec in CHART[chart].series:
            if not visible(run.label, spec.name):
                continue  # hidden from its legend
            x, y = run.buffers[spec.name].view()
            i = nearest_index(x, at)
            if i is not None:
                found.append((abs(float(x[i]) - at), spec, float(x[i]), float(y[i])))
        if not found:
            continue
        close = [f for f in found if f[0] <= tolerance] or [min(found, key=lambda f: f[0])]
        if snapped is None:
            snapped = close[0][2]
        values = []
        for _distance, spec, x_value, y_value in close:
            where = "" if x_value == snapped else QCoreApplication.translate(
                "HoverReadout", " @ step {step}").format(step=f"{x_value:.0f}")
            values.append(f"{_(spec.readout_name)} {spec.text(y_value)}{where}")
        parts.append(f"{shown_label(run.label)} "
                     + QCoreApplication.translate("HoverReadout", ", ").join(values))
    if snapped is None:
        return None, ""
    step = QCoreApplication.translate("HoverReadout", "step {step}").format(
        step=f"{snapped:.0f}")
    return snapped, " · ".join([step, *parts])


class HoverReadout(QObject):
    """Crosshairs on ``plots`` and the readout in ``label``, following the mouse."""

    def __init__(
        self,
        panel: pg.GraphicsLayoutWidget,
        plots: dict[str, pg.PlotItem],
        runs: Callable[[], Sequence[RunCurves]],
        label: QLabel,
        visible: Callable[[str, str], bool] = lambda label, series: True,
    ) -> None:
        super().__init__(panel)
        self._plots = plots
        self._runs = runs
        self._visible = visible  # (run label, series) -> drawn
        self._label = label
        self._pending: QPointF | None = None
        self._crosshairs: dict[str, pg.InfiniteLine] = {}
        for name, plot in plots.items():
            line = pg.InfiniteLine(
                angle=90, movable=False,
                pen=pg.mkPen("#9a9a9a", width=1, style=Qt.PenStyle.DotLine),
            )
            line.setZValue(5)
            line.hide()
            plot.addItem(line, ignoreBounds=True)
            self._crosshairs[name] = line
        self._timer = QTimer(self)
        self._timer.setObjectName("LiveCharts.hoverThrottle")
        self._timer.setSingleShot(True)
        self._timer.setInterval(THROTTLE_MS)
        self._timer.timeout.connect(self._on_timeout)
        panel.scene().sigMouseMoved.connect(self._on_mouse_moved)
        label.setText(tr(HINT))

    def show_at(self, scene_pos: QPointF) -> str:
        """Show the readout for the mouse at ``scene_pos``; returns the text shown."""
        chart = next(
            (name for name, plot in self._plots.items()
             if plot.isVisible() and plot.getViewBox().sceneBoundingRect().contains(scene_pos)),
            None,
        )
        if chart is None:
            self.hide()
            return ""
        view = self._plots[chart].getViewBox()
        at = view.mapSceneToView(scene_pos).x()
        tolerance = SNAP_PX * abs(view.viewPixelSize()[0])
        snapped, text = readout(chart, self._runs(), at, tolerance, self._visible)
        if snapped is None:
            self.hide()
            return ""
        for line in self._crosshairs.values():  # the step axis is shared: mark it everywhere
            line.setPos(snapped)
            line.show()
        self._label.setText(text)
        return text

    def hide(self) -> None:
        for line in self._crosshairs.values():
            line.hide()
        self._label.setText(tr(HINT))

    def stop(self) -> None:
        """No pending readout, no running timer (the widget is hidden or cleared)."""
        self._timer.stop()
        self._pending = None

    # ------------------------------------------------------------ throttle
    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        if self._timer.isActive():
            self._pending = QPointF(scene_pos)  # shown when the timer runs out
            return
        self.show_at(scene_pos)
        self._timer.start()

    def _on_timeout(self) -> None:
        if self._pending is not None:
            pos, self._pending = self._pending, None
            self.show_at(pos)
            self._timer.start()  # keep throttling while the mouse keeps moving
