"""Whether Qt can open a window here, checked before QApplication exists: Qt itself
aborts (exit -6) with its own message when QT_QPA_PLATFORM names no plugin it has, or
when the display it connects to does not answer (a DISPLAY left over from an ssh session
that has ended, a WAYLAND_DISPLAY whose compositor is gone). The launch says what is
wrong and what to do in one line, exits 1, and logs it (ui/app.py).

Only what can be known without Qt: the platform plugins on disk, and whether anything
listens where DISPLAY / WAYLAND_DISPLAY point (X11's Unix socket, its abstract twin on
Linux, or TCP port 6000+N for ``host:N``; the compositor's socket in XDG_RUNTIME_DIR).
An X server that refuses our credentials is still Qt's to say.
"""

from __future__ import annotations

import contextlib
import re
import socket
from collections.abc import Mapping
from pathlib import Path

X11_SOCKETS = Path("/tmp/.X11-unix")
X11_TCP_BASE = 6000
CONNECT_SECONDS = 1.0
DISPLAY_FORM = re.compile(r"^(?P<host>[^:]*):(?P<number>\d+)(?:\.\d+)?$")


def platform_plugins(folder: Path) -> list[str]:
    """The platform plugins a Qt has (libqxcb.so -> "xcb"), sorted."""
    names = {path.name.split(".")[0].removeprefix("libq").removeprefix("q")
             for path in folder.glob("*q*") if path.suffix in (".so", ".dylib", ".dll")}
    return sorted(names)


def requested_platforms(env: Mapping[str, str]) -> list[str]:
    """QT_QPA_PLATFORM's names ("wayland;xcb" is a list; "vnc:size=800x600" has options)."""
    value = env.get("QT_QPA_PLATFORM", "")
    return [part.split(":")[0].strip() for part in value.split(";") if part.strip()]


def unknown_platform(env: Mapping[str, str], plugins: list[str]) -> bool:
    """QT_QPA_PLATFORM is set and names none of the plugins this Qt has."""
    wanted = requested_platforms(env)
    return bool(wanted) and not any(name in plugins for name in wanted)


def x11_answers(display: str, sockets: Path = X11_SOCKETS,
                seconds: float = CONNECT_SECONDS) -> bool:
    """Something listens where the X11 ``display`` (":0", "localhost:10.0") points."""
    form = DISPLAY_FORM.match(display.strip())
    if form is None:
        return True  # a form this check does not know (a launchd path): Qt's to judge
    host, number = form["host"], int(form["number"])
    if host in ("", "unix"):
        path = str(sockets / f"X{number}")
        return any(_connects(socket.AF_UNIX, address, seconds)
                   for address in (path, "\0" + path))  # the file, or Linux's abstract
    return _connects(socket.AF_INET, (host, X11_TCP_BASE + number), seconds)


def wayland_answers(env: Mapping[str, str], seconds: float = CONNECT_SECONDS) -> bool:
    """Something listens at WAYLAND_DISPLAY (a name in XDG_RUNTIME_DIR, or a path)."""
    name = env.get("WAYLAND_DISPLAY", "")
    path = Path(name) if name.startswith("/") else \
        Path(env.get("XDG_RUNTIME_DIR", "")) / name
    return _connects(socket.AF_UNIX, str(path), seconds)


def silent_displays(env: Mapping[str, str]) -> list[str]:
    """The displays set for Qt that nothing answers ("DISPLAY=:99"), where Qt would use
    one and none answers; [] where one answers, or none is Qt's to connect to."""
    wanted = requested_platforms(env)
    candidates = []
    if env.get("WAYLAND_DISPLAY") and (not wanted or "wayland" in wanted):
        candidates.append(("WAYLAND_DISPLAY", wayland_answers(env)))
    if env.get("DISPLAY") and (not wanted or "xcb" in wanted):
        candidates.append(("DISPLAY", x11_answers(env["DISPLAY"])))
    if not candidates or any(answers for _name, answers in candidates):
        return []
    return [f"{name}={env[name]}" for name, _answers in candidates]


def _connects(family: int, address: object, seconds: float) -> bool:
    with contextlib.suppress(OSError, ValueError), socket.socket(family) as sock:
        sock.settimeout(seconds)
        sock.connect(address)  # type: ignore[arg-type]
        return True
    return False
