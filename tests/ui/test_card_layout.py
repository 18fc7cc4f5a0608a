"""A comparison's card on a laptop screen: in a 1280x720 or 1366x768 window, in English
and in Chinese, the verdict, both sides' figures and the Change column read without
scrolling, nothing clipped (font metrics), and the verdict is shown once.

The window is the real one (its engine never started); the card is built from a real
history store filled with a three-trial GPU comparison that was sized for timing and
timed on a synthetic speed pair: every row the card can have, with spreads."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QStyle, QWidget

from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.comparison.verdict import Verdict
from mpstudio.engine.history.store import RunStore

from support.gui_helpers import bare_window
from support.history_runs import GPU, add_comparison

# The longest verdict a real comparison gave (a digits run: "can't tell" at its size).
LONG_VERDICT = (
    "Faster, but the accuracy cost can't be told at this size: mixed_bfloat16 ran at "
    "1.08x the speed of float32 (95% interval 1.02-1.19x over one trial's steady "
    "windows; 3 trials measure the run-to-run spread) with validation accuracy +0.00 pp "
    "(95% interval -1.00 to +1.00); the sides disagree on 0.0% of the 359 examples; an "
    "interval within +-0.5 points needs about 429 examples at that rate (a larger "
    "validation split), or a longer run whose two models disagree less.")


def _card(tmp_path):
    with RunStore(tmp_path / "h.sqlite3") as store:
        bases, mixeds = add_comparison(store, trials=3, device=GPU, base_eps=1_400.0,
                                       mixed_eps=3_000.0,
                                       peak=(1_912_602_624, 1_103_101_952),
                                       dataset="cifar10")
        card = build_card(store.side_of(bases[0]), store.side_of(mixeds[0]))
        sides = ([store.run(i) for i in bases], [store.run(i) for i in mixeds])
    card = dataclasses.replace(
        card, sized="sized by mpstudio so that each side gets about 3 s of steady time; "
        "you set 1 epoch", sized_steps=913, speed_sides=(card.baseline, card.mixed),
        dataset_speedup=card.speedup, speed_batch=8192,
        verdict=Verdict(card.verdict.kind, LONG_VERDICT))
    return card, sides


def _inside(widget: QWidget, area: QWidget) -> bool:
    """``widget`` lies wholly inside ``area``'s visible rectangle."""
    top_left = widget.mapTo(area, QPoint(0, 0))
    return (top_left.x() >= 0 and top_left.y() >= 0
            and top_left.x() + widget.width() <= area.width()
            and top_left.y() + widget.height() <= area.height())


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)], ids=["1280x720", "1366x768"])
def test_the_card_reads_without_scrolling_on_a_laptop_screen(qtbot, tmp_path, request,
                                                            size, language):
    if language == "zh_CN":
        request.getfixturevalue("chinese")
    w = bare_window(qtbot, tmp_path / "window.ini", size)
    card, sides = _card(tmp_path)
    w.history_actions.show_card(card, sides)
    view = w.card_view
    qtbot.waitUntil(lambda: not view._fit_pending)
    QApplication.processEvents()
    assert w.central_tabs.card_open  # the card in front of the charts
    page = w.central_tabs.currentWidget()  # the scroll area the card lives in
    viewport = page.viewport()
    # Nothing to scroll: the whole card is in view, and the table needs no sideways bar.
    assert page.verticalScrollBar().maximum() == 0, (size, view.sizeHint())
    table = view.table
    assert table.horizontalScrollBar().maximum() == 0
    for part in (view.heading, view.verdict, view.rule_link, table, view.export_button):
        assert part.isVisible() and _inside(part, viewport), part.objectName()
    # The verdict once: the banner above the tabs does not repeat it.
    assert view.verdict.text() == LONG_VERDICT and not w.banner.isVisible()

    # Every header line and every cell's text fits its column and row (font metrics).
    header = table.horizontalHeader()
    metrics = header.fontMetrics()
    for column, text in enumerate(view.header_labels()):
        widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
        assert widest + 8 <= header.sectionSize(column), (text, header.sectionSize(column))
    cell = table.fontMetrics()
    # an item's text rectangle: the section less the style's margin on each side
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin,
                                            None, table) + 1)
    for row in range(table.rowCount()):
        for column in range(table.columnCount()):
            item = table.item(row, column)
            text = item.text() if item else ""
            if not text:
                continue
            # the width the cell wraps its text at, and the height the wrapped text needs
            width = header.sectionSize(column) - margin
            lines = cell.boundingRect(0, 0, width, 10_000, int(item.textAlignment()) | 0x1000,
                                      text)  # 0x1000: Qt.TextWordWrap
            assert lines.width() <= width + 1, (text, width)
            assert lines.height() <= table.rowHeight(row), (text, table.rowHeight(row))
    # the Change column (the speedup, the accuracy change) lies inside the view
    right = header.sectionViewportPosition(3) + header.sectionSize(3)
    assert right <= table.viewport().width()
    w.grab().save(f"/tmp/card_{size[0]}x{size[1]}_{language}.png")
