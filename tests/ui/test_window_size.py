"""The main window fits the screen it opens on: a 1280x800 laptop screen recreated with
Qt's offscreen platform (its configfile sets the screen), in a fresh process each."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from PySide6.QtCore import QRect, QSettings, QSize

from mpstudio.ui.window.window_size import FRAME, PREFERRED, first_size, fits

from support.gui_helpers import bare_window

OPEN_WINDOW = """
import json, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from mpstudio.ui.window.main_window import MainWindow
window = MainWindow(QSettings(sys.argv[1], QSettings.Format.IniFormat))
window.show()
app.processEvents()
g, a = window.geometry(), window.screen().availableGeometry()
print(json.dumps({"window": [g.x(), g.y(), g.width(), g.height()],
                  "screen": [a.x(), a.y(), a.width(), a.height()]}))
window.confirm_close = lambda: True
window.close()
"""


def _open_on(tmp_path, width: int, height: int, ini) -> tuple[QRect, QRect]:
    config = tmp_path / f"screen_{width}x{height}.json"
    config.write_text(json.dumps({"screens": [{"name": "s", "x": 0, "y": 0, "width": width,
                                               "height": height, "logicalDpi": 96,
                                               "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    done = subprocess.run([sys.executable, "-c", OPEN_WINDOW, str(ini)], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    return QRect(*shown["window"]), QRect(*shown["screen"])


def test_the_first_size_is_the_preferred_one_where_the_screen_has_room():
    assert first_size(QRect(0, 0, 1920, 1080)) == PREFERRED
    laptop = first_size(QRect(0, 0, 1280, 800))
    assert laptop == QSize(1280, 800) - FRAME
    assert fits(QRect(QRect(0, 0, 1, 1).topLeft(), laptop), QRect(0, 0, 1280, 800))
    assert not fits(QRect(0, 0, 1480, 940), QRect(0, 0, 1280, 800))


def test_a_first_launch_on_a_laptop_screen_fits_it(tmp_path):
    window, screen = _open_on(tmp_path, 1280, 800, tmp_path / "fresh.ini")
    assert window.width() + FRAME.width() <= screen.width()
    assert window.height() + FRAME.height() <= screen.height()
    assert screen.contains(window)


def test_a_size_saved_on_a_large_screen_is_not_restored_on_a_laptop(qtbot, tmp_path):
    ini = tmp_path / "window.ini"
    big = bare_window(qtbot, ini, (1800, 1000))  # this process's screen: 1920x1080
    big.save_settings()
    big.close()
    assert QSettings(str(ini), QSettings.Format.IniFormat).value("window/geometry")
    saved = ini.read_bytes()  # each launch below saves its own size as it closes
    window, screen = _open_on(tmp_path, 1280, 800, ini)
    assert window.width() + FRAME.width() <= screen.width()
    assert window.height() + FRAME.height() <= screen.height()
    # ... and where it fits, the saved size is the user's and comes back
    ini.write_bytes(saved)
    window, _ = _open_on(tmp_path, 1920, 1200, ini)
    assert (window.width(), window.height()) == (1800, 1000)
