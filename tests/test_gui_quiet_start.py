"""The window launched from a terminal: TensorFlow's start-up lines stay out of it.

``launch()`` used to set TF_CPP_MIN_LOG_LEVEL=2, which the TensorFlow import took as
the user asking for logs; absl's pre-init lines (printed whatever the level) reached
the terminal, twice."""

from __future__ import annotations

import os
import subprocess
import sys

from test_cli import TENSORFLOW_NOISE

# launch() as `mpstudio` runs it (the window shows, then closes at once), then the job
# the window's engine thread runs first: importing TensorFlow.
LAUNCH_THEN_LOAD = """
import os
os.environ["MPSTUDIO_EXIT_AFTER_SHOW"] = "1"
from mpstudio.ui import app, engine_jobs
assert app.launch([]) == 0
print("TensorFlow", engine_jobs.load_tensorflow().versions["TensorFlow"])
"""


def test_the_window_loads_tensorflow_quietly():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    proc = subprocess.run([sys.executable, "-c", LAUNCH_THEN_LOAD], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "window visible after" in proc.stdout and "TensorFlow 2." in proc.stdout
    assert [line for line in TENSORFLOW_NOISE if line in proc.stderr] == [], proc.stderr
