"""The window's process never imports TensorFlow: a full click-through (a comparison,
History's plot and compare, File > Export model, Hardware > Measure, close) in its
own process, then a look at its ``sys.modules``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support.paths import SUPPORT

pytestmark = pytest.mark.slow

SCRIPT = SUPPORT / "gui_click_through.py"


def test_a_full_click_through_never_imports_tensorflow_in_the_window(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                          text=True, timeout=280, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["ended"] == ["finished"] and seen["card"] and seen["measured"]
    assert seen["exported"] == ["model.keras"]
    assert seen["loaded"] == [], f"the window's process imported {seen['loaded']}"
