"""Before Qt loads its xcb platform plugin, the launch names every system library the
plugin would not find, with the command that installs them here, and exits 1 (Qt
itself aborts with exit 134, naming only libxcb-cursor0). The plugin and ldd are real:
a copy of this Qt's libqxcb.so whose dependency names a library no system has."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpstudio.ui import xcb_libraries as xcb

from support.paths import ROOT

REAL_PLUGIN = xcb.xcb_plugin()
ABSENT = "libxcb-cursxr.so.0"  # libxcb-cursor.so.0 with one letter changed: nobody has it

needs_plugin = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not REAL_PLUGIN.is_file()
    or shutil.which("ldd") is None, reason="Linux with Qt's xcb plugin and ldd")


@pytest.fixture
def broken_plugin(tmp_path) -> Path:
    """A copy of the real plugin that needs ``ABSENT`` instead of libxcb-cursor.so.0
    (same length, so the ELF stays valid); Qt's own libraries are where its RUNPATH
    ($ORIGIN/../../lib) looks for them."""
    qt = REAL_PLUGIN.parents[2]
    (tmp_path / "Qt" / "plugins" / "platforms").mkdir(parents=True)
    (tmp_path / "Qt" / "lib").symlink_to(qt / "lib")
    copy = tmp_path / "Qt" / "plugins" / "platforms" / REAL_PLUGIN.name
    data = REAL_PLUGIN.read_bytes()
    assert b"libxcb-cursor.so.0\0" in data
    copy.write_bytes(data.replace(b"libxcb-cursor.so.0\0", ABSENT.encode() + b"\0"))
    return copy


def _window_env(tmp_path: Path) -> dict[str, str]:
    """An X11 session as a desktop's terminal has it (the display need not exist: the
    check comes before Qt opens it)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=":77", MPSTUDIO_LOG_DIR=str(tmp_path / "log"), MPSTUDIO_LANG="en")
    return env


@needs_plugin
def test_real_ldd_output_of_the_real_plugin():
    """What ldd prints for this Qt's plugin: each "=> not found" line is named once,
    no library ldd found is; the same output with a found line turned into the form ld.so
    prints for a missing one names that one too."""
    output = xcb.run_ldd(REAL_PLUGIN)
    lines = [line.strip() for line in output.splitlines() if "=>" in line]
    assert len(lines) > 20, output
    absent = [line.split()[0] for line in lines if line.endswith("not found")]
    assert xcb.not_found(output) == list(dict.fromkeys(absent))
    found = next(line for line in lines if line.startswith("libxcb-cursor.so.0 => /"))
    turned = output.replace(found, "libxcb-cursor.so.0 => not found")
    assert "libxcb-cursor.so.0" in xcb.not_found(turned)
    assert xcb.missing_libraries(REAL_PLUGIN) == xcb.not_found(output)


@needs_plugin
def test_a_plugin_needing_a_library_that_is_not_there(broken_plugin):
    missing = xcb.missing_libraries(broken_plugin)
    assert ABSENT in missing
    assert not any(name.startswith("libQt6") for name in missing)  # found by RUNPATH


def test_no_ldd_or_no_plugin_is_no_finding(tmp_path):
    assert xcb.missing_libraries(tmp_path / "libqxcb.so") == []
    assert xcb.missing_libraries(Path(sys.executable), ldd=lambda _p: "") == []


@pytest.mark.parametrize(("environ", "platform", "expected"), [
    ({"DISPLAY": ":0"}, "linux", True),
    ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, "linux", True),
    ({"QT_QPA_PLATFORM": "xcb:nograb"}, "linux", True),
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
    ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux", False),
    ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
    ({}, "linux", False),
    ({"DISPLAY": ":0"}, "darwin", False),
])
def test_when_qt_loads_the_xcb_plugin(environ, platform, expected):
    assert xcb.xcb_expected(environ, platform) is expected


