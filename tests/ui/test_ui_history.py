"""The History tab and the comparison card view, over a real RunStore filled through
its API with crafted events (no TensorFlow, no training)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.comparison.card_text import card_rows, side_heading
from mpstudio.engine.comparison.verdict import rule_text
from mpstudio.engine.history.store import RunStore
from mpstudio.ui.history.comparison_card_view import PLACEHOLDER, ComparisonCardView
from mpstudio.ui.history.history_model import (
    ACCURACY,
    COLUMNS,
    SORT_ROLE,
    SPEED,
    STATUS,
    STATUS_COLOR,
    HistoryTableModel,
)
from mpstudio.ui.history.history_panel import FILTER_PLACEHOLDER, RUNNING_TIP, HistoryPanel
from mpstudio.ui.theme import colors

from support.history_runs import GPU, add_comparison, add_run, fill


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "h.sqlite3") as history:
        yield history


@pytest.fixture
def panel(qtbot) -> HistoryPanel:
    widget = HistoryPanel()
    qtbot.addWidget(widget)
    widget.resize(900, 420)
    widget.show()
    return widget


def column_texts(panel: HistoryPanel, column: int) -> list[str]:
    return [panel.proxy.index(r, column).data() for r in range(panel.proxy.rowCount())]


# ------------------------------------------------------------------ history model
def test_model_formats_text_and_sorts_numbers(store):
    ids = fill(store)
    model = HistoryTableModel()
    model.set_rows(store.runs())
    assert model.columnCount() == len(COLUMNS) == 8
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(8)] == list(COLUMNS)
    by_id = {model.row_at(model.index(r, 0)).id: r for r in range(model.rowCount())}
    mixed = by_id[ids["mixed"]]
    assert model.index(mixed, SPEED).data() == "10,000"
    assert model.index(mixed, SPEED).data(SORT_ROLE) == 10_000.0
    assert model.index(by_id[ids["slow"]], ACCURACY).data() == "93.31%"
    failed = by_id[ids["failed"]]
    assert model.index(failed, SPEED).data() == "—"
    assert model.index(failed, ACCURACY).data() == "—"
    assert model.index(failed, SPEED).data(SORT_ROLE) == -1.0  # below every real speed
    for key, status in (("failed", "failed"), ("stopped", "stopped"), ("running", "running")):
        brush = model.index(by_id[ids[key]], STATUS).data(Qt.ItemDataRole.ForegroundRole)
        assert brush.color().name() == STATUS_COLOR[status]
    assert model.index(by_id[ids["slow"]], STATUS).data(Qt.ItemDataRole.ForegroundRole) is None
    alignment = model.index(mixed, SPEED).data(Qt.ItemDataRole.TextAlignmentRole)
    assert alignment & Qt.AlignmentFlag.AlignRight.value


def test_model_shows_trials_and_comparison_in_tooltip(store):
    bases, mixeds = add_comparison(store, trials=2)
    model = HistoryTableModel()
    model.set_rows(store.runs())
    texts = {model.row_at(model.index(r, 0)).id: model.index(r, 4).data()
             for r in range(model.rowCount())}
    assert texts[bases[1]] == "float32 baseline · trial 2/2"
    assert texts[mixeds[0]] == "mixed_float16 · trial 1/2"
    row = next(r for r in range(model.rowCount())
               if model.row_at(model.index(r, 0)).id == mixeds[0])
    tip = model.index(row, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert "mixed side, trial 1 of 2" in tip
    assert ", ".join(f"#{i}" for i in sorted(bases + mixeds)) in tip
    single = add_run(store)
    model.set_rows(store.runs())
    assert "single run" in model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert model.row_at(model.index(0, 0)).id == single


# ------------------------------------------------------------------ history panel
def test_rows_newest_first_and_numeric_sort(panel, store):
    ids = fill(store)
    panel.set_store(store)
    assert panel.visible_ids() == sorted(ids.values(), reverse=True)
    assert panel.count_label.text() == "5 runs"
    assert panel.filter_edit.placeholderText() == FILTER_PLACEHOLDER
    panel.table.sortByColumn(SPEED, Qt.SortOrder.AscendingOrder)
    assert column_texts(panel, SPEED) == ["—", "—", "900", "2,500", "10,000"]
    panel.table.sortByColumn(SPEED, Qt.SortOrder.DescendingOrder)
    assert column_texts(panel, SPEED)[:3] == ["10,000", "2,500", "900"]


def test_filter_text_and_status_narrow_the_rows(panel, store):
    ids = fill(store)
    panel.set_store(store)
    panel.filter_edit.setText("FASHION")
    assert panel.visible_ids() == [ids["mixed"]]
    assert panel.count_label.text() == "1 of 5 runs shown"
    panel.filter_edit.setText("mixed")  # the precision label
    assert sorted(panel.visible_ids()) == [ids["mixed"], ids["stopped"]]
    panel.filter_edit.setText(f"#{ids['failed']}")
    assert panel.visible_ids() == [ids["failed"]]
    panel.filter_edit.setText("digits float32")  # every word must match
    assert panel.visible_ids() == [ids["slow"]]
    panel.filter_edit.clear()
    panel.status_combo.setCurrentIndex(panel.status_combo.findData("failed"))
    assert panel.visible_ids() == [ids["failed"]]
    assert panel.count_label.text() == "1 of 5 runs shown"
    panel.filter_edit.setText("digits")
    assert panel.visible_ids() == []
    assert panel.count_label.text() == "0 of 5 runs shown"
    panel.status_combo.setCurrentIndex(0)  # All
    panel.filter_edit.clear()
    assert panel.count_label.text() == "5 runs"
    assert [panel.status_combo.itemText(i) for i in range(panel.status_combo.count())] == [
        "All", "finished", "stopped", "diverged", "failed", "interrupted", "running"]


def test_buttons_follow_the_selection(panel, store):
    ids = fill(store)
    panel.set_store(store)
    buttons = (panel.plot_button, panel.compare_button, panel.rerun_button,
               panel.delete_button)

    def enabled() -> tuple[bool, ...]:
        return tuple(b.isEnabled() for b in buttons)

    assert enabled() == (False, False, False, False)
    assert "Select one run" in panel.plot_button.toolTip()
    panel.select_ids([ids["slow"]])
    assert panel.selected_ids() == [ids["slow"]]
    assert enabled() == (True, False, True, True)
    assert "0 selected" not in panel.compare_button.toolTip()
    assert "(1 selected)" in panel.compare_button.toolTip()
    panel.select_ids([ids["slow"], ids["mixed"]])
    assert enabled() == (False, True, False, True)
    panel.select_ids([ids["slow"], ids["mixed"], ids["failed"]])
    assert enabled() == (False, False, False, True)
    assert "(3 selected)" in panel.compare_button.toolTip()
    panel.select_ids([ids["slow"], ids["running"]])  # a run being written: no delete
    assert enabled() == (False, True, False, False)
    assert panel.delete_button.toolTip() == RUNNING_TIP


def test_plot_rerun_and_double_click_emit_the_run_id(panel, store, qtbot):
    ids = fill(store)
    panel.set_store(store)
    panel.select_ids([ids["stopped"]])
    with qtbot.waitSignal(panel.plot_requested) as plotted:
        panel.plot_button.click()
    assert plotted.args == [ids["stopped"]]
    with qtbot.waitSignal(panel.rerun_requested) as rerun:
        panel.rerun_button.click()
    assert rerun.args == [ids["stopped"]]
    row = panel.visible_ids().index(ids["mixed"])
    rect = panel.table.visualRect(panel.proxy.index(row, 2))
    viewport = panel.table.viewport()
    # Qt 6 reads a double-click only after a press and release at the same spot.
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(panel.plot_requested, timeout=1000) as plotted:
        qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    assert plotted.args == [ids["mixed"]]


def test_compare_puts_the_float32_run_first(panel, store, qtbot):
    mixed = add_run(store, precision="mixed_float16", eps=1800.0)  # the older one
    base = add_run(store, precision="float32", eps=1000.0)
    other = add_run(store, precision="mixed_bfloat16", eps=1500.0)
    panel.set_store(store)
    panel.select_ids([mixed, base])
    with qtbot.waitSignal(panel.compare_requested) as compared:
        panel.compare_button.click()
    assert compared.args == [base, mixed]
    panel.select_ids([other, mixed])  # neither is float32: the older first
    with qtbot.waitSignal(panel.compare_requested) as compared:
        panel.compare_button.click()
    assert compared.args == [mixed, other]


def test_delete_asks_then_deletes_from_store_and_table(panel, store, qtbot):
    ids = fill(store)
    panel.set_store(store)
    asked: list[list[int]] = []
    panel.confirm_delete = lambda chosen: asked.append(chosen) or False
    panel.select_ids([ids["slow"], ids["failed"]])
    with qtbot.assertNotEmitted(panel.deleted):
        panel.delete_button.click()
    assert asked == [sorted([ids["slow"], ids["failed"]])]
    assert len(store.runs()) == 5 and len(panel.visible_ids()) == 5

    panel.confirm_delete = lambda chosen: True
    with qtbot.waitSignal(panel.deleted) as deleted:
        panel.delete_button.click()
    assert deleted.args == [sorted([ids["slow"], ids["failed"]])]
    left = {r.id for r in store.runs()}
    assert left == set(ids.values()) - {ids["slow"], ids["failed"]}
    assert set(panel.visible_ids()) == left
    assert panel.count_label.text() == "3 runs"
    assert panel.selected_ids() == [] and not panel.delete_button.isEnabled()


def test_refresh_keeps_the_selection(panel, store):
    ids = fill(store)
    panel.set_store(store)
    panel.select_ids([ids["mixed"], ids["stopped"]])
    newer = add_run(store, dataset="mnist")
    panel.refresh()
    assert panel.visible_ids()[0] == newer
    assert sorted(panel.selected_ids()) == sorted([ids["mixed"], ids["stopped"]])
    assert panel.compare_button.isEnabled()
    store.delete_runs([ids["stopped"]])  # deleted elsewhere (the CLI)
    panel.refresh()
    assert panel.selected_ids() == [ids["mixed"]]
    assert panel.count_label.text() == "5 runs"


def test_no_store_shows_why(panel, store):
    fill(store)
    panel.set_store(store)
    panel.set_store(None, "cannot read the run history h.sqlite3: file is not a database. "
                          "It is damaged …")
    assert panel.message_label.isVisible()
    assert "damaged" in panel.message_label.text()
    assert not panel.table.isVisible()
    assert not panel.filter_edit.isEnabled()
    assert panel.visible_ids() == [] and panel.count_label.text() == ""
    assert not any(b.isEnabled() for b in (panel.plot_button, panel.delete_button))
    panel.set_store(store)
    assert panel.table.isVisible() and not panel.message_label.isVisible()
    assert len(panel.visible_ids()) == 5


# ------------------------------------------------------------------ comparison card
@pytest.fixture
def card_view(qtbot) -> ComparisonCardView:
    widget = ComparisonCardView()
    qtbot.addWidget(widget)
    widget.resize(760, 640)
    widget.show()
    return widget


def test_card_view_shows_verdict_rows_and_headers(card_view, store, qtbot):
    bases, mixeds = add_comparison(store, trials=1)
    card = build_card(store.side_of(bases[0]), store.side_of(mixeds[0]))
    assert card.verdict.kind == "worth_it"
    card_view.show_card(card)
    assert card_view.card is card
    assert card_view.heading.text() == "float32 baseline vs mixed_float16"
    verdict = card_view.findChild(type(card_view.verdict), "verdict")
    assert verdict.text() == card.verdict.sentence
    assert verdict.property("kind") == "worth_it" and verdict.property("tone") == "good"
    assert colors().tones["good"][1] in verdict.styleSheet()
    assert card_view.rows_text() == [(r.name, r.baseline, r.mixed, r.change)
                                     for r in card_rows(card)]
    # The side headings, perhaps on two lines (the ids under the label).
    assert [h.replace("\n", " ") for h in card_view.header_labels()] == [
        "Figure", side_heading(card.baseline), side_heading(card.mixed), "Change"]
    tips = {r.name: r.tip for r in card_rows(card)}
    first = card_view.table.item(0, 0)
    assert first.toolTip() == tips[first.text()] and first.toolTip()
    assert card_view.table.item(0, 1).textAlignment() & Qt.AlignmentFlag.AlignRight.value
    # No inner scrollbar: every row fits in the table's own height.
    table = card_view.table
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert table.viewport().height() >= rows
    assert table.verticalScrollBar().maximum() == 0
    with qtbot.waitSignal(card_view.export_requested):
        card_view.findChild(type(card_view.export_button), "exportReport").click()


def test_card_view_rule_colors_and_trials(card_view, store):
    assert card_view.rule_link.toolTip() == rule_text()
    bases, mixeds = add_comparison(store, trials=3, mixed_acc=0.9300)  # -2 pp
    card = build_card(store.side_of(bases[1]), store.side_of(mixeds[2]))
    assert card.trials == 3 and card.verdict.kind == "accuracy_loss"
    card_view.show_card(card)
    assert card_view.heading.text() == "float32 baseline vs mixed_float16 · median of 3 trials"
    assert card_view.verdict.property("tone") == "bad"
    assert card_view.header_labels()[2].replace("\n", " ") == side_heading(card.mixed)
    assert not card_view.rule_label.isVisible()
    card_view.rule_link.linkActivated.emit("rule")
    assert card_view.rule_label.isVisible() and card_view.rule_label.text() == rule_text()
    card_view.rule_link.linkActivated.emit("rule")
    assert not card_view.rule_label.isVisible()

    slower = add_comparison(store, trials=1, mixed_eps=600.0)
    card = build_card(store.side_of(slower[0][0]), store.side_of(slower[1][0]))
    card_view.show_card(card)
    assert card.verdict.kind == "slower"
    assert card_view.verdict.property("tone") == "warn"
    assert card_view.verdict.text() == card.verdict.sentence


def test_card_view_clear_shows_the_placeholder(card_view, store):
    assert card_view.card is None and card_view.placeholder.isVisible()
    assert card_view.placeholder.text() == PLACEHOLDER
    assert not card_view.export_button.isEnabled()
    bases, mixeds = add_comparison(store, trials=1)
    card_view.show_card(build_card(store.side_of(bases[0]), store.side_of(mixeds[0])))
    assert not card_view.placeholder.isVisible() and card_view.table.isVisible()
    card_view.clear()
    assert card_view.card is None and card_view.rows_text() == []
    assert card_view.placeholder.isVisible() and not card_view.table.isVisible()
    assert not card_view.verdict.isVisible() and not card_view.export_button.isEnabled()


# ------------------------------------------------------------------ screenshots
def test_screenshots(qtbot, store, tmp_path):
    """Both widgets filled with realistic data, saved for a look (not compared)."""
    fill(store)
    bases, mixeds = add_comparison(store, trials=3, device=GPU, base_eps=1_400.0,
                                   mixed_eps=3_000.0, peak=(1_912_602_624, 1_103_101_952),
                                   dataset="cifar10")
    add_run(store, precision="mixed_float16", status="diverged", eps=3100.0, acc=0.1,
            dataset="mnist", template="cnn_small")
    add_run(store, precision="mixed_bfloat16", status="interrupted", eps=None, acc=None)
    panel = HistoryPanel()
    qtbot.addWidget(panel)
    panel.set_store(store)
    panel.select_ids([bases[0], mixeds[0]])
    panel.resize(980, 460)
    panel.show()
    QApplication.processEvents()
    assert panel.grab().save("/tmp/history_panel.png")

    view = ComparisonCardView()
    qtbot.addWidget(view)
    view.show_card(build_card(store.side_of(bases[0]), store.side_of(mixeds[0])))
    view.resize(820, 700)
    view.show()
    QApplication.processEvents()
    assert view.grab().save("/tmp/card_view.png")


def test_card_headers_fit_their_columns_in_a_narrow_dock(card_view, store, qtbot):
    """Each line of each column header fits its column (font metrics), also when the
    Comparison dock is narrow: the headers read "oat32 baselin (#1)" when clipped."""
    bases, mixeds = add_comparison(store, trials=3)
    card_view.show_card(build_card(store.side_of(bases[0]), store.side_of(mixeds[0])))
    card_view.resize(320, 900)
    card_view.show()
    qtbot.waitUntil(lambda: not card_view._fit_pending)
    table = card_view.table
    header = table.horizontalHeader()
    metrics = header.fontMetrics()
    for column, text in enumerate(card_view.header_labels()):
        widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
        assert widest + 8 <= header.sectionSize(column), (text, header.sectionSize(column))
    # too narrow for all four columns: the table scrolls sideways, nothing is squeezed
    assert header.length() > table.viewport().width()
    assert table.horizontalScrollBar().maximum() > 0
    # ... after the figure names have wrapped (never inside a word) to leave the sides
    # as much of the dock as they can have
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    metrics = table.fontMetrics()
    longest = max(metrics.horizontalAdvance(n) for n in names)
    widest_word = max(metrics.horizontalAdvance(w) for n in names for w in n.split())
    assert widest_word < header.sectionSize(0) < longest
    card_view.resize(900, 900)  # room again: one line each
    qtbot.waitUntil(lambda: header.sectionSize(0) >= longest, timeout=2000)
