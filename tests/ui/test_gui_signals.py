"""The app quits on SIGTERM, Ctrl-C (SIGINT) and SIGHUP as File > Quit does: settings
and window layout saved, the history closed cleanly, the engine process ended, exit 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

pytestmark = pytest.mark.slow


def _engine_of(proc: subprocess.Popen, seconds: float) -> psutil.Process:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                if "mpstudio.engine.service" in " ".join(child.cmdline()):
                    return child
            except psutil.Error:
                continue
        time.sleep(0.1)
    raise AssertionError("the app did not start its engine process")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_quit_signal_quits_like_file_quit(tmp_path, sig, seed_cpu_rates):
    config, history = tmp_path / "config", tmp_path / "history.sqlite3"
    seed_cpu_rates(tmp_path / "data")  # the setup's prediction reads them, not measures
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", MPSTUDIO_CONFIG_DIR=str(config),
               MPSTUDIO_HISTORY=str(history), MPSTUDIO_DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.Popen([sys.executable, "-m", "mpstudio"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        engine = _engine_of(proc, 60)
        time.sleep(1.0)  # the window is up and its history open
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert (config / "window.ini").is_file()  # the settings and the layout were saved
    assert history.is_file()
    assert not (tmp_path / "history.sqlite3-wal").exists()  # closed cleanly
    engine_gone = not engine.is_running() or engine.status() == psutil.STATUS_ZOMBIE
    assert engine_gone, "the engine process outlived the app"
