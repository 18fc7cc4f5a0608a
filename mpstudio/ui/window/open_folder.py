"""Open a folder of mpstudio's (the logs, the history, the dataset cache) in the
desktop's file manager, creating it first: a folder nothing has written to yet
should open empty, not fail."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices


def folder_url(path: Path) -> QUrl:
    return QUrl.fromLocalFile(str(path))


def open_folder(path: Path) -> bool:
    """Whether the desktop took it (False: no file manager, or the folder cannot be
    made; the caller shows the path instead)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return QDesktopServices.openUrl(folder_url(path))
