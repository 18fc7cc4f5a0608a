"""``mpstudio desktop install`` / ``uninstall``: the app in this user's desktop menu
(Linux and other XDG desktops), Start menu (Windows) or ~/Applications (macOS), with its
icon, opening the window through the ``mpstudio-gui`` launcher. The work is done by
desktop_entry.py and desktop_shortcuts.py; this module parses and prints."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mpstudio.cli import desktop_shortcuts as shortcuts
from mpstudio.cli.desktop_entry import (
    LINUX,
    MACOS,
    WINDOWS,
    DesktopError,
    Installed,
    Places,
    current_platform,
    find_launcher,
    install_xdg,
    launcher_name,
    uninstall_xdg,
)
from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, error_line
from mpstudio.engine.i18n import _
from mpstudio.engine.report.files import ReportError

COMMAND = "desktop"
_INSTALL: dict[str, Callable[[Places, Path], Installed]] = {
    LINUX: install_xdg, WINDOWS: shortcuts.install_windows, MACOS: shortcuts.install_macos}
_UNINSTALL: dict[str, Callable[[Places], list[Path]]] = {
    LINUX: uninstall_xdg, WINDOWS: shortcuts.uninstall_windows,
    MACOS: shortcuts.uninstall_macos}


def add_desktop_command(commands: Any) -> None:
    desktop = commands.add_parser(
        COMMAND, help=_("add mpstudio to the desktop's app menu with its icon, or remove it"),
        description=_("For this user only, no administrator needed. Linux: a desktop entry "
                      "and icons in $XDG_DATA_HOME (default ~/.local/share); Windows: a Start "
                      "menu shortcut; macOS: mpstudio.app in ~/Applications. Each opens the "
                      "window through the `mpstudio-gui` launcher that `pip` installs with "
                      "mpstudio."))
    sub = desktop.add_subparsers(dest="desktop_command", required=True,
                                 metavar="{install,uninstall}", parser_class=type(desktop))
    install = sub.add_parser("install", help=_("add the menu entry (again: updates it)"))
    uninstall = sub.add_parser("uninstall",
                               help=_("remove what `mpstudio desktop install` added"))
    for parser in (install, uninstall):
        parser.add_argument("--json", action="store_true", help=_("print JSON to stdout"))


def run_desktop_command(args: argparse.Namespace,
                        places: Places | None = None, platform: str | None = None) -> int:
    """``places`` and ``platform``: this user's and this system's unless given."""
    places = places or Places.of_this_user()
    platform = platform or current_platform()
    command = f"{COMMAND} {args.desktop_command}"
    try:
        if args.desktop_command == "install":
            return _install(places, platform, args.json, command)
        return _uninstall(places, platform, args.json)
    except (DesktopError, ReportError) as exc:
        print(error_line(command, exc), file=sys.stderr)
        return EXIT_FAILED


def _install(places: Places, platform: str, as_json: bool, command: str) -> int:
    launcher = find_launcher(platform)
    if launcher is None:
        print(error_line(command, _(
            "the window's launcher {name} is neither beside {python} nor on PATH. `pip` "
            "writes it when it installs mpstudio: reinstall (`pip install --force-reinstall "
            "mpstudio`), or add the folder that holds it to PATH").format(
                name=launcher_name(platform), python=sys.executable)), file=sys.stderr)
        return EXIT_FAILED
    done = _INSTALL[platform](places, launcher)
    if as_json:
        print(json.dumps({"platform": platform, "launcher": str(done.launcher),
                          "written": [str(p) for p in done.written],
                          "refreshed": done.refreshed}, indent=2))
        return EXIT_OK
    print(_("Added mpstudio to the app menu; it starts {launcher}").format(
        launcher=done.launcher))
    print(_("Written:"))
    for path in done.written:
        print(f"  {path}")
    if done.refreshed:
        print(_("Refreshed: {tools}").format(tools=", ".join(done.refreshed)))
    print(_("It can take a moment to show in the menu (on some desktops, until you log in "
            "again). `mpstudio desktop uninstall` removes it."))
    return EXIT_OK


def _uninstall(places: Places, platform: str, as_json: bool) -> int:
    removed = _UNINSTALL[platform](places)
    if as_json:
        print(json.dumps({"platform": platform, "removed": [str(p) for p in removed]},
                         indent=2))
    elif removed:
        print(_("Removed mpstudio from the app menu:"))
        for path in removed:
            print(f"  {path}")
    else:
        print(_("mpstudio was not in the app menu: nothing to remove."))
    return EXIT_OK
