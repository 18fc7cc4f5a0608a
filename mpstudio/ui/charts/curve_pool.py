"""The curves of the runs on the charts, by run label, made once and reused by later runs.

A run's start used to remove every curve of the runs before it and make new ones:
a pyqtgraph item per series, parented into its plot, with a legend entry each. That
cost a good part of the window's stall at every start. Here the charts' clearing
retires a run's curves (emptied, their legend entries parked) and the next run takes
them: the curves of a run of the same name, else of the same side of a comparison,
else any; new ones are made only when a run has none to take.
"""

from __future__ import annotations

import pyqtgraph as pg

from mpstudio.ui.charts.chart_items import RunItems, run_color
from mpstudio.ui.charts.run_curves import RunCurves, is_baseline
from mpstudio.ui.theme import ChartColors


class CurvePool:
    """``items``: label -> the curves of each run on the charts."""

    def __init__(self, plots: dict[str, pg.PlotItem], colors: ChartColors) -> None:
        self.items: dict[str, RunItems] = {}
        self._idle: list[RunItems] = []  # curves of runs cleared away, for the next runs
        self._plots = plots
        self.colors = colors

    def recolor(self, colors: ChartColors) -> None:
        """Each run's curves in the theme's colours for its place (a theme switch)."""
        self.colors = colors
        others = 0
        for label, items in self.items.items():
            items.recolor(run_color(items.run.baseline, others, colors))
            others += not is_baseline(label)

    def clear(self) -> None:
        """Every run's curves emptied and put aside (the charts are cleared)."""
        for items in self.items.values():
            self._retire(items)
        self.items.clear()

    def missing(self, runs: dict[str, RunCurves]) -> bool:
        """Whether a run has no curves yet."""
        return any(label not in self.items for label in runs)

    def follow(self, runs: dict[str, RunCurves]) -> None:
        """Curves for exactly ``runs``: a run's own, taken from those put aside, or new."""
        for label in [label for label in self.items if label not in runs]:
            self._retire(self.items.pop(label))
        # A label whose run was replaced (the next trial of a comparison) keeps its curves
        # and legend entries; they redraw from the new run.
        for label, items in self.items.items():
            if runs[label] is not items.run:
                items.rebind(runs[label])
        for label, run in runs.items():
            if label in self.items:
                continue
            others = sum(1 for other in self.items if not is_baseline(other))
            color = run_color(run.baseline, others, self.colors)
            taken = self._take(label, run.baseline)
            if taken is None:
                taken = RunItems(run, self._plots, color)
            else:
                taken.reuse(run, color)
            self.items[label] = taken

    def _retire(self, items: RunItems) -> None:
        items.retire()
        self._idle.append(items)

    def _take(self, label: str, baseline: bool) -> RunItems | None:
        """Idle curves for a run: those of a run of that name, else of the same side of a
        comparison (the fewest legend texts and colours to change), else any."""
        for matches in (lambda i: i.label == label, lambda i: is_baseline(i.label) == baseline,
                        lambda i: True):
            found = next((items for items in self._idle if matches(items)), None)
            if found is not None:
                self._idle.remove(found)
                return found
        return None
