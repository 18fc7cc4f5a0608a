"""The system libraries Qt's X11 platform plugin (xcb) needs, checked before Qt loads it.

A pip-installed PySide6 brings Qt but not the X11 libraries its xcb plugin links to.
On a fresh Debian, Ubuntu or Fedora desktop some are missing (PySide6 6.11:
libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1), and Qt then aborts (exit 134) with a
message that names only the first. ``ldd`` on the plugin lists every library it would
not find; the launch says them all at once, with the command that installs them on this
distribution, and exits 1 instead.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

LDD_SECONDS = 5.0  # ldd takes about 20 ms; a hung one must not hold the start
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$", re.M)  # ld.so's trace format

# The library file each package installs: (Debian/Ubuntu, Fedora, Arch). The first
# three are the ones a fresh desktop lacks; the rest are there in most installs.
PACKAGES: dict[str, tuple[str, str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil",
                                "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon", "libxkbcommon"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb", "libx11"),
    "libX11.so.6": ("libx11-6", "libX11", "libx11"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl", "libglvnd"),
    "libGL.so.1": ("libgl1", "libglvnd-glx", "libglvnd"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl", "libglvnd"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype", "freetype2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs", "dbus"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2", "glib2"),
}
# the rest of libxcb's extensions: one package each on Debian, all in libxcb elsewhere
for _ext in ("randr", "shape", "xfixes", "shm", "render", "xinerama", "xinput", "glx"):
    PACKAGES[f"libxcb-{_ext}.so.0"] = (f"libxcb-{_ext}0", "libxcb", "libxcb")
PACKAGES["libxcb-sync.so.1"] = ("libxcb-sync1", "libxcb", "libxcb")
PACKAGES["libxcb-xkb.so.1"] = ("libxcb-xkb1", "libxcb", "libxcb")
PACKAGES["libxcb.so.1"] = ("libxcb1", "libxcb", "libxcb")

# (the os-release IDs of a family, its install command, its column in PACKAGES)
FAMILIES = (
    (("debian", "ubuntu"), "sudo apt install", 0),
    (("fedora", "rhel", "centos"), "sudo dnf install", 1),
    (("arch",), "sudo pacman -S", 2),
)


def xcb_expected(environ: Mapping[str, str], platform: str) -> bool:
    """Whether Qt will load the xcb plugin: Linux, QT_QPA_PLATFORM xcb, or unset with an
    X display and no Wayland one (on Wayland Qt takes its wayland plugin first)."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def xcb_plugin() -> Path:
    """This Qt's xcb platform plugin (it may not exist: a build without it)."""
    from PySide6.QtCore import QLibraryInfo

    plugins = QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)
    return Path(plugins) / "platforms" / "libqxcb.so"


def run_ldd(plugin: Path) -> str:
    """What ``ldd`` prints for ``plugin``; "" where it cannot say (no ldd, a hang)."""
    try:
        done = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True,
                              timeout=LDD_SECONDS, env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout


def not_found(ldd_output: str) -> list[str]:
    """The libraries ldd's output says are not found, once each, in its order."""
    return list(dict.fromkeys(NOT_FOUND.findall(ldd_output)))


def missing_libraries(plugin: Path, ldd: Callable[[Path], str] = run_ldd) -> list[str]:
    """The libraries ``plugin`` needs that the system cannot find (directly or through
    Qt's own libraries); none where the plugin is not there or ldd cannot tell."""
    if not plugin.is_file():
        return []
    return not_found(ldd(plugin))


def os_release(path: Path = Path("/etc/os-release")) -> dict[str, str]:
    """The distribution's identification (``ID``, ``ID_LIKE``...); {} where unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.startswith("#"):
            fields[key.strip()] = value.strip().strip("\"'")
    return fields


def install_command(libraries: Sequence[str], release: Mapping[str, str]) -> str | None:
    """The command that installs the packages holding ``libraries`` on this
    distribution, or None: a distribution not known here, or no package known."""
    ids = {release.get("ID", ""), *release.get("ID_LIKE", "").split()}
    for family, command, column in FAMILIES:
        if ids & set(family):
            packages = [package_of(name, column) for name in libraries]
            known = list(dict.fromkeys(p for p in packages if p))
            return f"{command} {' '.join(known)}" if known else None
    return None


def package_of(library: str, column: int) -> str | None:
    """The package that installs ``library``; Debian's name follows its library
    policy where the table has none (libfoo.so.1 -> libfoo1, libfoo-2.so.0 -> libfoo-2-0)."""
    if library in PACKAGES:
        return PACKAGES[library][column]
    match = re.fullmatch(r"(lib[\w.+-]+?)\.so\.(\d+)", library)
    if column != 0 or match is None or library.startswith("libQt6"):
        return None  # Qt's own: PySide6 brings them (a broken install, not a package)
    base, version = match.groups()
    return f"{base.lower()}{'-' if base[-1].isdigit() else ''}{version}"
