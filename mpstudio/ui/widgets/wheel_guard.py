"""Scrolling a form must never change a setting the cursor happens to pass over.

Qt gives wheel events to the combo box, spin box or slider under the cursor, focused
or not: scrolling the setup panel turned Loss scaling from dynamic to off. Guarded
fields take the wheel only once they have focus (a click or Tab); until then the
wheel scrolls the panel, as in browsers and most desktop apps.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QWidget,
)

GUARDED = (QComboBox, QAbstractSpinBox, QAbstractSlider)


class WheelGuard(QObject):
    def __init__(self, scroll_area: QAbstractScrollArea) -> None:
        super().__init__(scroll_area)
        self.scroll_area = scroll_area

    def guard(self, root: QWidget) -> int:
        """Guard every field under ``root``; returns how many."""
        fields = [w for kind in GUARDED for w in root.findChildren(kind)]
        for field in fields:
            if isinstance(field, QAbstractSlider) and isinstance(
                    field.parent(), QAbstractScrollArea):
                continue  # a scroll bar: its wheel is the scrolling itself
            field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel gives no focus
            field.installEventFilter(self)
        return len(fields)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or (
                isinstance(watched, QWidget) and watched.hasFocus()):
            return False
        # the panel scrolls instead, as if the field were not there
        QCoreApplication.sendEvent(self.scroll_area.viewport(), event)
        return True
