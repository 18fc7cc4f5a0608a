"""The comparison card's figures table, sized by the card itself: each column's width
from the table's width alone, the sides' headers on as few lines as their columns hold,
and the table's height at any set of widths worked out from the heights Qt's delegate
gives its cells (what resizeRowsToContents would make them), so the card can choose
its verdict column's width without laying out and looking."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyleOptionViewItem, QTableWidget

from mpstudio.engine.comparison.card import Side
from mpstudio.engine.comparison.card_text import side_heading
from mpstudio.engine.run_labels import shown_label

COLUMNS = 4  # figure, float32 side, mixed side, change
HEADER_PAD = 16  # px: a header's text from its section's edges (its sort mark's room)
# A CJK character with an opening bracket before it and closing punctuation after it, or
# a run of anything else but spaces.
_CJK = "\u3400-\u9fff\uf900-\ufaff"
_PIECE = re.compile(f"[（“《]*[{_CJK}][）”》，。：；、！？]*|[^\\s{_CJK}（“《）”》，。：；、！？]+")


def unbreakable(text: str) -> list[str]:
    """The pieces of ``text`` a line never breaks inside: its words, and in Chinese each
    character (with the punctuation that must not start or end a line beside it)."""
    return _PIECE.findall(text)


def side_words(side: Side) -> list[str]:
    """"float32 baseline (#1, #3)" as "float32", "baseline" and "(#1, #3)" (its words in
    the window's language, the runs' ids last): the pieces of a side's header, which
    never break inside."""
    label, ids = side_heading(side).rsplit(" (", 1)
    return [*shown_label(label.split(" · ")[0]).split(), f"({ids}"]


def side_header(words: list[str], width: int, metrics: QFontMetrics) -> str:
    """A side's header in a column ``width`` wide: its words on as few lines as fit
    ("float32 baseline"; one word a line in a narrow column), then its runs' ids on a
    line of their own."""
    lines: list[str] = []
    for word in words[:-1]:
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and metrics.horizontalAdvance(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(word)
    return "\n".join([*lines, words[-1]])


def header_labels(table: QTableWidget) -> list[str]:
    """The header texts, column by column."""
    return [item.text() if (item := table.horizontalHeaderItem(c)) else ""
            for c in range(COLUMNS)]


def column_widths(room: int, natural: list[int], least: tuple[int, int]) -> list[int]:
    """The four columns' widths in a table whose view is ``room`` wide: the Change
    column as wide as its widest line, the figure names on one line where they fit
    beside the sides at their narrowest (else they wrap, never mid-word; at 1280x720
    the Change column was off the edge), the two sides sharing the rest, never
    narrower than ``least`` has them. A page too narrow for that scrolls the table
    sideways, while the verdict above keeps wrapping to its width."""
    side, word = least
    change = natural[3]
    names_room = room - 2 * side - change
    names = natural[0] if names_room >= natural[0] else max(word, names_room)
    rest = room - names - change
    return [names, max(side, rest // 2), max(side, rest - rest // 2), change]


class CardTableFit:
    """The measurements of ``table`` (the card's figures) for the card's layout."""

    def __init__(self, table: QTableWidget) -> None:
        self.table = table
        self.side_words: list[list[str]] = [[""], [""]]  # the two sides' header words

    def widest_number(self, column: int) -> int:
        """The widest one-line cell of ``column`` (figures, not the wrapping loss gap)."""
        metrics = self.table.fontMetrics()
        widths = [metrics.horizontalAdvance(item.text()) + 12
                  for r in range(self.table.rowCount())
                  if (item := self.table.item(r, column)) and " " not in item.text().strip()]
        return max(widths, default=0)

    def side_headers(self, widths: list[int]) -> list[str]:
        """The two sides' headers in columns of these widths."""
        metrics = self.table.horizontalHeader().fontMetrics()
        return [side_header(words, widths[c] - HEADER_PAD, metrics)
                for c, words in zip((1, 2), self.side_words, strict=True)]

    def natural_widths(self) -> list[int]:
        """Each column's width with no cell wrapped (a cell's own lines, each on one line),
        as Qt's ResizeToContents measures an unwrapped column."""
        table = self.table
        header = table.horizontalHeader()
        option = QStyleOptionViewItem()
        table.initViewItemOption(option)
        option.rect = QRect()  # no height: the delegate measures the text unwrapped
        delegate, model = table.itemDelegate(), table.model()
        grid = int(table.showGrid())
        return [max(header.sectionSizeHint(c), *(
            delegate.sizeHint(option, model.index(r, c)).width() + grid
            for r in range(table.rowCount()))) for c in range(COLUMNS)]

    def least_widths(self) -> tuple[int, int]:
        """The narrowest a side column may be: its headers' widest word (a narrow dock
        clipped "float32 baseline" to "oat32 baselin") and its numbers; and the figure
        names' column: their widest piece that never breaks (a word; a Chinese character
        with its punctuation)."""
        metrics = self.table.horizontalHeader().fontMetrics()
        side = max(metrics.horizontalAdvance(word) for words in self.side_words
                   for word in words)
        side = max(side + HEADER_PAD, *(self.widest_number(c) for c in (1, 2)))
        metrics = self.table.fontMetrics()
        names = max((metrics.horizontalAdvance(w) for r in range(self.table.rowCount())
                     if (item := self.table.item(r, 0))
                     for w in unbreakable(item.text())), default=0) + 16
        return side, names

    def table_height(self, widths: list[int], room: int,
                      cells: dict[tuple[int, int, int], int] | None = None) -> int:
        """The table's height with these columns' widths in a view ``room`` wide: what
        fit_height would make it, each row as tall as Qt's resizeRowsToContents makes it
        (the delegate's height for each cell at its column's width, the grid line; at
        least the row header's height). ``cells`` keeps the cells' heights measured at
        a width for the next call."""
        cells = {} if cells is None else cells
        table = self.table
        rows = table.verticalHeader()
        option = QStyleOptionViewItem()
        table.initViewItemOption(option)
        delegate, model = table.itemDelegate(), table.model()
        grid = int(table.showGrid())
        height = self.header_height(widths) + 2 * table.frameWidth()
        for r in range(table.rowCount()):
            if (least := cells.get((r, -1, 0))) is None:
                least = cells[(r, -1, 0)] = max(rows.sectionSizeHint(r),
                                                rows.minimumSectionSize())
            row = least
            for c, width in enumerate(widths):
                if (cell := cells.get((r, c, width))) is None:
                    option.rect = QRect(0, 0, width - grid, 1)  # a height: wrapped at the width
                    cell = cells[(r, c, width)] = delegate.sizeHint(
                        option, model.index(r, c)).height() + grid
                row = max(row, cell)
            height += row
        if sum(widths) > room:
            height += table.horizontalScrollBar().sizeHint().height()
        return height

    def header_height(self, widths: list[int]) -> int:
        """The header's height with the sides' headers as these widths have them: its
        height now, less its tallest label's text, plus the tallest it would have."""
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        labels = header_labels(self.table)

        def tallest(texts: list[str]) -> int:
            return max(metrics.boundingRect(QRect(0, 0, 100_000, 100_000), 0, text).height()
                       for text in texts)

        now = max(header.minimumHeight(), header.sizeHint().height())
        return now - tallest(labels) + tallest([labels[0], *self.side_headers(widths),
                                                labels[3]])
