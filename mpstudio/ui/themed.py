"""Widgets whose colours come from the theme and follow it when it turns light or dark.

A themed widget gets a style sheet (or anything else) of its own, built from
``theme.colors()``, and again whenever the application's palette turns between light
and dark (View > Theme, or the system's scheme). Setting a style sheet on one widget
re-polishes that widget alone, where the application's would re-polish the window's
every widget: this is how a theme switch stays under a frame or two.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TypeVar, cast

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget

from mpstudio.ui.theme import ThemeColors, banner_sheet, colors, role_sheet

Apply = Callable[[QWidget, ThemeColors], object]
W = TypeVar("W", bound=QWidget)
_TURNS = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)


class ThemeFollower(QObject):
    """Calls ``apply(widget, colors)`` now and after each turn of the theme (an event
    filter on the widget, its child: it goes with the widget)."""

    def __init__(self, widget: QWidget, apply: Apply, name: str) -> None:
        super().__init__(widget)
        self.setObjectName(name)
        self._apply = apply
        self._colors: ThemeColors | None = None
        widget.installEventFilter(self)

    def set_apply(self, widget: QWidget, apply: Apply) -> None:
        self._apply = apply
        self._colors = None
        self.follow(widget)

    def follow(self, widget: QWidget) -> None:
        now = colors()
        if now is not self._colors:  # the widget's own palette changes say nothing new
            self._colors = now
            self._apply(widget, now)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _TURNS and isinstance(watched, QWidget):
            self.follow(watched)
        return False


def follow_theme(widget: W, apply: Callable[[W, ThemeColors], object],
                 what: str = "colors") -> None:
    """``apply(widget, colors)`` now and whenever the theme turns; a second call for the
    same ``what`` on the same widget replaces the first's ``apply``."""
    # The follower calls it with ``widget`` alone (the widget whose events it filters),
    # so an ``apply`` typed for this widget's class is safe to keep as one for any QWidget.
    on_turn = cast(Apply, apply)
    name = f"theme:{what}"
    follower = widget.findChild(ThemeFollower, name, Qt.FindChildOption.FindDirectChildrenOnly)
    if follower is None:
        ThemeFollower(widget, on_turn, name).follow(widget)
    else:
        follower.set_apply(widget, on_turn)


def themed_sheet(widget: QWidget, sheet: Callable[[ThemeColors], str]) -> None:
    """``widget``'s own style sheet, built from the theme's colours by ``sheet``."""
    follow_theme(widget, lambda w, c: _set_sheet(w, sheet(c)), "sheet")


def _set_sheet(widget: QWidget, text: str) -> None:
    if widget.styleSheet() != text:  # each setStyleSheet re-polishes the widget's subtree
        widget.setStyleSheet(text)


def link_label(label: QLabel, href: str, text: str) -> QLabel:
    """``label`` shows ``text`` as a link to ``href`` in the theme's link colour. Qt
    colours a link when it parses the label's text, from the palette of that moment:
    a link made before a switch kept the other theme's colour (dark blue on the dark
    card), so the colour is written into the link and the text set again at a turn."""
    def show(widget: QLabel, theme: ThemeColors) -> None:
        widget.setText(f'<a href="{html.escape(href)}" style="color: {theme.link};">'
                       f"{html.escape(text)}</a>")

    follow_theme(label, show, "link")
    return label


def set_role(label: QLabel, role: str) -> None:
    """The label's text in the theme's colour for ``role`` ("hint", "error")."""
    label.setProperty("role", role)
    if label.styleSheet() == role_sheet(colors()):  # only the role changed: re-polish
        label.style().unpolish(label)
        label.style().polish(label)
    else:
        themed_sheet(label, role_sheet)


def error_box(label: QLabel) -> None:
    """An error in a box with a border of the error's colour (the label's objectName
    names it in the sheet, so what the label holds keeps its own look)."""
    name = label.objectName()
    themed_sheet(label, lambda c: f"QLabel#{name} {{ color: {c.error}; border: 1px solid "
                                  f"{c.error}; border-radius: 4px; padding: 6px; }}")


def as_banner(label: QLabel) -> None:
    """A banner (``objectName`` "banner"), coloured by its ``level`` property."""
    label.setObjectName("banner")
    themed_sheet(label, banner_sheet)


def show_level(label: QLabel, level: str) -> None:
    """A banner's level ("info", "success", "error", "warning") and its colours."""
    label.setProperty("level", level)
    label.style().unpolish(label)
    label.style().polish(label)
