"""View: show or hide each dock (a closed Log or History had no way back), the theme
(System / Light / Dark) and the language (System / English / 简体中文), both
remembered. A new language takes effect at the next start: the window is not
retranslated in place (the desktop's usual way)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QMenu, QMessageBox

from mpstudio.ui.theme import THEMES, apply_theme, colors
from mpstudio.ui.themed import follow_theme
from mpstudio.ui.translations import CHOICES
from mpstudio.ui.window.gui_settings import GuiSettings

# Each language named in itself, whatever the window's language (never translated).
LANGUAGE_NAMES = {"en": "&English", "zh_CN": "简体中文(&C)"}


class ViewMenu:
    """The menu, between Run and Help; ``theme`` is the user's choice in force,
    ``language`` the choice saved for the next start."""

    def __init__(self, window: QMainWindow, docks: Sequence[QDockWidget],
                 settings: GuiSettings) -> None:
        self._settings = settings
        self._window = window
        bar = window.menuBar()
        menu = bar.addMenu(QCoreApplication.translate("ViewMenu", "&View"))
        bar.insertMenu(bar.actions()[-2], menu)  # before Help, after Run
        self.menu = menu
        for number, dock in enumerate(docks, 1):
            action = dock.toggleViewAction()
            action.setShortcut(QKeySequence(f"Ctrl+{number}"))
            action.setStatusTip(QCoreApplication.translate(
                "ViewMenu", "Show or hide the {panel} panel").format(panel=dock.windowTitle()))
            menu.addAction(action)
        menu.addSeparator()
        theme_menu = menu.addMenu(QCoreApplication.translate("ViewMenu", "&Theme"))
        self._group = QActionGroup(window)
        self.theme_actions: dict[str, QAction] = {}
        for key, text in THEMES.items():
            action = theme_menu.addAction(QCoreApplication.translate("ViewMenu", text))
            action.setObjectName(f"theme_{key}")
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, key=key: self.set_theme(key))
            self._group.addAction(action)
            self.theme_actions[key] = action
        self.theme = ""
        self.dark = False
        self.set_theme(settings.theme(), save=False)
        # The system's scheme turned: its palette comes by itself, the theme's links do not
        follow_theme(window, lambda _window, _colors: self._scheme_changed())
        self._build_language_menu(menu)

    def _build_language_menu(self, menu: QMenu) -> None:
        language_menu = menu.addMenu(QCoreApplication.translate("ViewMenu", "&Language"))
        self._language_group = QActionGroup(self._window)
        self.language_actions: dict[str, QAction] = {}
        for key in CHOICES:
            text = LANGUAGE_NAMES.get(key) or QCoreApplication.translate("ViewMenu", "&System")
            action = language_menu.addAction(text)
            action.setObjectName(f"language_{key}")
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, key=key: self.set_language(key))
            self._language_group.addAction(action)
            self.language_actions[key] = action
        self.language = self._settings.language()
        self.language_actions[self.language].setChecked(True)
        self.language_note: QMessageBox | None = None

    def set_theme(self, theme: str, save: bool = True) -> None:
        self.theme = theme
        self.theme_actions[theme].setChecked(True)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            self.dark = apply_theme(app, theme)
        if save:
            self._settings.save_theme(theme)

    def _scheme_changed(self) -> None:
        link = QApplication.palette().color(QPalette.ColorRole.Link).name()
        if self.theme == "system" and link != colors().link:
            self.set_theme("system", save=False)

    def set_language(self, choice: str) -> None:
        """Save ``choice`` for the next start, and say so (not modal: nothing waits)."""
        self.language_actions[choice].setChecked(True)
        if choice == self.language:
            return
        self.language = choice
        self._settings.save_language(choice)
        self._settings.sync()  # a crash before quitting must not forget it
        note = QMessageBox(
            QMessageBox.Icon.Information,
            QCoreApplication.translate("ViewMenu", "Language"),
            QCoreApplication.translate(
                "ViewMenu", "The new language takes effect the next time mpstudio starts."),
            QMessageBox.StandardButton.Ok, self._window)
        note.setObjectName("languageNote")
        note.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        note.open()
        self.language_note = note
