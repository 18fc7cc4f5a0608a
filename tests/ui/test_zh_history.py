"""The charts, the History tab and the Comparison card in Simplified Chinese: a history
written through the RunStore as the recorder writes it (crafted events, no training),
shown in the History panel and on the card, and runs' curves on the charts. No English
beyond the Latin names and the data's own names (datasets, templates); the stored keys
(labels, statuses) stay English. pyqtgraph's texts (titles, legends, axis labels, notes,
its view menu) are not QWidgets: they are read from the chart objects."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QMenu, QWidgetAction

from devtools.chart_demo import synthetic_run
from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.events import GradientUnderflow, LayerUnderflow
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.charts import chart_menu
from mpstudio.ui.charts.chart_menu import CSV_COLUMNS, write_csv
from mpstudio.ui.charts.live_charts import LiveCharts
from mpstudio.ui.history.comparison_card_view import ComparisonCardView
from mpstudio.ui.history.history_model import ACCURACY, PRECISION, STATUS
from mpstudio.ui.history.history_panel import HistoryPanel

from support.history_runs import GPU, add_comparison, add_run, fill
from support.language_check import LATIN_NAMES, english_words
from support.legend_layout import CHARTS, assert_apart, narrowest_charts, texts_inside_their_charts
from support.shown_texts import chart_texts, plain, shown_texts

# The data's own names (datasets, templates, layers), the run ids' comparison prefix,
# and what is Latin on a keyboard or in a number.
NAMES = LATIN_NAMES | {
    "digits", "mnist", "fashion_mnist", "cifar10", "imdb", "mlp", "cnn_small",
    "resnet_small", "lstm", "dense", "dense_1", "logits", "Ctrl", "NaN", "x86_64",
    "McNemar",  # a statistical test, named after its author
    "MiB", "GiB", "inf",  # units and values stay as they are
}


def english(texts) -> dict[str, list[str]]:
    """Each text with English words in it, and those words."""
    found = {}
    for text in texts:
        words = [w for w in english_words(plain(text), NAMES)
                 if not re.fullmatch(r"c\d+[0-9a-f]*", w)]  # a comparison id's first 8
        if words:
            found[text] = words
    return found


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "h.sqlite3") as history:
        yield history


def underflow(n: int, unscaled: float) -> GradientUnderflow:
    layers = (LayerUnderflow("dense", "float16", 8000, unscaled / 2, 0.0),
              LayerUnderflow("logits", "float16", 640, unscaled, 0.001))
    return GradientUnderflow(step=n, epoch=1, scale=32768.0, unscaled=unscaled, scaled=0.001,
                             layers=layers, seconds=0.004)


# ------------------------------------------------------------------ History
def test_the_history_panel_is_chinese(qtbot, chinese, store):
    ids = fill(store)  # finished, failed, stopped, running: every status but two
    add_run(store, precision="mixed_float16", status="diverged", dataset="mnist",
            template="cnn_small", eps=3100.0, acc=0.1)
    add_run(store, precision="mixed_bfloat16", status="interrupted", eps=None, acc=None)
    bases, mixeds = add_comparison(store, trials=2, device=GPU, dataset="cifar10")
    panel = HistoryPanel()
    qtbot.addWidget(panel)
    panel.set_store(store)
    panel.resize(980, 460)
    panel.show()
    qtbot.waitExposed(panel)
    texts = list(shown_texts(panel))
    model = panel.model
    for selection in ([], [ids["slow"]], [bases[0], mixeds[0]], [ids["slow"], ids["running"]],
                      [bases[0], mixeds[0], ids["slow"]]):  # every button tip there is
        panel.select_ids(selection)
        texts += [b.toolTip() for b in panel.findChildren(QAbstractButton)]
    texts += [*panel.delete_question([3]), *panel.delete_question([3, 4])]
    panel.filter_edit.setText("digits")
    texts.append(panel.count_label.text())
    assert panel.count_label.text() == "显示 3 次，共 11 次运行"
    panel.filter_edit.setText("基线")  # the shown words find runs too
    assert sorted(panel.visible_ids()) == sorted(bases)
    panel.filter_edit.setText("baseline")  # ... and so do the stored ones
    assert sorted(panel.visible_ids()) == sorted(bases)
    panel.filter_edit.clear()
    assert not english(texts), english(texts)
    assert len(texts) > 60

    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(8)]
    assert headers == ["#", "开始时间", "数据集", "模型模板", "精度", "状态", "样本/秒",
                       "验证准确率"]
    cells = {model.row_at(model.index(r, 0)).id: r for r in range(model.rowCount())}
    assert model.index(cells[bases[1]], PRECISION).data() == "float32 基线 · 试验 2/2"
    assert model.index(cells[ids["failed"]], STATUS).data() == "失败"
    assert model.index(cells[ids["slow"]], STATUS).data() == "已完成"
    assert model.index(cells[ids["slow"]], ACCURACY).data() == "93.31%"
    tip = model.tooltip(model.row_at(model.index(cells[mixeds[0]], 0)))
    assert "混合精度一侧，第 1 次试验（共 2 次）" in tip
    assert model.tooltip(model.row_at(model.index(cells[ids["slow"]], 0))).endswith(
        "单次运行（不属于 float32 对比）")
    assert panel.count_label.text() == "11 次运行"
    assert [panel.status_combo.itemText(i) for i in range(panel.status_combo.count())] == [
        "全部", "已完成", "已停止", "发散", "失败", "被中断", "运行中"]
    assert panel.status_combo.itemData(1) == "finished"  # the keys stay English
    assert [b.text() for b in (panel.plot_button, panel.compare_button, panel.rerun_button,
                               panel.export_button, panel.delete_button)] == [
        "绘制", "对比", "重新运行", "导出…", "删除…"]
    assert panel.delete_question([3]) == (
        "删除运行", "删除运行 #3？其指标将从历史记录中移除；已保存的模型仍保留在磁盘上。")
    assert store.run(bases[1], metrics=False).label == "float32 baseline · trial 2/2"
    assert store.run(ids["failed"], metrics=False).status == "failed"
    panel.select_ids([bases[0], mixeds[0]])
    QApplication.processEvents()
    assert panel.grab().save("/tmp/zh_history_panel.png")


def test_the_history_panel_says_why_there_is_none_in_chinese(qtbot, chinese):
    panel = HistoryPanel()
    qtbot.addWidget(panel)
    panel.show()
    assert panel.message_label.text() == "没有运行历史记录。"
    assert not english(shown_texts(panel))


def test_run_labels_are_shown_in_chinese_and_kept_as_keys(chinese):
    assert shown_label("float32 baseline") == "float32 基线"
    assert shown_label("float32 (TF32) baseline · trial 2/3") == "float32 (TF32) 基线 · 试验 2/3"
    assert shown_label("#12 mixed_float16 (baseline)") == "#12 mixed_float16（基线）"
    assert shown_label("#7 float32 baseline") == "#7 float32 基线"
    assert shown_label("mixed_float16") == "mixed_float16"
    assert shown_label("run") == "运行"


# ------------------------------------------------------------------ the card
def test_the_comparison_card_is_chinese(qtbot, chinese, store):
    view = ComparisonCardView()
    qtbot.addWidget(view)
    view.resize(820, 700)
    view.show()
    qtbot.waitExposed(view)
    assert view.placeholder.text() == (
        "勾选“与 float32 对比”后运行，或在“历史记录”中选择两次运行并点击“对比”。")
    assert not english(shown_texts(view))
    bases, mixeds = add_comparison(store, trials=3, device=GPU, base_eps=1_400.0,
                                   mixed_eps=3_000.0, peak=(1_912_602_624, 1_103_101_952),
                                   dataset="cifar10")
    card = build_card(store.side_of(bases[0]), store.side_of(mixeds[0]))
    view.show_card(card)
    view.rule_link.linkActivated.emit("rule")  # the rule, opened
    qtbot.waitUntil(lambda: not view._fit_pending)
    texts = shown_texts(view)
    texts_and_tips = [*texts, view.rule_link.text()]
    assert not english(texts_and_tips), english(texts_and_tips)
    assert view.heading.text() == "float32 基线 与 mixed_float16 · 3 次试验的中位数"
    headers = view.header_labels()
    assert headers[0] == "指标" and headers[3] == "变化"
    ids = ", ".join(f"#{i}" for i in bases)
    # the side's words on one line where its column holds them, its runs' ids below
    assert headers[1] == f"float32 基线\n({ids})"
    assert view.export_button.text() == "导出报告…"
    assert "结论是如何得出的？" in plain(view.rule_link.text())
    QApplication.processEvents()
    assert view.grab().save("/tmp/zh_card_view.png")
    # every header line and figure fits its column: nothing clipped
    header = view.table.horizontalHeader()
    metrics = header.fontMetrics()
    for column, text in enumerate(headers):
        widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
        assert widest + 8 <= header.sectionSize(column), (text, header.sectionSize(column))


def test_a_narrow_card_wraps_chinese_figure_names_between_characters(qtbot, chinese, store):
    """Chinese has no spaces: the figure names still wrap (between characters) rather
    than taking the whole width of a narrow Comparison dock."""
    view = ComparisonCardView()
    qtbot.addWidget(view)
    bases, mixeds = add_comparison(store, trials=3)
    view.show_card(build_card(store.side_of(bases[0]), store.side_of(mixeds[0])))
    view.resize(320, 900)
    view.show()
    qtbot.waitUntil(lambda: not view._fit_pending)
    table = view.table
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    longest = max(table.fontMetrics().horizontalAdvance(n) for n in names)
    assert table.horizontalHeader().sectionSize(0) < longest


# ------------------------------------------------------------------ the charts
def menu_texts(menu: QMenu) -> list[str]:
    """A menu's actions and submenus, and the texts and tips of the panels in it."""
    texts = [menu.title()]
    for action in menu.actions():
        texts += [action.text()]
        if action.menu():
            texts += menu_texts(action.menu())
        if isinstance(action, QWidgetAction) and action.defaultWidget() is not None:
            panel = action.defaultWidget()
            for kind in (QLabel, QAbstractButton):
                for w in panel.findChildren(kind):
                    texts += [w.text(), w.toolTip()]
    return [t for t in texts if t]


