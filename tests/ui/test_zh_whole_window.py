"""A Chinese-speaking user's whole session, as issue 23 puts it: launch, check the
hardware, run a comparison, read the verdict and its reason, look at every dock, tab,
folded group, menu and dialog, export the model: no English beyond the Latin names
(API, dtype and product names) and the names things have in any language (datasets,
templates, layers, this machine's CPU)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QDockWidget, QWidget

from mpstudio.engine.datasets.registry import dataset_names
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.report import CPU_FLAGS
from mpstudio.engine.templates.registry import template_names

from support.gui_helpers import close_window, menu_actions, open_window, run_tiny_comparison
from support.language_check import LATIN_NAMES, english_words, machine_names, visible_text
from support.shown_texts import chart_texts, shown_texts

pytestmark = pytest.mark.slow

def _allowed(layer_names: list[str]) -> set[str]:
    """The Latin names, the data's and the model's names, this machine's names."""
    return (set(LATIN_NAMES) | set(CPU_FLAGS) | set(dataset_names()) | set(template_names())
            | {"adam", "sgd", "fit", "tf"} | machine_names(detect_hardware())
            | set(layer_names))


def _new_windows(before: set[int]) -> list[QWidget]:
    QApplication.processEvents()
    return [w for w in QApplication.topLevelWidgets()
            if id(w) not in before and w.isVisible()]


def _english_in(texts: dict[str, QWidget], allowed: set[str]) -> list[str]:
    """One line per text with English in it: the words, where, and the text."""
    return [f"{english_words(text, allowed)} in {type(w).__name__}#{w.objectName()}: "
            f"{text[:120]!r}" for text, w in texts.items() if english_words(text, allowed)]


def test_a_chinese_session_meets_no_english(qtbot, tmp_path, chinese):
    w = open_window(qtbot, tmp_path / "window.ini")
    w.resize(1280, 720)
    run_tiny_comparison(qtbot, w)
    assert w.card_view.card is not None

    texts: dict[str, QWidget] = {}
    for group in w.setup.folding.values():  # the folded groups, opened
        group.set_open(True)
    for dock in w.findChildren(QDockWidget):  # each dock in front of its tab group
        dock.show()
        dock.raise_()
        qtbot.wait(50)
        texts.update(shown_texts(dock))
    texts.update(shown_texts(w))  # the charts' area, the banner, the status bar
    for text in chart_texts(w.charts).values():  # titles, axes, legends: not widgets
        texts.setdefault(text, w.charts)
    for action in menu_actions(w.menuBar()):
        for text in (action.text(), action.toolTip(), action.statusTip()):
            if text:
                texts.setdefault(visible_text(text), w.menuBar())
    for menu_action in w.menuBar().actions():
        texts.setdefault(visible_text(menu_action.text()), w.menuBar())

    # Every dialog the menus open without a file chooser: the guide, About, the
    # training check and the export of the model just trained.
    a = w.window_actions
    for action in (a.help_page, a.about, a.check_training, a.export_model):
        assert action.isEnabled(), action.text()
        before = {id(x) for x in QApplication.topLevelWidgets() if x.isVisible()}
        action.trigger()
        opened = _new_windows(before)
        assert opened, f"{action.text()} opened no window"
        for dialog in opened:
            texts.update(shown_texts(dialog))
            dialog.close()

    layers = w.setup.layers.table  # the model's layer names and Keras types are its own
    names = [layers.item(row, column).text() for row in range(layers.rowCount())
             for column in (0, 1)]  # "dense_1024", "Dense"; "Rescaling 1/16"
    allowed = _allowed([word for name in names for word in name.split()] + ["relu"])
    english = _english_in(texts, allowed)
    assert not english, "\n".join(english)
    assert len(texts) > 200  # the walk saw the whole window, not an empty one
    verdict = w.card_view.card.verdict.sentence
    assert any("\u4e00" <= c <= "\u9fff" for c in verdict), verdict
    close_window(qtbot, w)
