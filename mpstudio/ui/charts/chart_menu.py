"""The charts' right-click menu, in the window's language.

pyqtgraph's own menu had three parts: the view's (View All, the X and Y axis ranges,
the mouse mode), "Plot Options" (FFT, log axes, derivatives: transforms that make no
sense on these charts and broke their step and log2 axes) and "Export...", a dialog
of pyqtgraph's whose item tree and options are English and cannot be translated. The
view's part stays, translated (below); Plot Options goes; Export becomes two actions of
ours: save the charts (PNG or SVG, as File > Save charts does) and save the data of the
chart under the mouse as CSV.

pyqtgraph looks its menu texts up with ``QCoreApplication.translate`` in its own
contexts ("ViewBox", and "Form" for the axis panels), so they are marked here in those
contexts: our catalog then carries their translations (the exception to one context
per module).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from mpstudio.engine.charts.chart_specs import CHART
from mpstudio.engine.report.files import ReportError, atomic_write_text
from mpstudio.ui.charts.run_curves import RunCurves

# pyqtgraph's view menu (graphicsItems/ViewBox/ViewBoxMenu.py, axisCtrlTemplate_generic.py)
PYQTGRAPH_TEXTS = (
    QT_TRANSLATE_NOOP("ViewBox", "ViewBox options"),
    QT_TRANSLATE_NOOP("ViewBox", "View All"),
    QT_TRANSLATE_NOOP("ViewBox", "axis"),  # after "X" and "Y"
    QT_TRANSLATE_NOOP("ViewBox", "Mouse Mode"),
    QT_TRANSLATE_NOOP("ViewBox", "3 button"),
    QT_TRANSLATE_NOOP("ViewBox", "1 button"),
    QT_TRANSLATE_NOOP("Form", "PyQtGraph"),
    QT_TRANSLATE_NOOP("Form", "Link Axis:"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Links this axis with another view. "
                              "When linked, both views will display the same data range."
                              "</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Percent of data to be visible when "
                              "auto-scaling. It may be useful to decrease this value for "
                              "data with spiky noise.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Automatically resize this axis "
                              "whenever the displayed data is changed.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Auto"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Set the range for this axis manually. "
                              "This disables automatic scaling. </p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Manual"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Minimum value to display for this "
                              "axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Maximum value to display for this "
                              "axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Inverts the display of this axis. "
                              "(+y points downward instead of upward)</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Invert Axis"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Enables mouse interaction (panning, "
                              "scaling) for this axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Mouse Enabled"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>When checked, the axis will only "
                              "auto-scale to data that is visible along the orthogonal "
                              "axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Visible Data Only"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>When checked, the axis will "
                              "automatically pan to center on the current data, but the "
                              "scale along this axis will not change.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Auto Pan Only"),
)

CHART_FILTER = QT_TRANSLATE_NOOP("ChartMenu", "PNG image (*.png);;SVG image (*.svg)")
CSV_FILTER = QT_TRANSLATE_NOOP("ChartMenu", "CSV table (*.csv)")
CSV_COLUMNS = ("run", "series", "step", "value")  # a file for programs: keys, not words


def tr(text: str) -> str:
    """A ChartMenu string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("ChartMenu", text)


def chart_series(chart: str) -> tuple[str, ...]:
    """The series a chart draws, in the chart table's order."""
    return tuple(series.name for series in CHART[chart].series)


def write_csv(path: str | Path, chart: str, runs: list[RunCurves]) -> int:
    """The points ``chart`` holds of each run (a long run's are combined, as drawn), one
    row each: run label, series, step, value. Written whole or not at all (ReportError:
    why not); returns the rows written."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(CSV_COLUMNS)
    rows = 0
    for run in runs:
        for series in chart_series(chart):
            xs, ys = run.buffers[series].view()
            for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
                writer.writerow((run.label, series, f"{x:g}", repr(y)))
                rows += 1
    atomic_write_text(path, text.getvalue(), newline="")
    return rows


class ChartMenu(QObject):
    """Replaces pyqtgraph's Plot Options and Export in the menu of ``plots``."""

    def __init__(self, parent: QWidget, panel: pg.GraphicsLayoutWidget,
                 plots: dict[str, pg.PlotItem], save: Callable[[str], None],
                 runs: Callable[[], list[RunCurves]]) -> None:
        super().__init__(parent)
        self._parent, self._plots, self._save, self._runs = parent, plots, save, runs
        self._folder = str(Path.home())
        self.scene = panel.scene()
        for plot in plots.values():
            plot.setMenuEnabled(False, enableViewBoxMenu=None)  # Plot Options: gone
        self.save_action = QAction(QCoreApplication.translate(
            "ChartMenu", "Save the charts (PNG or SVG)…"), self)
        self.csv_action = QAction(QCoreApplication.translate(
            "ChartMenu", "Save this chart's data as CSV…"), self)
        self.save_action.triggered.connect(self._save_dialog)
        self.csv_action.triggered.connect(self._csv_dialog)
        self.scene.contextMenu = [self.save_action, self.csv_action]  # was Export...

    def chart_at(self, item: object) -> str | None:
        """The chart ``item`` (the one right-clicked) belongs to."""
        while item is not None:
            for name, plot in self._plots.items():
                if item is plot:
                    return name
            item = item.parentItem() if hasattr(item, "parentItem") else None
        return None

    def _ask(self, title: str, file_filter: str, name: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self._parent, title,
                                              str(Path(self._folder) / name), file_filter)
        if path:
            self._folder = str(Path(path).parent)
        return path

    def _save_dialog(self) -> None:
        path = self._ask(QCoreApplication.translate("ChartMenu", "Save the charts"),
                         tr(CHART_FILTER), "charts.png")
        if not path:
            return
        if Path(path).suffix.lower() not in (".png", ".svg"):
            path += ".png"
        try:
            self._save(path)
        except ReportError as exc:  # names the file and what to do
            self._problem(str(exc))
        except (OSError, ValueError) as exc:
            self._problem(QCoreApplication.translate(
                "ChartMenu", "Cannot save the charts to {path}: {error}").format(
                path=path, error=exc))

    def _csv_dialog(self) -> None:
        chart = self.chart_at(getattr(self.scene, "contextMenuItem", None)) or "loss"
        path = self._ask(QCoreApplication.translate("ChartMenu", "Save the chart's data"),
                         tr(CSV_FILTER), f"{chart}.csv")
        if not path:
            return
        if Path(path).suffix.lower() != ".csv":
            path += ".csv"
        try:
            write_csv(path, chart, self._runs())
        except ReportError as exc:  # names the file and what to do
            self._problem(str(exc))

    def _problem(self, text: str) -> None:
        QMessageBox.warning(self._parent, QCoreApplication.translate("ChartMenu", "Charts"), text)
