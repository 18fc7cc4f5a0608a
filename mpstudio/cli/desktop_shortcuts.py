"""``mpstudio desktop install`` on Windows and macOS: a Start menu shortcut, an app bundle.

Windows: ``mpstudio.lnk`` in the user's Start menu programs folder, made by PowerShell
through the WScript.Shell COM object (the shell's own way to write a .lnk, with no
extra Python package), pointing at ``mpstudio-gui.exe`` with the app's .ico.
macOS: a minimal ``~/Applications/mpstudio.app``: an Info.plist naming the app's id, the
.icns, and a shell script that execs the ``mpstudio-gui`` launcher. Both are written
from parameters (the folders, the launcher), so their files and commands are checked on
any system; only running them needs the real platform.
"""

from __future__ import annotations

import base64
import contextlib
import plistlib
import shlex
import shutil
import subprocess
from pathlib import Path

from mpstudio import APP_ID, __version__
from mpstudio.cli.desktop_entry import DesktopError, Installed, Places
from mpstudio.engine.i18n import _
from mpstudio.engine.report.files import atomic_write_bytes, atomic_write_text
from mpstudio.resources import where

SHORTCUT = "mpstudio.lnk"
BUNDLE = "mpstudio.app"
BUNDLE_EXECUTABLE = "mpstudio"
# The first lines of the bundle's script: how uninstall knows the bundle is its own.
_MARKER = "# Written by `mpstudio desktop install`: opens the mpstudio window."
# PowerShell ends a single-quoted string at any of these, and reads two as one literal.
_POWERSHELL_QUOTES = "'\u2018\u2019\u201a\u201b"


def shortcut_path(places: Places) -> Path:
    return places.start_menu() / SHORTCUT


def powershell_literal(text: str) -> str:
    """``text`` as a PowerShell single-quoted string: no variable or escape inside is
    expanded; each quote character is doubled."""
    for quote in _POWERSHELL_QUOTES:
        text = text.replace(quote, quote * 2)
    return f"'{text}'"


def shortcut_script(shortcut: Path, target: Path, icon: Path | None, folder: Path,
                    description: str) -> str:
    """The PowerShell that writes ``shortcut`` (a .lnk) to start ``target``."""
    lines = ["$ErrorActionPreference = 'Stop'",
             "$link = (New-Object -ComObject WScript.Shell).CreateShortcut("
             f"{powershell_literal(str(shortcut))})",
             f"$link.TargetPath = {powershell_literal(str(target))}",
             f"$link.WorkingDirectory = {powershell_literal(str(folder))}",
             f"$link.Description = {powershell_literal(description)}"]
    if icon is not None:
        lines.append(f"$link.IconLocation = {powershell_literal(f'{icon},0')}")
    lines.append("$link.Save()")
    return "\n".join(lines) + "\n"


def powershell_command(script: str, powershell: str = "powershell.exe") -> list[str]:
    """The command line that runs ``script``: -EncodedCommand (base64 of UTF-16LE), so no
    quote, space or non-ASCII character in a path meets Windows' command-line parsing."""
    encoded = base64.b64encode(script.encode("utf-16-le")).decode("ascii")
    return [powershell, "-NoProfile", "-NonInteractive", "-EncodedCommand", encoded]


def _icon_file(name: str) -> Path | None:
    """The shipped icon as a file that stays where it is (an installed package or the
    frozen app's folder), or None."""
    path = Path(str(where("icons", name)))
    return path if path.is_file() else None