@pytest.fixture
def charts(qtbot):
    widget = LiveCharts()
    qtbot.addWidget(widget)
    widget.resize(1100, 760)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_charts_are_chinese(qtbot, chinese, charts):
    assert charts.empty.text().startswith("还没有运行。\n\n在左侧选择数据集、模型模板和精度")
    assert not english([charts.empty.text()])
    # a live comparison: its engine labels, an overflow, validation, the warm-up, and the
    # gradient underflow of the mixed run
    baseline = synthetic_run("float32 baseline", "float32", loss_scale=None, seed=1)
    mixed = list(synthetic_run("mixed_float16", seed=2))
    charts.add_events([*baseline, *mixed, *[underflow(n, 0.02 * n / 5) for n in (5, 10, 15)]])
    charts.finish()
    qtbot.waitUntil(lambda: charts.underflow_shown, timeout=5000)
    qtbot.wait(50)
    view = charts.plots["loss"].getViewBox()
    readout = charts.hover.show_at(view.mapViewToScene(QPointF(201, 0.5)))
    texts = chart_texts(charts)
    assert not english(texts.values()), english(texts.values())
    assert [charts.plots[n].header._title_text for n in
            ("loss", "loss_scale", "throughput", "accuracy", "underflow")] == [
        "损失", "损失缩放因子", "吞吐量（样本/秒）", "准确率", "float16 中的梯度下溢"]
    assert texts["loss legend 0"] == "float32 基线" and texts["loss legend 1"] == "mixed_float16"
    assert texts["loss legend 2"] == "验证（每轮结束）"
    assert "float32 基线（无损失缩放）" in [label.text for _, label in
                                       charts.plots["loss_scale"].legend.items]
    assert "跳过的步" in [label.text for _, label in charts.plots["loss_scale"].legend.items]
    assert [label.text for _, label in charts.underflow.plot.legend.items] == [
        "无损失缩放", "当前缩放因子下"]
    assert texts["throughput bottom axis"] == "步" and texts["warm-up band"] == "预热"
    assert readout.startswith("第 ") and "mixed_float16 损失 " in readout
    assert "float32 基线 损失 " in readout
    assert "所有层：" in texts["underflow breakdown"]
    assert set(charts._data.runs) == {"float32 baseline", "mixed_float16"}  # keys: English
    charts.hover.hide()
    assert charts.readout.text() == "将鼠标悬停在图表上即可读取数值。"
    QApplication.processEvents()
    assert charts.grab().save("/tmp/zh_charts.png")

    charts.clear()
    assert charts.empty.text() == "正在启动：运行完成第一步后显示图表。"
    charts.add_events(synthetic_run("float32", "float32", loss_scale=None))
    charts.finish()
    assert charts._no_scaling.textItem.toPlainText() == "此运行未使用损失缩放"


