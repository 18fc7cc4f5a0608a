"""Helpers the panels share: text that wraps, secondary text, section headings, and
named spin boxes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QSpinBox, QWidget

from mpstudio.ui.theme import ThemeColors
from mpstudio.ui.themed import follow_theme


def wrapped_label(text: str = "", *, rich: bool = False, selectable: bool = True) -> QLabel:
    """A label that wraps, so long sentences grow a panel downwards, never sideways."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    if selectable:  # reasons and error text are worth copying into a bug report
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def secondary(label: QLabel) -> QLabel:
    """Smaller and greyer: names of facts, notes, raw timings. The grey is the theme's
    (a grey taken from the palette once stayed the light theme's in the dark one)."""
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 0.92)
    label.setFont(font)
    follow_theme(label, _grey, "grey")
    return label


def _grey(label: QWidget, colors: ThemeColors) -> None:
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(colors.hint))
    label.setPalette(palette)


def heading(text: str) -> QLabel:
    """A section title inside a scrolling panel (lighter than a group box frame)."""
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1)
    label.setFont(font)
    label.setContentsMargins(0, 8, 0, 0)
    return label


def spin_box(name: str, low: int, high: int, tip: str, *, value: int | None = None,
             suffix: str = "") -> QSpinBox:
    """An integer field with an object name (tests and style sheets find it by it)."""
    box = QSpinBox()
    box.setObjectName(name)
    box.setRange(low, high)
    if value is not None:
        box.setValue(value)
    box.setSuffix(suffix)
    box.setToolTip(tip)
    return box
