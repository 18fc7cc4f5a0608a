"""A chart's title row: its title, and a legend that always fits beside or under it.

pyqtgraph anchors a legend to a corner and lets it grow leftwards: with two runs'
names at the width of a chart beside the Comparison dock it ran over the title,
past the plot's left edge and into its neighbour ("float32 basefloat32 baseline").
This legend lays itself out instead: in the title row, right-aligned, when every
entry fits there in one row; otherwise in as many columns as fit the plot's width,
under the title, with the title row grown to hold it. It never covers a curve.
Its size comes from its entries' text, not from pyqtgraph's running layout.
It lays itself out only when what it depends on changed (the plot's width, the
entries' texts), and not at all while held (``hold``: a run's start changes all
entries; one layout when it is released).

The title is drawn here too, outside the plot's layout: pyqtgraph's title label makes
its text width a minimum of the grid column, so a long title (even the hidden
underflow chart's) made one column of charts wider than the other.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from mpstudio.ui.charts.legend_entries import ReusableLegend

TITLE_HEIGHT = 24.0  # the title row without a legend under it (pyqtgraph's is 30)
GAP = 12.0  # between the title's text and a legend beside it
RIGHT = 6.0  # the legend's distance from the plot's right edge
SAMPLE_WIDTH = 20.0  # pyqtgraph's ItemSample is 20 x 20
SPACING = 6.0  # between a sample and its text, and between columns


class FittedLegend(ReusableLegend):
    """Place with ``fit``; it refits by itself when entries come, go or change text
    and when its plot resizes."""

    def __init__(self, plot: pg.PlotItem, title: str, title_font: QFont, text_size: str,
                 text_color: str) -> None:
        super().__init__(offset=None, colCount=1, labelTextSize=text_size,
                         labelTextColor=text_color, frame=False, horSpacing=SPACING,
                         verSpacing=-4)
        self._plot = plot
        self._fitting = False
        self._holds = 0  # hold() calls not yet released
        self._laid_out: tuple | None = None  # what the last layout was made for
        self._title_row = -1.0
        self.layout.setContentsMargins(0, 0, 0, 0)  # the grid width below is all of it
        self.setParentItem(plot)
        plot.setTitle(None)  # pyqtgraph's own title row: see the module docstring
        self._title_text = title
        self.title = QGraphicsSimpleTextItem(title, plot)
        self.title.setFont(title_font)
        self.title.setBrush(QColor(text_color))
        plot.geometryChanged.connect(self.fit)
        self.fit()

    def set_text_color(self, color: str) -> None:
        self.title.setBrush(QColor(color))
        self.setLabelTextColor(color)  # pyqtgraph keeps it for the next entries only...
        for _, label in self.items:
            label.setText(label.text)  # ... so the ones shown are drawn again
        self.recolor_parked(color)  # and the others when they come back
        self._laid_out = None
        self.fit()

    def updateSize(self) -> None:  # pyqtgraph calls this after every change of entries
        self.fit()

    def relabel(self, label: pg.LabelItem, text: str) -> None:
        label.setText(text)
        self.fit()

    def entry_widths(self) -> list[float]:
        return [SAMPLE_WIDTH + SPACING + label.itemRect().width() for _, label in self.items]

    def hold(self) -> None:
        """No layout until as many ``release`` calls (entries are about to change, several
        times: it is laid out once, for the end result)."""
        self._holds += 1

    def release(self) -> None:
        self._holds = max(0, self._holds - 1)
        self.fit()

    def fit(self) -> None:
        if self._fitting or self._holds:
            return  # setColumnCount below calls updateSize again
        plot = self._plot
        key = (plot.width(), plot.getAxis("left").geometry().right(), self._title_text,
               tuple(label.text for _, label in self.items))
        if key == self._laid_out:
            return  # a move, or a resize that left the width alone: nothing to redo
        self._laid_out = key
        self._fitting = True
        try:
            self._fit()
        finally:
            self._fitting = False

    def _fit(self) -> None:
        plot = self._plot
        left = plot.getAxis("left").geometry().right()  # the title starts over the view
        room = plot.width() - RIGHT - left
        self._place_title(left, room)
        if not self.items:
            self._place(QRectF(0, 0, 0, 0), TITLE_HEIGHT)
            return
        self._wrap_labels(room - SAMPLE_WIDTH - SPACING)
        widths = self.entry_widths()
        title_end = left + self.title.boundingRect().width() + GAP
        one_row = grid_width(widths, len(widths))
        if title_end + one_row <= plot.width() - RIGHT:  # beside the title
            columns, x, y = len(widths), plot.width() - RIGHT - one_row, 0.0
        else:  # under it, in as many columns as fit
            columns = columns_that_fit(widths, room)
            x, y = left, TITLE_HEIGHT - 4
        if columns != self.columnCount:
            self.setColumnCount(columns)
        heights = [max(SAMPLE_WIDTH, label.itemRect().height()) for _, label in self.items]
        rows = [max(heights[i:i + columns]) for i in range(0, len(heights), columns)]
        height = sum(rows) + self.layout.verticalSpacing() * (len(rows) - 1)
        self._place(QRectF(x, y, grid_width(widths, columns), height),
                    max(TITLE_HEIGHT, y + height + 2))

    def _place(self, rect: QRectF, title_row: float) -> None:
        """Only what changed: a new row height lays the whole plot out again, and this
        runs on every resize of the plot."""
        if self.geometry() != rect:
            self.setGeometry(rect)
        if title_row != self._title_row:
            self._title_row = title_row
            self._plot.layout.setRowFixedHeight(0, title_row)

    def _place_title(self, left: float, room: float) -> None:
        """The title at the view's left edge; cut with an ellipsis where the plot is
        narrower (its tooltip has it whole)."""
        metrics = QFontMetricsF(self.title.font())
        shown = metrics.elidedText(self._title_text, Qt.TextElideMode.ElideRight, room)
        if shown != self.title.text():
            self.title.setText(shown)
            self.title.setToolTip(self._title_text if shown != self._title_text else "")
        self.title.setPos(left, (TITLE_HEIGHT - self.title.boundingRect().height()) / 2)

    def _wrap_labels(self, room: float) -> None:
        """An entry's text wider than ``room`` wraps to lines of that width."""
        for _, label in self.items:
            text = label.item
            text.setTextWidth(-1)
            if text.boundingRect().width() > room:
                text.setTextWidth(max(room, 40.0))
            label.updateMin()


def grid_width(widths: list[float], columns: int) -> float:
    """Entries laid out row by row in ``columns`` columns, each as wide as its widest."""
    column_widths = [max(widths[c::columns]) for c in range(columns)]
    return sum(column_widths) + SPACING * (columns - 1)


def columns_that_fit(widths: list[float], room: float) -> int:
    """The most columns whose grid fits ``room`` (at least one)."""
    for columns in range(len(widths), 1, -1):
        if grid_width(widths, columns) <= room:
            return columns
    return 1
