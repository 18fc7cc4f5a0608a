"""``mpstudio desktop install``'s work, without Qt or TensorFlow: a menu entry with the
app's icon for this user, pointing at the window's launcher (``mpstudio-gui``).

Linux and other XDG desktops: the desktop entry, the AppStream metainfo and the icons
under ``$XDG_DATA_HOME`` (default ``~/.local/share``), as the Desktop Entry and Icon Theme
specifications place a user's own apps. Windows and macOS: desktop_shortcuts.py.

The platform and the user's folders are parameters (``Places``), so each platform's
files can be written and checked anywhere; ``current_platform()`` and
``Places.of_this_user()`` are what the command passes.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mpstudio import APP_ID
from mpstudio.engine.i18n import _
from mpstudio.engine.report.files import (
    ReportError,
    atomic_write_bytes,
    atomic_write_text,
    write_error,
)
from mpstudio.resources import icon_png, icon_sizes, where

if TYPE_CHECKING:
    pass  # Python 3.11+; 3.10: importlib.abc

LINUX, WINDOWS, MACOS = "linux", "windows", "macos"
LAUNCHER = "mpstudio-gui"  # pyproject's gui-scripts entry: the window, no console
# The Desktop Entry spec's reserved characters: an Exec argument holding one is quoted.
_EXEC_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")


class DesktopError(Exception):
    """Installing or removing the entry cannot go on; the message says what to do."""

    @classmethod
    def of(cls, exc: OSError) -> DesktopError:
        """A file or folder that could not be written or removed, in words."""
        return cls(_("cannot change {path}: {reason}. Check that this user may write "
                     "there (owner, permissions, a read-only disk) and try again").format(
                         path=exc.filename or "?", reason=exc.strerror or exc))


@dataclass(frozen=True)
class Places:
    """The folders of one user that the entry goes into."""

    home: Path
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of_this_user(cls) -> Places:
        return cls(Path.home(), dict(os.environ))

    def data_home(self) -> Path:
        """$XDG_DATA_HOME, or ~/.local/share where it is unset or relative (the XDG Base
        Directory spec says to ignore a relative one)."""
        value = self.environ.get("XDG_DATA_HOME", "")
        return Path(value) if os.path.isabs(value) else self.home / ".local" / "share"

    def start_menu(self) -> Path:
        """The user's Start menu programs folder (Windows)."""
        appdata = self.environ.get("APPDATA") or str(self.home / "AppData" / "Roaming")
        return Path(appdata) / "Microsoft" / "Windows" / "Start Menu" / "Programs"

    def applications(self) -> Path:
        """~/Applications (macOS): the user's own apps, no administrator needed."""
        return self.home / "Applications"


@dataclass(frozen=True)
class Installed:
    launcher: Path
    written: list[Path]
    refreshed: list[str]  # the cache tools that ran


def current_platform() -> str:
    if sys.platform == "win32":
        return WINDOWS
    return MACOS if sys.platform == "darwin" else LINUX


def launcher_name(platform: str) -> str:
    return LAUNCHER + ".exe" if platform == WINDOWS else LAUNCHER


def launcher_folders() -> list[Path]:
    """Where pip puts this Python's scripts: beside the interpreter (a virtual
    environment), the scheme's scripts folder (Windows' Scripts\\), the user scheme's
    (``pip install --user``)."""
    folders = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    with contextlib.suppress(KeyError):  # a Python built without a user scheme
        user = sysconfig.get_preferred_scheme("user")
        folders.append(Path(sysconfig.get_path("scripts", user)))
    return folders


def find_launcher(platform: str, folders: Sequence[Path] | None = None,
                  search_path: str | None = None) -> Path | None:
    """The window's launcher as an absolute path: the frozen app itself (which opens the
    window when run without arguments), else ``mpstudio-gui`` in ``folders`` (default:
    launcher_folders()), else on ``search_path`` (default: $PATH); None if none is."""
    if getattr(sys, "frozen", False):  # Windows: the windowed program beside the console one
        program = Path(sys.executable).resolve()
        windowed = program.with_name(launcher_name(platform))
        return windowed if platform == WINDOWS and windowed.is_file() else program
    name = launcher_name(platform)
    for folder in launcher_folders() if folders is None else folders:
        candidate = folder / name
        if candidate.is_file() and (platform == WINDOWS or os.access(candidate, os.X_OK)):
            return candidate.absolute()
    found = shutil.which(name, path=search_path)
    return Path(found).absolute() if found else None


def exec_argument(arg: str) -> str:
    """One argument of a desktop entry's Exec key, as the Desktop Entry spec writes it:
    in double quotes when it holds a reserved character, with ``" ` $ \\`` escaped inside;
    then escaped again as a string value (each backslash doubled), and ``%`` doubled."""
    if any(c in _EXEC_RESERVED for c in arg):
        arg = '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'
    return _string_value(arg).replace("%", "%%")


