"""The window launched from a terminal: TensorFlow's start-up lines stay out of it.

``launch()`` used to set TF_CPP_MIN_LOG_LEVEL=2, which the TensorFlow import took as
the user asking for logs; absl's pre-init lines (printed whatever the level) reached
the terminal, twice."""

from __future__ import annotations

import os
import subprocess
import sys

from test_cli import TENSORFLOW_NOISE

# launch() as `mpstudio` runs it (the window shows, then closes at once); then a window
# whose engine process loads TensorFlow (its stderr is the terminal's too).
LAUNCH_THEN_LOAD = """
import os
os.environ["MPSTUDIO_EXIT_AFTER_SHOW"] = "1"
from mpstudio.ui import app
assert app.launch([]) == 0
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
from mpstudio.ui.window.main_window import MainWindow
window = MainWindow()
window.show()
loop = QEventLoop()
window.engine.ready.connect(lambda ready: (print("TensorFlow", ready.versions["TensorFlow"]),
                                           loop.quit()))
QTimer.singleShot(120_000, loop.quit)
window.engine.start()
loop.exec()
window.close()  # stops the hardware check the engine started on, then closes
closed = QEventLoop()
window.closed.connect(closed.quit)
QTimer.singleShot(60_000, closed.quit)
if not window._closed:
    closed.exec()
assert window._closed and window.engine.pid is None
"""


def test_the_window_loads_tensorflow_quietly(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               MPSTUDIO_CONFIG_DIR=str(tmp_path / "config"))
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    proc = subprocess.run([sys.executable, "-c", LAUNCH_THEN_LOAD], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "window visible after" in proc.stdout and "TensorFlow 2." in proc.stdout
    assert [line for line in TENSORFLOW_NOISE if line in proc.stderr] == [], proc.stderr
