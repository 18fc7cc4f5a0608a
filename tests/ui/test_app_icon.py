"""The app icon: the PNG, .ico and .icns sizes rendered from the SVG are the SVG's (a
changed SVG needs packaging/render_icons.py run again), and launch() gives the window
the icon and the desktop entry's id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage, QImageReader

from mpstudio import APP_ID

from support.desktop_files import DESKTOP_FILE, read_entry
from support.paths import ROOT

ICONS = Path(str(resources.files("mpstudio.resources") / "icons"))
HICOLOR = (16, 24, 32, 48, 64, 128, 256, 512)


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, :image.width() * 4].copy()


def sizes_in(path: Path) -> list[int]:
    reader = QImageReader(str(path))
    found = []
    for index in range(reader.imageCount()):
        reader.jumpToImage(index)
        image = reader.read()
        assert image.width() == image.height(), path
        found.append(image.width())
    return sorted(set(found))


def test_every_platform_has_its_sizes():
    for size in HICOLOR:
        image = QImage(str(ICONS / f"{size}x{size}" / "mpstudio.png"))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel() and image.pixelColor(0, 0).alpha() == 0  # round corner
    assert sizes_in(ICONS / "mpstudio.ico") == [16, 24, 32, 48, 64, 128, 256]
    assert sizes_in(ICONS / "mpstudio.icns") == [32, 64, 128, 256, 512, 1024]


def test_the_committed_icons_are_the_svg_rendered_now(tmp_path):
    """A changed SVG without packaging/render_icons.py run again fails here."""
    pytest.importorskip("PIL", reason="render_icons.py packs the .ico and .icns with Pillow")
    done = subprocess.run([sys.executable, str(ROOT / "packaging" / "render_icons.py"),
                           "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert done.returncode == 0, done.stderr
    for size in HICOLOR:
        fresh = pixels(QImage(str(tmp_path / f"{size}x{size}" / "mpstudio.png")))
        committed = pixels(QImage(str(ICONS / f"{size}x{size}" / "mpstudio.png")))
        # the same drawing: equal here; within a shade where another Qt rasterizes
        difference = np.abs(fresh.astype(int) - committed.astype(int))
        assert difference.mean() < 1.0 and difference.max() < 64, size
    for name in ("mpstudio.ico", "mpstudio.icns"):
        assert sizes_in(tmp_path / name) == sizes_in(ICONS / name)


def same_bitmap(a: np.ndarray, b: np.ndarray) -> bool:
    """The same pixels but for one level of rounding, where Qt premultiplies alpha on
    the way (seen on one machine: 4 of 1,024 bytes one level apart)."""
    return a.shape == b.shape and int(np.abs(a.astype(int) - b.astype(int)).max()) <= 1


def test_the_icon_hands_out_the_rendered_sizes(qapp):
    from mpstudio.ui.app_icon import app_icon

    icon = app_icon()
    assert not icon.isNull()
    for size in (16, 24, 48):
        shown = pixels(icon.pixmap(size).toImage())
        assert same_bitmap(shown, pixels(QImage(str(ICONS / f"{size}x{size}" /
                                                    "mpstudio.png"))))
    assert icon.pixmap(100).size().width() == 100  # any size: the SVG


LAUNCH = """
import json, os
os.environ["MPSTUDIO_EXIT_AFTER_SHOW"] = "1"
from mpstudio.ui import app
assert app.launch([]) == 0
from PySide6.QtWidgets import QApplication
from mpstudio.ui.window.main_window import MainWindow
qapp = QApplication.instance()
window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
window.windowIcon().pixmap(16).toImage().save(os.environ["ICON_OUT"])
print(json.dumps({"desktop_file_name": qapp.desktopFileName(),
                  "application_name": qapp.applicationName(),
                  "app_icon": not qapp.windowIcon().isNull(),
                  "window_icon": not window.windowIcon().isNull()}))
"""


def test_launch_gives_the_window_the_icon_and_the_desktop_entry(tmp_path):
    """Wayland matches the window to the installed entry by desktopFileName; X11 by the
    entry's StartupWMClass, which is the window class Qt sets: the application name."""
    shown = tmp_path / "icon16.png"
    proc = subprocess.run([sys.executable, "-c", LAUNCH], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, QT_QPA_PLATFORM="offscreen",
                                                ICON_OUT=str(shown)))
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"desktop_file_name": APP_ID,
                    "application_name": read_entry(DESKTOP_FILE)["StartupWMClass"],
                    "app_icon": True, "window_icon": True}
    assert same_bitmap(pixels(QImage(str(shown))),
                       pixels(QImage(str(ICONS / "16x16" / "mpstudio.png"))))