def test_the_chart_menu_is_chinese_and_saves_picture_and_data(qtbot, chinese, charts,
                                                              tmp_path):
    """pyqtgraph's right-click menu: its view part in Chinese (pyqtgraph looks its texts
    up in our catalog), Plot Options gone, Export replaced by our two actions."""
    charts.add_events(synthetic_run("float32 baseline", "float32", loss_scale=None, seed=1))
    charts.add_events(synthetic_run("mixed_float16", seed=2))
    charts.finish()
    texts = []
    for plot in charts.plots.values():
        view = plot.getViewBox()
        assert plot.getContextMenus(None) is None  # no Plot Options
        texts += menu_texts(view.menu)
    scene_actions = charts.panel.scene().contextMenu
    texts += [a.text() for a in scene_actions]
    assert not english(texts), english(texts)
    assert [a.text() for a in charts.plots["loss"].getViewBox().menu.actions()
            if a.text()][:4] == ["显示全部", "X 轴", "Y 轴", "鼠标模式"]
    assert [a.text() for a in scene_actions] == ["保存图表（PNG 或 SVG）…",
                                                 "将此图表的数据保存为 CSV…"]
    # what the actions do, without their file dialogs
    loss_view = charts.plots["loss_scale"].getViewBox()
    assert charts.menu.chart_at(loss_view) == "loss_scale"
    path = tmp_path / "loss_scale.csv"
    rows = write_csv(path, "loss_scale", charts._runs())
    with path.open(encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert tuple(table[0]) == CSV_COLUMNS and len(table) == rows + 1 > 10
    assert {row[0] for row in table[1:]} == {"mixed_float16"}  # the float32 run has no scale
    assert {row[1] for row in table[1:]} == {"loss_scale", "overflow"}
    with pytest.raises(ValueError, match=r"图表只能保存为 \.png 或 \.svg"):
        charts.save(tmp_path / "charts.jpg")


def test_pyqtgraphs_menu_texts_are_all_marked():
    """The strings pyqtgraph's view menu looks up are the ones chart_menu marks: a
    pyqtgraph update that changes one shows up here, not as English in the menu."""
    root = Path(pg.__file__).parent / "graphicsItems" / "ViewBox"
    source = ((root / "ViewBoxMenu.py").read_text(encoding="utf-8")
              + (root / "axisCtrlTemplate_generic.py").read_text(encoding="utf-8"))
    looked_up = set(re.findall(r'translate\(\s*["\'](?:ViewBox|Form)["\'],\s*'
                               r'(?:"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\')', source))
    strings = {(a or b).replace('\\"', '"') for a, b in looked_up} - {"%", "0"}
    assert strings and strings <= set(chart_menu.PYQTGRAPH_TEXTS), strings - set(
        chart_menu.PYQTGRAPH_TEXTS)


def test_chinese_legends_fit_at_the_narrowest_chart_width(qtbot, chinese):
    """As test_ui_charts checks in English: at the narrowest width the window allows,
    every Chinese legend entry and title is whole, inside its chart, clear of the others
    and of the curves (two runs from History, "#12 float32 基线" and "#13 mixed_float16")."""
    widget = narrowest_charts(qtbot, "#12 float32 baseline", "#13 mixed_float16")
    for name in CHARTS:
        header = widget.plots[name].header
        assert header.title.text() == header._title_text  # not cut short
    texts = texts_inside_their_charts(widget)
    assert "loss: #12 float32 基线" in [t for t, _ in texts]
    assert_apart(texts)
    QApplication.processEvents()
    assert widget.grab().save("/tmp/zh_charts_narrow.png")


# ------------------------------------------------------------------ the window's side
def test_plotting_comparing_and_reporting_from_history_speak_chinese(qtbot, chinese,
                                                                     tmp_path):
    """History's actions in a window (its engine never started): the banners and log
    lines of Plot, Compare, a run that is gone, Export report and Delete."""
    from support.gui_helpers import bare_window

    window = bare_window(qtbot, tmp_path / "window.ini")
    actions = window.history_actions
    store = actions.store
    assert store is not None
    bases, mixeds = add_comparison(store, trials=1, device=GPU)
    single = add_run(store, precision="mixed_float16", dataset="mnist")
    window.history.refresh()
    shown = []

    actions.plot_run(single)
    shown.append(window.banner.text())
    assert window.banner.text() == (
        f"正在显示历史记录中的 #{single} mixed_float16（mnist / mlp）：已完成")
    assert window.card_view.card is None
    actions.compare_runs(bases[0], mixeds[0])
    shown.append(window.status_text.text())
    assert window.status_text.text() == (
        f"对比 #{bases[0]} float32 基线（digits / mlp） 与 #{mixeds[0]} mixed_float16"
        "（digits / mlp）")
    # the verdict is the card's, in its tab (the banner does not say it twice)
    assert window.central_tabs.card_open and not window.banner.isVisible()
    assert window.card_view.verdict.text().startswith("值得：")
    legend = [label.text for _, label in window.charts.plots["loss"].legend.items]
    assert legend[:2] == [f"#{bases[0]} float32 基线", f"#{mixeds[0]} mixed_float16"]
    assert window.card_view.card is not None
    assert actions.export_report(str(tmp_path / "report.html"))
    shown.append(window.log.lines()[-1])
    assert window.log.lines()[-1].startswith("已导出对比报告 ")
    window.history.confirm_delete = lambda ids: True
    window.history.select_ids([single])
    window.history.delete_button.click()
    shown.append(window.log.lines()[-1])
    assert window.log.lines()[-1] == f"已从历史记录中删除 1 次运行：#{single}"
    assert not english(shown), english(shown)
    actions.plot_run(single)  # gone now: the engine's reason follows the sentence
    assert window.banner.text().startswith(f"无法绘制运行 #{single}：")
