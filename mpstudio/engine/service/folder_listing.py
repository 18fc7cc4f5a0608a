"""A folder of the engine's machine, listed for the window: on a server, the datasets
and model files to pick are the server's, so the window's file dialog asks the engine
what a folder holds (ui/window/server_file_dialog.py).

Folders first, then files, each sorted without regard to case; hidden entries (dot
names) left out, files only where their suffix is asked for; at most ``MOST_SHOWN``
entries. An entry that cannot be read (a broken link, a file removed meanwhile) is
left out; a folder that cannot be listed is a ``FolderError`` with one sentence that
names it and says what to do.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from mpstudio.engine.i18n import _

MOST_SHOWN = 2000  # a dialog's list, not a file manager: type a path to go further
MOST_SCANNED = 50_000  # names looked at before giving up on sorting a huge folder whole


class FolderError(RuntimeError):
    """The folder cannot be listed; the message names it and says what to do."""


@dataclass(frozen=True)
class FolderEntry:
    name: str
    is_dir: bool
    size: int  # bytes; 0 for a folder
    modified: float  # seconds since the epoch


@dataclass(frozen=True)
class FolderListing:
    path: str  # the folder, expanded and resolved on the engine's machine
    parent: str  # "" at the top of the file system
    entries: tuple[FolderEntry, ...]
    home: str  # the engine's user's home folder
    truncated: bool  # more entries than MOST_SHOWN (or MOST_SCANNED): not all are here


def home_folder() -> str:
    return os.path.realpath(os.path.expanduser("~"))


def resolved(path: str) -> Path:
    """``path`` on this machine: "" and "~" are the home folder; a relative path is
    taken from the home folder (the window has no working folder here)."""
    text = path.strip() or "~"
    expanded = Path(os.path.expanduser(text))
    if not expanded.is_absolute():
        expanded = Path(home_folder()) / expanded
    return Path(os.path.realpath(expanded))  # never raises: a loop stays as it is


def list_folder(path: str, suffixes: tuple[str, ...] = (),
                folders_only: bool = False) -> FolderListing:
    """What the folder at ``path`` holds: its sub-folders, and its files whose suffix is
    one of ``suffixes`` (any case; none given: every file) unless ``folders_only``."""
    folder = resolved(path)
    _check_folder(folder)
    wanted = tuple(s.lower() for s in suffixes)
    found: list[tuple[str, bool, os.DirEntry[str]]] = []
    truncated = False
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                if entry.name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()  # follows a link: a link to a folder is one
                except OSError:
                    continue
                if not is_dir and (folders_only or (
                        wanted and not entry.name.lower().endswith(wanted))):
                    continue
                if len(found) == MOST_SCANNED:
                    truncated = True
                    break
                found.append((entry.name, is_dir, entry))
    except PermissionError:
        raise FolderError(_no_access(folder)) from None
    except OSError as exc:
        raise FolderError(_("{path} cannot be listed ({reason}): pick another folder").format(
            path=folder, reason=exc.strerror or exc)) from None
    found.sort(key=lambda f: (not f[1], f[0].casefold(), f[0]))
    if len(found) > MOST_SHOWN:
        found, truncated = found[:MOST_SHOWN], True
    entries = []
    for name, is_dir, entry in found:
        try:
            info = entry.stat()
        except OSError:  # a broken link, a file removed since the scan
            continue
        entries.append(FolderEntry(name, is_dir, 0 if is_dir else info.st_size,
                                   info.st_mtime))
    parent = str(folder.parent) if folder.parent != folder else ""
    return FolderListing(str(folder), parent, tuple(entries), home_folder(), truncated)


def _check_folder(folder: Path) -> None:
    try:
        info = folder.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise FolderError(_("there is no folder {path} on the engine's machine: check the "
                            "path, or go up to a folder that exists").format(
                                path=folder)) from None
    except PermissionError:
        raise FolderError(_no_access(folder)) from None
    except OSError as exc:  # a link that loops, a disk that went away
        raise FolderError(_("{path} cannot be listed ({reason}): pick another folder").format(
            path=folder, reason=exc.strerror or exc)) from None
    if not stat.S_ISDIR(info.st_mode):
        raise FolderError(_("{path} is a file, not a folder: open the folder it is in, "
                            "{parent}").format(path=folder, parent=folder.parent))


def _no_access(folder: Path) -> str:
    return _("you may not read the folder {path} on the engine's machine: pick another "
             "folder, or ask its owner for access").format(path=folder)