def _string_value(text: str) -> str:
    """A desktop entry string value: backslash and control characters escaped."""
    for raw, escaped in (("\\", "\\\\"), ("\n", "\\n"), ("\t", "\\t"), ("\r", "\\r")):
        text = text.replace(raw, escaped)
    return text


def desktop_entry_text(launcher: Path) -> str:
    """The shipped entry with Exec and TryExec naming ``launcher`` by its absolute path
    (a menu does not search the user's PATH: a virtual environment is not on it)."""
    text = where("desktop", f"{APP_ID}.desktop").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^Exec=.*$", lambda _m: "Exec=" + exec_argument(str(launcher)), text)
    return re.sub(r"(?m)^TryExec=.*$", lambda _m: "TryExec=" + _string_value(str(launcher)),
                  text)


def _xdg_files(data_home: Path) -> dict[str, Path]:
    return {"desktop": data_home / "applications" / f"{APP_ID}.desktop",
            "metainfo": data_home / "metainfo" / f"{APP_ID}.metainfo.xml",
            "svg": data_home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"}


def install_xdg(places: Places, launcher: Path) -> Installed:
    """Write the entry, the metainfo and every icon size; refresh the caches. A launcher
    path with a % is refused: the spec escapes it as %%, but GLib checks that Exec's
    program exists before it turns %% back into %, and leaves the entry out of menus."""
    if "%" in str(launcher):  # GLib looks for the file with %% in its name: no entry
        raise DesktopError(_(
            "a menu entry cannot start {path}: GNOME does not find a program whose path "
            "holds a %; install mpstudio in a folder whose path has none").format(
                path=launcher))
    data_home = places.data_home()
    files = _xdg_files(data_home)
    hicolor = data_home / "icons" / "hicolor"
    contents: dict[Path, str | bytes] = {
        files["desktop"]: desktop_entry_text(launcher),
        files["metainfo"]: where("desktop", f"{APP_ID}.metainfo.xml").read_text(
            encoding="utf-8"),
        files["svg"]: where("icons", "mpstudio.svg").read_text(encoding="utf-8"),
        **{hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png": icon_png(size).read_bytes()
           for size in icon_sizes()}}
    for path in contents:  # all or nothing: a blocked icons folder stops it before the entry
        blocked = write_error(path, make_folders=True)
        if blocked is not None:
            raise DesktopError.of(blocked)
    new = [path for path in contents if not path.exists()]
    written: list[Path] = []
    try:
        for path, content in contents.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            written.append(atomic_write_text(path, content) if isinstance(content, str)
                           else atomic_write_bytes(path, content))
    except (OSError, ReportError) as exc:  # failed after the check (a full disk): undone
        for path in set(written) & set(new):
            path.unlink(missing_ok=True)
        if isinstance(exc, ReportError):  # it names the file
            raise
        raise DesktopError.of(exc) from exc
    return Installed(launcher, written, refresh_caches(data_home))


def _ours_under(data_home: Path) -> Iterator[Path]:
    yield from (p for p in _xdg_files(data_home).values() if p.is_file() or p.is_symlink())
    # every size a version of mpstudio may have put there: the file name is our own id
    yield from sorted((data_home / "icons" / "hicolor").glob(f"*/apps/{APP_ID}.png"))


def uninstall_xdg(places: Places) -> list[Path]:
    """Remove what install_xdg wrote (an empty size folder too); what was removed."""
    data_home = places.data_home()
    removed = []
    try:
        for path in list(_ours_under(data_home)):
            path.unlink()
            removed.append(path)
            if path.parent.parent.parent.name == "hicolor":  # hicolor/SIZE/apps/APP_ID.*
                with contextlib.suppress(OSError):  # not empty: another app's icons
                    path.parent.rmdir()
                    path.parent.parent.rmdir()
    except OSError as exc:
        raise DesktopError.of(exc) from exc
    if removed:
        refresh_caches(data_home)
    return removed


def refresh_caches(data_home: Path) -> list[str]:
    """Tell the desktop, best-effort (a failure here never fails the command): the
    applications folder's MIME cache, and the icon theme's. GTK uses a hicolor
    icon-theme.cache only while it is newer than the hicolor folder, and never looks
    inside the size folders for a newer icon, so a cache created here and left stale by
    the next app would hide that app's icon: the icon cache is only updated where one
    exists, after touching the folder (which alone makes GTK and Qt read the folders)."""
    ran = []
    applications = data_home / "applications"
    if _run_quietly("update-desktop-database", "-q", str(applications)):
        ran.append("update-desktop-database")
    hicolor = data_home / "icons" / "hicolor"
    with contextlib.suppress(OSError):
        os.utime(hicolor)
    if (hicolor / "icon-theme.cache").is_file() and _run_quietly(
            "gtk-update-icon-cache", "-f", "-t", "-q", str(hicolor)):
        ran.append("gtk-update-icon-cache")
    return ran


def _run_quietly(tool: str, *args: str) -> bool:
    """Run ``tool`` if it is installed; whether it succeeded."""
    path = shutil.which(tool)
    if path is None:
        return False
    try:
        done = subprocess.run([path, *args], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
