"""A legend whose entries can be put aside and brought back, not destroyed and made anew.

A run's start removed every legend entry of the runs before and made new ones: a
sample and a label item per entry, each parented into the scene, their text laid
out, the legend laid out again after each one. That was a good part of the window's
stall when a run started. ``park`` takes an entry out of the legend but keeps its
items; ``unpark`` puts them back (with a new text if the next run has another name).
"""

from __future__ import annotations

import math

import pyqtgraph as pg


class ReusableLegend(pg.LegendItem):
    """A ``pg.LegendItem`` with ``park`` and ``unpark``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._parked: dict[object, tuple[pg.ItemSample, pg.LabelItem]] = {}
        self._faded: set[int] = set()  # parked labels whose colour changed meanwhile

    def is_parked(self, item: object) -> bool:
        return item in self._parked

    def entry(self, item: object) -> tuple[pg.ItemSample, pg.LabelItem] | None:
        """The (sample, label) of ``item``'s entry, shown or parked; None without one."""
        shown = next((e for e in self.items if e[0].item is item), None)
        return shown or self._parked.get(item)

    def park(self, items: list[object]) -> None:
        """Take the entries of ``items`` out of the legend, keeping them for ``unpark``
        (an item without an entry is left alone)."""
        taken = False
        for item in items:
            found = next((e for e in self.items if e[0].item is item), None)
            if found is None:
                continue
            self.items.remove(found)
            for part in found:
                self.layout.removeItem(part)
                part.hide()
            self._parked[item] = found
            taken = True
        if taken:
            self._repack()

    def unpark(self, item: object, text: str) -> bool:
        """``item``'s parked entry back at the end of the legend, reading ``text``; False
        when it has none parked (the caller adds one)."""
        found = self._parked.pop(item, None)
        if found is None:
            return False
        sample, label = found
        if label.text != text or id(label) in self._faded:
            self._faded.discard(id(label))
            label.setText(text)
        sample.show()
        label.show()
        self.items.append(found)
        self._addItemToLayout(sample, label)
        self.updateSize()
        return True

    def recolor_parked(self, color: str) -> None:
        """The parked labels read ``color`` once they come back (a text laid out now
        would be laid out again then, and may never be shown)."""
        for _, label in self._parked.values():
            label.setAttr("color", color)
            self._faded.add(id(label))

    def _repack(self) -> None:
        """The entries laid out again in order: a removed one leaves a hole in the grid."""
        for i in range(self.layout.count() - 1, -1, -1):
            self.layout.removeAt(i)
        self.rowCount = math.ceil(len(self.items) / self.columnCount) if self.items else 0
        for sample, label in self.items:
            self._addItemToLayout(sample, label)
        self.updateSize()
