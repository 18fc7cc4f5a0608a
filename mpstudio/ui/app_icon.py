"""The app's icon and desktop identity, as launch() gives them to the application.

The SVG draws any size; the PNGs rendered from it (packaging/render_icons.py) are added
too: Qt's SVG icon engine hands out an added bitmap of the size asked for (a title bar's
16 or 24 px, a task switcher's 48 px) as it is, and where that engine or the SVG image
plugin is missing (a trimmed standalone build) the PNGs are the icon.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QIcon

from mpstudio import APP_ID
from mpstudio.resources import ICON, icon_png, icon_sizes, where


def app_icon() -> QIcon:
    """The icon from mpstudio.resources (a null icon if an install lost the files)."""
    icon = QIcon()
    svg = where("icons", f"{ICON}.svg")
    if svg.is_file():
        icon.addFile(str(svg))  # first, so QIcon draws through Qt's SVG icon engine
    for size in icon_sizes():
        icon.addFile(str(icon_png(size)), QSize(size, size))
    return icon


def apply_identity(app: QGuiApplication) -> None:
    """The window's icon, and the desktop entry it belongs to: Wayland compositors take
    desktopFileName as the window's app id, and match it to the installed entry
    (``mpstudio desktop install``) for the taskbar icon and name; on X11 the entry's
    StartupWMClass matches the class Qt gives the window, the application name."""
    app.setDesktopFileName(APP_ID)
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
