"""View > Theme: a switch costs the window a new palette, not a re-polish of its every
widget (an application style sheet set again held the window's thread 155-395 ms on
2 cores), and what the dark theme draws reads on it: the comparison card's verdict
box and its "How is this decided?" link, the verdict marks, the chart curves. Contrast
is WCAG's ratio of relative luminances, from the colours the widgets really have."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.history.store import RunStore
from mpstudio.ui.hardware.hardware_panel import HardwarePanel
from mpstudio.ui.history.comparison_card_view import ComparisonCardView
from mpstudio.ui.theme import DARK_CHARTS, LIGHT_CHARTS, apply_theme, dark_palette, is_dark

from support.gui_helpers import bare_window
from support.hardware_checks import check_of
from support.history_runs import add_comparison
from support.machines import A100, machine

TEXT = 4.5  # WCAG AA for text
GRAPHICS = 3.0  # WCAG AA for lines and marks


def luminance(color: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF())
            + 0.0722 * channel(color.blueF()))


def contrast(a: QColor | str, b: QColor | str) -> float:
    high, low = sorted((luminance(QColor(a)), luminance(QColor(b))), reverse=True)
    return (high + 0.05) / (low + 0.05)


def sheet_color(widget: QWidget) -> QColor:
    """The text colour a widget's own style sheet gives it."""
    found = re.search(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{6})", widget.styleSheet())
    assert found, widget.styleSheet()
    return QColor(found.group(1))


def ground(widget: QWidget) -> QColor:
    return widget.palette().color(QPalette.ColorRole.Window)


def drawn_contrast(widget: QWidget) -> float:
    """The contrast of the text a widget draws, from its pixels: the pixel furthest
    from its ground (a glyph's core) against the ground."""
    image = widget.grab().toImage()
    back = ground(widget)
    return max(contrast(image.pixelColor(x, y), back)
               for x in range(image.width()) for y in range(image.height()))


class StyleChanges(QObject):
    """The widgets that got a StyleChange event: each was re-polished."""

    def __init__(self) -> None:
        super().__init__()
        self.widgets: set[int] = set()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.StyleChange and isinstance(watched, QWidget):
            self.widgets.add(id(watched))
        return False


@pytest.fixture
def app():
    """The palette and style sheet are the application's: leave them as found."""
    application = QApplication.instance()
    yield application
    apply_theme(application, "system")


def test_a_theme_switch_restyles_a_few_widgets_not_the_window(qtbot, tmp_path, app):
    window = bare_window(qtbot, tmp_path / "window.ini")
    sheet = app.styleSheet()
    changes = StyleChanges()
    app.installEventFilter(changes)
    try:
        for theme in ("dark", "light", "dark"):
            changes.widgets.clear()
            window.view_menu.theme_actions[theme].trigger()
            qtbot.wait(50)
            assert app.styleSheet() == sheet  # set once, with no colour in it
            widgets = len(app.allWidgets())
            assert len(changes.widgets) < widgets / 10, (theme, len(changes.widgets), widgets)
    finally:
        app.removeEventFilter(changes)
    # The new palette reached every label all the same (a style sheet stops it by default)
    light = [label.objectName() or label.text()[:30]
             for label in window.findChildren(QLabel)
             if label.isVisible() and not is_dark(label.palette())
             and "background" not in label.styleSheet()]
    assert not light, light


def test_every_label_in_view_reads_after_a_switch(qtbot, tmp_path, app):
    """Secondary text took the palette's grey when it was made: made in the light theme,
    it stayed black at half opacity on the dark one (1.5:1)."""
    window = bare_window(qtbot, tmp_path / "window.ini")
    for theme in ("dark", "light", "dark"):
        window.view_menu.theme_actions[theme].trigger()
        qtbot.wait(50)
        faint = []
        for label in window.findChildren(QLabel):
            if label.isVisible() and label.text():
                palette = label.palette()
                text = palette.color(QPalette.ColorRole.WindowText)
                ratio = contrast(text, palette.color(QPalette.ColorRole.Window))
                if ratio < TEXT or text.alpha() < 255:
                    faint.append((label.text()[:30], text.name(), text.alpha(), round(ratio, 1)))
        assert not faint, (theme, faint)


