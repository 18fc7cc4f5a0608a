"""The main window's size on the screen it opens on.

Its preferred first size (1480x940) was taken whatever the screen: on a 1280x800
laptop the title bar's buttons, the right half of the charts, the Log/History tabs and
the status bar were off the screen. The first size is now the preferred one where the
screen has room, else the screen's available area less a window manager's frame; a
saved geometry is restored only where it still fits the screen it was saved on (a
laptop that was docked to a large monitor last time).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

PREFERRED = QSize(1480, 940)
# A window manager's frame and title bar lie outside the geometry Qt sets before the
# window is shown (its frame is not known yet): leave room for a typical one.
FRAME = QSize(16, 48)


def first_size(available: QRect) -> QSize:
    """The preferred size, or the available area less a frame where that is smaller."""
    room = available.size() - FRAME
    return QSize(min(PREFERRED.width(), room.width()), min(PREFERRED.height(), room.height()))


def fits(geometry: QRect, available: QRect) -> bool:
    """Whether a window of ``geometry`` (inside its frame) and its frame fit the screen's
    available area, and it is on that screen (Qt moves a saved one back on screen)."""
    size = geometry.size() + FRAME
    return (size.width() <= available.width() and size.height() <= available.height()
            and available.intersects(geometry))


def _available(window: QWidget) -> QRect | None:
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def size_to_screen(window: QWidget) -> None:
    """The first size, centred on the screen's available area."""
    available = _available(window)
    if available is None:
        window.resize(PREFERRED)
        return
    size = first_size(available)
    window.resize(size)
    top_left = available.center() - QRect(0, 0, size.width(), size.height()).center()
    window.move(top_left.x(), max(available.top(), top_left.y()))


def restore_geometry(window: QWidget, saved: QByteArray | bytes) -> bool:
    """Restore ``saved`` where it fits the screen; else size the window to it afresh.
    True when the saved geometry was used."""
    window.restoreGeometry(saved)
    available = _available(window)
    if available is None or fits(window.geometry(), available):
        return True
    size_to_screen(window)
    return False
