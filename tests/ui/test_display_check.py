"""The window's start where Qt would abort with its own message (exit -6): a
QT_QPA_PLATFORM naming no plugin this Qt has, a DISPLAY or WAYLAND_DISPLAY that nothing
answers (ui/display_check.py). Real sockets stand in for an X server and a compositor;
the launch itself runs in a process of its own: one line, exit 1, the same in the log."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QLibraryInfo

from mpstudio.ui import display_check as check

from support.paths import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="X11 and Wayland sockets are Linux's")


def _listening_unix(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    return server


def test_this_qts_platform_plugins_and_a_name_it_lacks():
    folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    plugins = check.platform_plugins(folder)
    assert {"xcb", "offscreen", "minimal"} <= set(plugins)
    assert check.unknown_platform({"QT_QPA_PLATFORM": "nosuchplugin"}, plugins)
    assert not check.unknown_platform({"QT_QPA_PLATFORM": "nosuch;offscreen"}, plugins)
    assert not check.unknown_platform({"QT_QPA_PLATFORM": "vnc:size=800x600"}, plugins)
    assert not check.unknown_platform({}, plugins)


def test_an_x11_display_answers_on_its_socket_or_its_tcp_port(tmp_path):
    with _listening_unix(tmp_path / "X5"):
        assert check.x11_answers(":5", sockets=tmp_path)
        assert check.x11_answers("unix:5.0", sockets=tmp_path)
        assert not check.x11_answers(":6", sockets=tmp_path)
    with socket.socket() as tcp:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(1)
        number = tcp.getsockname()[1] - check.X11_TCP_BASE  # ssh -X's localhost:10.0 form
        assert check.x11_answers(f"127.0.0.1:{number}.0")
    assert not check.x11_answers(f"127.0.0.1:{number}.0")  # closed now


def test_which_displays_are_silent(tmp_path):
    env = {"XDG_RUNTIME_DIR": str(tmp_path), "WAYLAND_DISPLAY": "wayland-9",
           "DISPLAY": ":987"}
    assert check.silent_displays(env) == ["WAYLAND_DISPLAY=wayland-9", "DISPLAY=:987"]
    with _listening_unix(tmp_path / "wayland-9"):
        assert check.silent_displays(env) == []  # Qt has one that answers
        assert check.silent_displays({**env, "QT_QPA_PLATFORM": "xcb"}) == ["DISPLAY=:987"]
    assert check.silent_displays({**env, "QT_QPA_PLATFORM": "offscreen"}) == []
    assert check.silent_displays({}) == []  # no display at all: app.py says that


@pytest.mark.parametrize("changes, says", [
    ({"DISPLAY": ":987"}, "no display answers at DISPLAY=:987"),
    ({"QT_QPA_PLATFORM": "nosuchplugin", "DISPLAY": ":987"},
     "QT_QPA_PLATFORM=nosuchplugin names no platform this Qt has ("),
])
def test_the_window_says_why_it_cannot_open_and_exits_1(tmp_path, changes, says):
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "DISPLAY")}
    env.update(changes, MPSTUDIO_LOG_DIR=str(tmp_path / "log"), MPSTUDIO_LANG="en")
    # a plugin whose libraries are all here (this machine's xcb may lack some: that
    # check comes first and is tests/ui/test_xcb_libraries.py's)
    code = ("import sys; from pathlib import Path; from mpstudio.ui.app import launch; "
            "raise SystemExit(launch([], xcb_plugin=Path(sys.executable)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr
    assert lines[0].startswith("mpstudio: the window cannot open: ")
    assert says in (tmp_path / "log" / "window.log").read_text()