@pytest.mark.parametrize("before", ["light", "dark"])
def test_the_dark_verdict_box_and_its_rule_link_read_on_the_dark_card(qtbot, tmp_path, app,
                                                                       before):
    """The box stayed light cream on the dark card. The link kept a platform dark
    palette's dark blue (Qt's default link colour) on the near-black card."""
    platform = dark_palette()  # as a platform that turns dark by itself hands it over
    platform.setColor(QPalette.ColorRole.Link, QColor("#0000ff"))
    app.setPalette(platform)
    apply_theme(app, before)  # the card is built in one theme and shown in dark
    view = ComparisonCardView()
    qtbot.addWidget(view)
    view.resize(520, 640)
    view.show()
    store = RunStore(tmp_path / "history.sqlite3")
    bases, mixeds = add_comparison(store, trials=1)
    view.show_card(build_card(store.side_of(bases[0]), store.side_of(mixeds[0])))
    apply_theme(app, "dark")
    qtbot.wait(50)
    box = view.verdict
    fill = box.grab().toImage().pixelColor(6, box.height() // 2)  # inside its padding
    assert fill.lightness() < 128, fill.name()  # a dark box in a dark window
    assert contrast(sheet_color(box), fill) >= TEXT
    link = view.rule_link.palette().color(QPalette.ColorRole.Link)
    assert contrast(link, ground(view)) >= TEXT, (link.name(), ground(view).name())
    # as drawn: Qt colours a link when it parses the label's text, so a card built in
    # the light theme kept the light theme's dark blue on the dark card
    assert drawn_contrast(view.rule_link) >= TEXT

    apply_theme(app, "light")
    qtbot.wait(50)
    fill = box.grab().toImage().pixelColor(6, box.height() // 2)
    assert fill.lightness() >= 128, fill.name()
    assert contrast(sheet_color(box), fill) >= TEXT
    link = view.rule_link.palette().color(QPalette.ColorRole.Link)
    assert contrast(link, ground(view)) >= TEXT, (link.name(), ground(view).name())
    assert drawn_contrast(view.rule_link) >= TEXT


def test_verdict_marks_read_in_either_theme(qtbot, app):
    """The advisor's marks had one colour for both grounds (3.2:1 green, 2.8:1 blue on
    the dark one); they follow a switch made while they are shown."""
    apply_theme(app, "light")
    panel = HardwarePanel()
    qtbot.addWidget(panel)
    panel.resize(480, 760)
    panel.show()
    panel.show_check(check_of(machine(A100)))
    marks = [mark for card in panel.view.cards for mark in card.verdict_labels.values()]
    assert len(marks) >= 6
    for theme in ("dark", "light"):
        apply_theme(app, theme)
        qtbot.wait(50)
        for mark in marks:
            assert contrast(sheet_color(mark), ground(mark)) >= TEXT, (
                theme, mark.text(), sheet_color(mark).name(), ground(mark).name())


@pytest.mark.parametrize("charts", [LIGHT_CHARTS, DARK_CHARTS], ids=["light", "dark"])
def test_chart_curves_stand_out_from_their_background(charts):
    """The float32 curve's blue-grey was 3.4:1 on the dark chart; the curves are the
    theme's now, a light and a dark set."""
    for curve in (charts.baseline, charts.mixed, *charts.others):
        assert contrast(curve, charts.background) >= GRAPHICS, curve
    if charts is DARK_CHARTS:
        assert contrast(charts.baseline, charts.background) >= TEXT


def test_the_layer_tables_colours_read_in_either_theme(qtbot, app):
    """The float32 output row was pale green in both themes (a glaring bar in the dark
    setup panel) and the half-precision orange 3:1 on dark; the cells take the theme's
    colours and follow a switch made while the table is shown."""
    import keras

    from mpstudio.engine.model_summary import describe_model
    from mpstudio.engine.precision import policy_scope
    from mpstudio.ui.setup.layer_table import LayerTable

    with policy_scope("mixed_float16"):  # a Tensor Core miss (10 units), half compute
        inputs = keras.Input((12,))
        hidden = keras.layers.Dense(10, activation="relu")(inputs)
        outputs = keras.layers.Activation("softmax", dtype="float32")(
            keras.layers.Dense(16)(hidden))
        model = keras.Model(inputs, outputs)
    apply_theme(app, "light")
    table = LayerTable()
    qtbot.addWidget(table)
    table.resize(420, 300)
    table.show()
    table.show_summary(describe_model(model, "mixed_float16", 128), "tiny")
    grid = table.table
    for theme in ("dark", "light"):
        apply_theme(app, theme)
        qtbot.wait(50)
        base = grid.palette().color(QPalette.ColorRole.Base)
        coloured = 0
        for row in range(grid.rowCount()):
            for column in range(grid.columnCount()):
                item = grid.item(row, column)
                if item is None or grid.isColumnHidden(column):
                    continue
                fill = item.background()
                ground_ = fill.color() if fill.style() != Qt.BrushStyle.NoBrush else base
                if item.foreground().style() == Qt.BrushStyle.NoBrush:
                    continue
                coloured += 1
                assert contrast(item.foreground().color(), ground_) >= TEXT, (
                    theme, item.text(), item.foreground().color().name(), ground_.name())
        assert coloured >= 4  # half compute, the miss, the output row's cells
        assert table.output_row_highlighted()
        output_fill = grid.item(grid.rowCount() - 1, 0).background().color()
        # a dark fill on the dark ground, a light one on the light
        assert (luminance(output_fill) < 0.2) == (luminance(base) < 0.2), (
            theme, output_fill.name(), base.name())
