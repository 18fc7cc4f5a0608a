"""The setup panel's layer table at 1280x720 and 1366x768, in English and Chinese: every
column it shows is in view with its header whole (font metrics), the dtypes whole, long
layer names elided with the whole name in the tip; the type and parameter columns are
shown from the header's menu, and the table then scrolls sideways (only then).

Six columns side by side cut "variables" and "params" off at the panel's edge."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMenu

from mpstudio.ui.setup.layer_columns import COMPUTE, NAME, PARAMS, TENSOR_CORES, TYPE, VARIABLES

from support.gui_helpers import bare_window

SIZES = [(1280, 720), (1366, 768)]
HEADER_MARGIN = 8  # a header's text needs this much beside it (as the card's test)


@pytest.fixture(scope="module")
def summaries():
    """Real previews under mixed_float16 at batch 100: resnet's names are the longest of
    the templates, and its stem and logits miss Tensor Cores (a note column)."""
    from mpstudio.engine.model_summary import describe_model
    from mpstudio.engine.templates.registry import build_model

    return {template: describe_model(build_model(template, (32, 32, 3), 10, "mixed_float16"),
                                     "mixed_float16", 100)
            for template in ("resnet", "transformer")}


def _shown(table) -> list[int]:
    return [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]


def _check_in_view(qtbot, window, summary, template: str) -> None:
    layers = window.setup.layers
    layers.show_summary(summary, template)
    table = layers.table
    header = table.horizontalHeader()
    qtbot.waitUntil(lambda: header.length() <= table.viewport().width())
    assert table.horizontalScrollBar().maximum() == 0  # no sideways scrolling
    assert _shown(table) == [NAME, COMPUTE, VARIABLES, TENSOR_CORES]
    metrics = header.fontMetrics()
    for column in _shown(table):
        text = table.horizontalHeaderItem(column).text()
        width = metrics.horizontalAdvance(text) + HEADER_MARGIN
        assert width <= header.sectionSize(column), (text, header.sectionSize(column))
        assert table.horizontalHeaderItem(column).toolTip()  # what the column means
    cells = table.fontMetrics()
    for row, layer in enumerate(summary.layers):
        for column in (COMPUTE, VARIABLES):  # the dtypes, the table's point, whole
            text = table.item(row, column).text()
            assert cells.horizontalAdvance(text) + HEADER_MARGIN <= header.sectionSize(column)
        tip = table.item(row, NAME).toolTip()
        assert layer.name in tip and layer.kind in tip and f"{layer.params:,}" in tip


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_column_shown_is_in_view_with_its_header_whole(qtbot, tmp_path, size,
                                                             summaries):
    window = bare_window(qtbot, tmp_path / "window.ini", size)
    for template, summary in summaries.items():
        _check_in_view(qtbot, window, summary, template)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_in_chinese_too(qtbot, tmp_path, size, summaries, chinese):
    window = bare_window(qtbot, tmp_path / "window.ini", size)
    for template, summary in summaries.items():
        _check_in_view(qtbot, window, summary, template)


def test_the_details_are_shown_from_the_header_menu(qtbot, tmp_path, summaries):
    window = bare_window(qtbot, tmp_path / "window.ini", SIZES[0])
    layers = window.setup.layers
    layers.show_summary(summaries["resnet"], "resnet")
    table = layers.table
    header = table.horizontalHeader()
    header.customContextMenuRequested.emit(header.rect().center())
    menu = table.findChild(QMenu, "layerColumnsMenu")
    actions = {a.text(): a for a in menu.actions()}
    assert set(actions) == {"type", "compute", "variables", "params"}
    assert not actions["type"].isChecked() and actions["compute"].isChecked()
    actions["type"].trigger()
    actions["params"].trigger()
    menu.close()
    assert _shown(table) == [NAME, TYPE, COMPUTE, VARIABLES, PARAMS, TENSOR_CORES]
    metrics = header.fontMetrics()
    for column in _shown(table):  # too wide for the panel now: it scrolls, nothing is cut
        text = table.horizontalHeaderItem(column).text()
        assert metrics.horizontalAdvance(text) + HEADER_MARGIN <= header.sectionSize(column)
    kinds = table.fontMetrics()
    assert all(kinds.horizontalAdvance(layer.kind) <= header.sectionSize(TYPE)
               for layer in summaries["resnet"].layers)
    qtbot.waitUntil(lambda: table.horizontalScrollBar().maximum() > 0)
