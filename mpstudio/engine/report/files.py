"""Writing report files safely: all or nothing.

Each file goes to a temporary file in the same folder and is then renamed over the
target (``os.replace`` is atomic on one file system), so a full disk, a crash or a
bug halfway never leaves half a report, nor destroys a good one written before. The
temporary file carries this process's pid (partial_files): a write killed halfway
leaves it, and the next write into that folder removes it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from mpstudio.engine.i18n import _
from mpstudio.engine.partial_files import partial_prefix, remove_stale_partials


class ReportError(Exception):
    """A report could not be written; the message names the file and what to do."""


def _advice(err: OSError, path: Path) -> str:
    folder = path.parent
    if err.errno in (errno.ENOENT, errno.ENOTDIR) and folder.is_dir():
        err = PermissionError(errno.EACCES, err.strerror)  # /proc, /sys: it takes no files
    if err.errno == errno.ENOENT:
        return _("the folder {folder} does not exist; create it or choose another "
                 "folder").format(folder=folder)
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return _("the folder {folder} is not writable; choose a folder you can write "
                 "to").format(folder=folder)
    if err.errno == errno.ENOSPC:
        return _("the disk is full; free some space or choose another drive")
    if err.errno == errno.EISDIR:
        return _("a folder already has that name; choose another file name")
    return _("{reason}; choose another folder or file name").format(reason=err.strerror or err)


def write_error(path: Path | str, *, make_folders: bool = False) -> OSError | None:
    """The OSError that writing a file at ``path`` would meet, found before the work that
    makes it (minutes of checks, half an install); None when it can be written. With
    ``make_folders`` the missing folders are to be made: the nearest one that exists
    must be a folder that takes new entries. Tries by creating and removing a temporary
    file there, the way atomic writes will (root passes any permission check, but not
    a read-only disk nor /proc)."""
    path = Path(path)
    if path.is_dir():
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    folder = path.parent
    while not folder.exists():
        if not make_folders or folder == folder.parent:
            return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(folder))
        folder = folder.parent
    if not folder.is_dir():  # a file where a folder should be
        return NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".mpstudio-write-check-")
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):  # /proc, /sys: a folder taking no files
            return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))
        return type(exc)(exc.errno, exc.strerror, str(folder))
    os.close(fd)
    os.unlink(tmp)
    return None


def check_writable(path: Path | str) -> None:
    """ReportError, worded as a failed write would be, when a report cannot be written at
    ``path`` (its folder must exist): checked before the work that makes it."""
    path = Path(path)
    err = write_error(path)
    if err is not None:
        raise ReportError(_("Could not write {path}: {advice}.").format(
            path=path, advice=_advice(err, path)))


def document_mode(path: Path) -> int:
    """The mode for a document written through a temp file: mkstemp makes the file
    private (0600), but a report or a saved chart is a document to share, so it gets the
    mode of the file it replaces, or the usual 0644."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o644


def atomic_write_text(path: Path | str, text: str, *, newline: str | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` all at once; raise ReportError on OSError."""
    return _atomic_write(Path(path), text, "w", encoding="utf-8", newline=newline)


def atomic_write_bytes(path: Path | str, data: bytes) -> Path:
    """Write ``data`` to ``path`` all at once (an icon, an image); ReportError on OSError."""
    return _atomic_write(Path(path), data, "wb")


def _atomic_write(path: Path, data: str | bytes, mode: str, encoding: str | None = None,
                  newline: str | None = None) -> Path:
    tmp: str | None = None
    remove_stale_partials(path.parent)  # what writes killed halfway left there
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=partial_prefix(path.name),
                                   suffix=".tmp")
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, document_mode(path))
        os.replace(tmp, path)
        tmp = None
        return path
    except OSError as err:
        raise ReportError(_("Could not write {path}: {advice}.").format(
            path=path, advice=_advice(err, path))) from err
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
