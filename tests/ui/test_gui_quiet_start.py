"""The window launched from a terminal: TensorFlow's lines stay out of it, and in the
engine's log file.

``launch()`` used to set TF_CPP_MIN_LOG_LEVEL=2, which the TensorFlow import took as
the user asking for logs; absl's pre-init lines (printed whatever the level) reached
the terminal, twice. Later an image folder read while the engine loaded TensorFlow
imported it a second time, unhidden, on the data lane. Now the engine's stderr is its
log file, where TensorFlow's warnings and errors stay findable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mpstudio.engine.quiet_stderr import LOG_KEEP_BYTES

from support.commands import TENSORFLOW_NOISE
from support.user_data_files import write_image_folder

# absl's log line: severity, date, time, thread id, file:line (I0000 00:00:17.. 123 x.cc:1])
TENSORFLOW_LOG_LINE = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d+\.\d+ +\d+ \S+:\d+\]", re.M)
# Without a usable NVIDIA GPU, TensorFlow logs "failed call to cuInit" as it lists GPUs.
NO_GPU = not any(Path("/proc/driver/nvidia/gpus").glob("*"))

# launch() as `mpstudio` runs it (the window shows, then closes at once); then a window
# whose engine process loads TensorFlow while it reads an image folder (a dataset the
# window remembered), as MainWindow.start_background does. Its stderr is the terminal's too.
LAUNCH_THEN_LOAD = """
import os, sys
os.environ["MPSTUDIO_EXIT_AFTER_SHOW"] = "1"
from mpstudio.ui import app
assert app.launch([]) == 0
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
from mpstudio.engine.service.job_requests import InspectDatasetRequest
from mpstudio.ui.window.main_window import MainWindow
window = MainWindow()
window.show()
loop = QEventLoop()
window.engine.ready.connect(lambda ready: (print("TensorFlow", ready.versions["TensorFlow"]),
                                           loop.quit()))
window.engine.load_failed.connect(lambda message: (print("load failed", message),
                                                   loop.quit()))
QTimer.singleShot(120_000, loop.quit)
window.engine.start()
read = window.engine.submit(InspectDatasetRequest(sys.argv[1], {}))
read.on_result(lambda report: print("read", report.num_classes, "classes"))
read.errored.connect(lambda message: print("read failed", message))
loop.exec()
for line in window.log.lines():
    print("log:", line)
window.close()  # stops the hardware check the engine started on, then closes
closed = QEventLoop()
window.closed.connect(closed.quit)
QTimer.singleShot(60_000, closed.quit)
if not window._closed:
    closed.exec()
assert window._closed and window.engine.pid is None
"""


def test_the_window_loads_tensorflow_quietly_and_keeps_its_log(tmp_path):
    images = write_image_folder(tmp_path / "pets")
    log_dir = tmp_path / "log"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               MPSTUDIO_CONFIG_DIR=str(tmp_path / "config"), MPSTUDIO_LOG_DIR=str(log_dir))
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    proc = subprocess.run([sys.executable, "-c", LAUNCH_THEN_LOAD, str(images)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "window visible after" in proc.stdout and "TensorFlow 2." in proc.stdout, \
        proc.stdout
    assert "read 2 classes" in proc.stdout, proc.stdout
    # the terminal: no line of TensorFlow's, the CUDA probe's error included
    assert [line for line in TENSORFLOW_NOISE if line in proc.stderr] == [], proc.stderr
    assert not TENSORFLOW_LOG_LINE.search(proc.stderr), proc.stderr
    assert "cuInit" not in proc.stderr, proc.stderr
    # the engine's log file: what TensorFlow printed, kept; the window's log names it
    engine_log = log_dir / "engine.log"
    kept = engine_log.read_text()
    assert "absl::InitializeLog" in kept and TENSORFLOW_LOG_LINE.search(kept), kept
    if NO_GPU:
        assert "failed call to cuInit" in kept, kept
    assert f"its log: {engine_log}" in proc.stdout, proc.stdout


ENGINE_LOG = """
import sys
from mpstudio.engine.quiet_stderr import engine_log
print(engine_log(), flush=True)
print("Traceback (most recent call last):", file=sys.stderr, flush=True)
"""


@pytest.mark.parametrize("asked", [False, True], ids=["default", "TF_CPP_MIN_LOG_LEVEL=0"])
def test_the_engine_log_takes_stderr_unless_tensorflow_logs_are_asked_for(tmp_path, asked):
    log = tmp_path / "engine.log"
    log.write_bytes(b"x" * (LOG_KEEP_BYTES + 1))  # a long-grown log is moved aside
    env = dict(os.environ, MPSTUDIO_LOG_DIR=str(tmp_path))
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    if asked:
        env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    proc = subprocess.run([sys.executable, "-c", ENGINE_LOG], capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    if asked:  # everything on the terminal, as asked; the file untouched
        assert proc.stdout.strip() == "None" and "Traceback" in proc.stderr
        assert log.stat().st_size == LOG_KEEP_BYTES + 1
        return
    assert proc.stdout.strip() == str(log) and proc.stderr == ""
    kept = log.read_text()
    assert kept.startswith("--- mpstudio engine process ") and "Traceback" in kept
    assert (tmp_path / "engine.log.1").stat().st_size == LOG_KEEP_BYTES + 1