FRESH = ["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
RELEASES = {  # the lines of /etc/os-release that matter, as each distribution writes them
    "debian": ('ID=debian\nVERSION_ID="12"\n',
               "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"),
    "ubuntu": ("ID=ubuntu\nID_LIKE=debian\n",
               "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"),
    "fedora": ('ID=fedora\nVERSION_ID=40\n',
               "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms"),
    "rocky": ('ID="rocky"\nID_LIKE="rhel centos fedora"\n',
              "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms"),
    "arch": ("ID=arch\n", "sudo pacman -S xcb-util-cursor xcb-util-wm xcb-util-keysyms"),
    "manjaro": ("ID=manjaro\nID_LIKE=arch\n",
                "sudo pacman -S xcb-util-cursor xcb-util-wm xcb-util-keysyms"),
    "unknown": ("ID=gentoo\n", None),
}


@pytest.mark.parametrize("name", RELEASES)
def test_the_install_command_of_each_distribution(tmp_path, name):
    text, command = RELEASES[name]
    (tmp_path / "os-release").write_text(text)
    assert xcb.install_command(FRESH, xcb.os_release(tmp_path / "os-release")) == command


def test_a_library_not_in_the_table():
    """Debian names a library's package by its soname; the others are named only."""
    debian, fedora = {"ID": "debian"}, {"ID": "fedora"}
    assert xcb.install_command(["libxcb-ewmh.so.2"], debian) == "sudo apt install libxcb-ewmh2"
    assert xcb.install_command(["libfoo2.so.0"], debian) == "sudo apt install libfoo2-0"
    assert xcb.install_command(["libxcb-ewmh.so.2"], fedora) is None
    assert xcb.install_command(["libQt6XcbQpa.so.6"], debian) is None
    assert xcb.os_release(Path("/nonexistent/os-release")) == {}


@needs_plugin
def test_the_window_process_says_what_is_missing_and_exits_1(tmp_path, broken_plugin):
    """The launch itself, in a process of its own, told to check the broken copy: one
    line on stderr, the same in window.log, exit 1, and no Qt abort."""
    code = ("import sys; from pathlib import Path; from mpstudio.ui.app import launch; "
            "raise SystemExit(launch([], xcb_plugin=Path(sys.argv[1])))")
    done = subprocess.run([sys.executable, "-c", code, str(broken_plugin)], cwd=ROOT,
                          env=_window_env(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("mpstudio: the window cannot open: Qt's X11 platform plugin")
    assert ABSENT in lines[0]
    log = (tmp_path / "log" / "window.log").read_text()
    assert lines[0].removeprefix("mpstudio: ") in log


@needs_plugin
def test_mpstudio_on_this_machine_names_what_its_x11_lacks(tmp_path):
    """`mpstudio` as a user starts it, where this machine lacks some of the plugin's
    libraries (a fresh Debian 12 has no libxcb-icccm4 or libxcb-keysyms1)."""
    missing = xcb.missing_libraries(REAL_PLUGIN)
    if not missing:
        pytest.skip("this machine has every library the xcb plugin needs")
    done = subprocess.run([sys.executable, "-m", "mpstudio"], cwd=ROOT,
                          env=_window_env(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and all(name in lines[0] for name in missing), done.stderr
    command = xcb.install_command(missing, xcb.os_release())
    assert command is None or f"`{command}`" in lines[0]


def test_the_readme_installs_what_the_check_would_name():
    """The Quick start's apt, dnf and pacman lines are the packages this module names
    for the X11 libraries a fresh desktop may lack; packaging/README.md names the same
    Debian ones."""
    import re

    libraries = ["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1",
                 "libxcb-image.so.0", "libxcb-render-util.so.0", "libxkbcommon-x11.so.0"]
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for line in quick_start.splitlines()
                if line.startswith("sudo ")]
    expected = [xcb.install_command(libraries, {"ID": name})
                for name in ("debian", "fedora", "arch")]
    assert commands == expected
    packaging = re.sub(r"\s+", " ", (ROOT / "packaging" / "README.md").read_text())
    debian = expected[0].removeprefix("sudo apt install ").split()
    assert ", ".join(debian[:-1]) + ", " + debian[-1] in packaging
