"""View: show or hide each dock (a closed Log or History had no way back), and the
theme (System / Light / Dark, remembered)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow

from mpstudio.ui.theme import THEMES, apply_theme
from mpstudio.ui.window.gui_settings import GuiSettings


class ViewMenu:
    """The menu, between Run and Help; ``theme`` is the user's choice in force."""

    def __init__(self, window: QMainWindow, docks: Sequence[QDockWidget],
                 settings: GuiSettings) -> None:
        self._settings = settings
        bar = window.menuBar()
        menu = bar.addMenu("&View")
        bar.insertMenu(bar.actions()[-2], menu)  # before Help, after Run
        self.menu = menu
        for number, dock in enumerate(docks, 1):
            action = dock.toggleViewAction()
            action.setShortcut(QKeySequence(f"Ctrl+{number}"))
            action.setStatusTip(f"Show or hide the {dock.windowTitle()} panel")
            menu.addAction(action)
        menu.addSeparator()
        theme_menu = menu.addMenu("&Theme")
        self._group = QActionGroup(window)
        self.theme_actions: dict[str, QAction] = {}
        for key, text in THEMES.items():
            action = theme_menu.addAction(text)
            action.setObjectName(f"theme_{key}")
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, key=key: self.set_theme(key))
            self._group.addAction(action)
            self.theme_actions[key] = action
        self.theme = ""
        self.dark = False
        self.set_theme(settings.theme(), save=False)

    def set_theme(self, theme: str, save: bool = True) -> None:
        self.theme = theme
        self.theme_actions[theme].setChecked(True)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            self.dark = apply_theme(app, theme)
        if save:
            self._settings.save_theme(theme)
