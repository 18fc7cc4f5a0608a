"""The app's icon and desktop identity, as launch() gives them to the application.

The SVG draws any size; the PNGs rendered from it (packaging/render_icons.py) are added
too: Qt's SVG icon engine hands out an added bitmap of the size asked for (a title bar's
16 or 24 px, a task switcher's 48 px) as it is, and where that engine or the SVG image
plugin is missing (a trimmed standalone build) the PNGs are the icon.
"""

from __future__ import annotations

import re
from importlib import resources

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QIcon

from mpstudio import APP_ID

_SIZE_FOLDER = re.compile(r"(\d+)x\1")


def app_icon() -> QIcon:
    """The icon from mpstudio.resources (a null icon if an install lost the files)."""
    folder = resources.files("mpstudio.resources").joinpath("icons")
    icon = QIcon()
    svg = folder.joinpath("mpstudio.svg")
    if svg.is_file():
        icon.addFile(str(svg))  # first, so QIcon draws through Qt's SVG icon engine
    for sub in folder.iterdir():
        match = _SIZE_FOLDER.fullmatch(sub.name)
        png = sub.joinpath("mpstudio.png")
        if match and png.is_file():
            size = int(match.group(1))
            icon.addFile(str(png), QSize(size, size))
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