def install_windows(places: Places, launcher: Path) -> Installed:
    shortcut = shortcut_path(places)
    powershell = shutil.which("powershell.exe") or shutil.which("pwsh")
    if powershell is None:
        raise DesktopError(_("PowerShell was not found, and it writes the Start menu "
                             "shortcut"))
    script = shortcut_script(shortcut, launcher, _icon_file("mpstudio.ico"), places.home,
                             _("Mixed-precision training workbench"))
    try:
        shortcut.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(powershell_command(script, powershell), capture_output=True,
                              text=True, timeout=120, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise DesktopError(_("PowerShell could not make the Start menu shortcut ({reason}): "
                             "run `mpstudio desktop install` again from a Windows terminal"
                             ).format(reason=exc)) from exc
    if done.returncode != 0 or not shortcut.is_file():
        raise DesktopError(_("PowerShell could not write {path}: {output}").format(
            path=shortcut, output=(done.stderr or done.stdout).strip()))
    return Installed(launcher, [shortcut], [])


def uninstall_windows(places: Places) -> list[Path]:
    shortcut = shortcut_path(places)
    if not shortcut.is_file():
        return []
    try:
        shortcut.unlink()
    except OSError as exc:
        raise DesktopError.of(exc) from exc
    return [shortcut]


def bundle_path(places: Places) -> Path:
    return places.applications() / BUNDLE


def info_plist() -> bytes:
    """The bundle's Info.plist: its id (the desktop entry's), name, version, icon."""
    return plistlib.dumps({
        "CFBundleIdentifier": APP_ID,
        "CFBundleName": "mpstudio",
        "CFBundleDisplayName": "mpstudio",
        "CFBundleExecutable": BUNDLE_EXECUTABLE,
        "CFBundleIconFile": "mpstudio.icns",
        "CFBundlePackageType": "APPL",
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleShortVersionString": __version__,
        "CFBundleVersion": __version__,
        "LSApplicationCategoryType": "public.app-category.developer-tools",
        "NSHighResolutionCapable": True,
    })


def bundle_script(launcher: Path) -> str:
    """The bundle's executable: a shell script that becomes the launcher (exec keeps the
    process the one macOS started for the bundle)."""
    return f'#!/bin/sh\n{_MARKER}\nexec {shlex.quote(str(launcher))} "$@"\n'


def _bundle_files(bundle: Path) -> dict[str, Path]:
    contents = bundle / "Contents"
    return {"plist": contents / "Info.plist",
            "script": contents / "MacOS" / BUNDLE_EXECUTABLE,
            "icns": contents / "Resources" / "mpstudio.icns"}


def _check_ours(bundle: Path) -> None:
    """A bundle of that name that this command did not write (the standalone app
    dragged there, say) is left alone."""
    if not bundle.exists():
        return
    script = _bundle_files(bundle)["script"]
    try:
        ours = _MARKER in script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        ours = False
    if not ours:
        raise DesktopError(_("{path} was not made by `mpstudio desktop install`, so it is "
                             "left as it is; move it elsewhere first").format(path=bundle))


def install_macos(places: Places, launcher: Path) -> Installed:
    bundle = bundle_path(places)
    _check_ours(bundle)
    files = _bundle_files(bundle)
    try:
        for path in files.values():
            path.parent.mkdir(parents=True, exist_ok=True)
        written = [atomic_write_bytes(files["plist"], info_plist()),
                   atomic_write_text(files["script"], bundle_script(launcher)),
                   atomic_write_bytes(files["icns"],
                                      where("icons", "mpstudio.icns").read_bytes())]
        files["script"].chmod(0o755)
    except OSError as exc:
        raise DesktopError.of(exc) from exc
    return Installed(launcher, written, [])


def uninstall_macos(places: Places) -> list[Path]:
    bundle = bundle_path(places)
    if not bundle.exists():
        return []
    _check_ours(bundle)
    removed = []
    try:
        for path in _bundle_files(bundle).values():
            if path.is_file():
                path.unlink()
                removed.append(path)
    except OSError as exc:
        raise DesktopError.of(exc) from exc
    for folder in ("Contents/MacOS", "Contents/Resources", "Contents", ""):
        with contextlib.suppress(OSError):  # what someone else put inside stays
            (bundle / folder).rmdir()
    return removed
