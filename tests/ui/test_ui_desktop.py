"""Desktop conventions: Run in view at every window size, the theme (light, dark, the
system's), a keyboard path to every action, and Tab following the form.

The window here never starts its engine: what is tested is the window itself."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QDockWidget

from mpstudio.ui.theme import DARK, DARK_CHARTS, LIGHT_CHARTS, is_dark

from support.gui_helpers import bare_window, menu_actions


@pytest.fixture
def system_theme_after():
    """The palette and style sheet are the application's: leave them as found."""
    yield
    from mpstudio.ui.theme import apply_theme

    apply_theme(QApplication.instance(), "system")


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_run_and_stop_are_in_view_without_scrolling(qtbot, tmp_path, size):
    """Run and Stop sat three screens down the setup form; they stay in view with every
    folded group open, at the smallest supported window and a large one."""
    window = bare_window(qtbot, tmp_path / "window.ini", size)
    for group in window.setup.folding.values():
        group.set_open(True)
    qtbot.wait(50)
    for button in (window.setup.run_button, window.setup.stop_button):
        assert button.isVisible()
        assert button.visibleRegion().boundingRect() == button.rect(), button.text()
        corner = button.mapTo(window, QPoint(button.width(), button.height()))
        assert window.rect().contains(corner)


def test_the_theme_is_the_users_choice_and_is_remembered(qtbot, tmp_path, system_theme_after):
    """View > Theme: Dark turns the window, its style sheet and the charts dark (a white
    chart panel in a dark window glared); the choice comes back at the next launch;
    System gives the platform's palette back (light here)."""
    settings = tmp_path / "window.ini"
    window = bare_window(qtbot, settings)
    assert window.view_menu.theme == "system"
    assert window.charts.colors == LIGHT_CHARTS
    window.view_menu.theme_actions["dark"].trigger()
    qtbot.waitUntil(lambda: window.charts.colors == DARK_CHARTS, timeout=2000)
    assert is_dark(QApplication.instance().palette())
    panel = window.charts.panel
    assert panel.backgroundBrush().color().name() == DARK_CHARTS.background
    title = window.charts.plots["loss"].header.title
    assert title.brush().color().name() == DARK_CHARTS.text
    assert DARK_CHARTS.background in window.charts.empty.styleSheet()
    assert DARK.plain[1] in window.banner.styleSheet()  # the dark banner
    window.close()

    again = bare_window(qtbot, settings)
    assert again.view_menu.theme == "dark"
    assert again.view_menu.theme_actions["dark"].isChecked()
    assert again.charts.colors == DARK_CHARTS
    again.view_menu.theme_actions["system"].trigger()
    qtbot.waitUntil(lambda: again.charts.colors == LIGHT_CHARTS, timeout=2000)
    window_color = QApplication.instance().palette().color(QPalette.ColorRole.Window)
    assert window_color.lightness() > 128




def test_every_menu_action_has_a_keyboard_path(qtbot, tmp_path):
    """Each menu opens with Alt and its letter, and each action inside has a shortcut or
    a letter of its own; the docks a user can close come back from View."""
    window = bare_window(qtbot, tmp_path / "window.ini")
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    assert [m.title() for m in menus] == ["&File", "&Run", "&View", "&Engine", "&Help"]
    for menu in menus:
        for action in menu_actions(menu):
            text = action.text()
            assert "&" in text or not action.shortcut().isEmpty(), text
        own = [a.text() for a in menu.actions() if "&" in a.text()]
        letters = [text[text.index("&") + 1].lower() for text in own]
        assert len(set(letters)) == len(letters), own  # one letter, one action
    log = window.findChild(QDockWidget, "logDock")
    toggle = log.toggleViewAction()
    assert toggle in list(menu_actions(menus[2]))
    assert toggle.shortcut().toString() == "Ctrl+1"  # Log, History, Comparison: 1, 2, 3
    log.close()
    assert not log.isVisible()
    toggle.trigger()
    assert log.isVisible()


def test_tab_follows_the_setup_form_and_skips_docks_out_of_sight(qtbot, tmp_path):
    """Tab goes down the setup form in reading order, on to Run, and never into a dock
    behind another's tab (it went into the History filter and the Hardware panel unseen)."""
    window = bare_window(qtbot, tmp_path / "window.ini")
    window.activateWindow()
    window.setup.run_button.setEnabled(True)  # as once TensorFlow has loaded
    first = window.setup.dataset.combo
    first.setFocus()
    qtbot.waitUntil(first.hasFocus)
    walked = []
    for _ in range(40):
        widget = QApplication.focusWidget()
        walked.append(widget)
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
        if QApplication.focusWidget() is first:
            break
    else:
        pytest.fail("Tab never came back to the first field")
    hidden = [w.objectName() or type(w).__name__ for w in walked
              if any(d.visibleRegion().isEmpty() for d in _docks_of(w))]
    assert not hidden
    form = [w for w in walked if window.setup.isAncestorOf(w)]
    tops = [w.mapTo(window.setup, QPoint(0, 0)).y() for w in form]
    assert tops == sorted(tops), [w.objectName() for w in form]
    assert len(form) >= 12
    assert window.setup.run_button in walked
    assert walked.index(window.setup.run_button) > walked.index(form[-1])


def _docks_of(widget):
    while widget is not None:
        if isinstance(widget, QDockWidget):
            yield widget
        widget = widget.parentWidget()
