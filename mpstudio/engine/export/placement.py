"""Writing an export so that nothing is ever half-written: everything goes into a
staging folder beside the target (same file system, so the final rename is atomic)
and moves into place only when it is complete and verified. A failure or a cancel
deletes the staging folder; an existing target is replaced only when asked."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from mpstudio.engine.export.results import ExportError
from mpstudio.engine.i18n import _
from mpstudio.engine.partial_files import PARTIAL_MARK, partial_prefix, remove_stale_partials

STAGING_MARK = PARTIAL_MARK  # in the staging folder's name, for tests and for people


def os_error_text(exc: OSError, folder: Path) -> str:
    """An OSError as a sentence that says what to do."""
    if exc.errno == errno.ENOSPC:
        return _("the disk holding {folder} is full: free some space or pick another "
                 "folder").format(folder=folder)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return _("cannot write to {folder}: permission denied; pick another folder").format(
            folder=folder)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if folder.is_dir():  # /proc, /sys: folders no file can be created in
            return _("cannot create files in {folder}: it is a system folder, not one for "
                     "files; pick another folder").format(folder=folder)
        return _("the folder {folder} does not exist; pick an existing folder").format(
            folder=folder)
    return _("cannot write to {folder}: {reason}").format(folder=folder,
                                                          reason=exc.strerror or exc)


def target_problem(target: Path, is_folder: bool, overwrite: bool,
                   command_line: bool = False) -> str | None:
    """Why ``target`` cannot be written (checked before any work starts);
    ``command_line``: an existing target is replaced with ``--overwrite``."""
    if target.exists():
        if is_folder != target.is_dir():
            if target.is_dir():
                return _("{target} is a folder; pick another name").format(target=target)
            return _("{target} is a file; pick another name").format(target=target)
        if not overwrite and command_line:
            return _("{target} already exists; pass --overwrite to replace it, or pick "
                     "another name").format(target=target)
        if not overwrite:
            return _("{target} already exists; choose to replace it, or pick another "
                     "name").format(target=target)
    if not target.parent.is_dir():
        return _("the folder {folder} does not exist; pick an existing folder").format(
            folder=target.parent)
    return None


def write_bytes(path: Path, data: bytes) -> None:
    """Write and flush to disk (a full disk shows up here, not at the rename)."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def tree_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


SCRATCH_PREFIX = "mpstudio-export-"  # an export's scratch folder in the temp folder


def scratch_folder() -> Path:
    """A temp folder of this export's own; those of killed exports go first."""
    temp = Path(tempfile.gettempdir())
    remove_stale_partials(temp, SCRATCH_PREFIX, hidden=False)
    return Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=temp))


def clear_killed_exports(folders: Iterable[Path]) -> None:
    """What exports killed mid-way left in ``folders`` (their staging folders) and in
    the temp folder (their scratch folders): every export starts with this, even one
    refused at once (``--format all`` again into the same folder, without
    --overwrite), so nothing waits for an export that happens to replace a file."""
    for folder in {Path(f) for f in folders}:
        remove_stale_partials(folder)
    remove_stale_partials(Path(tempfile.gettempdir()), SCRATCH_PREFIX, hidden=False)


class Staging:
    """``with Staging(target, is_folder, overwrite) as stage:`` write ``stage.path``,
    then ``stage.publish()``; leaving the block without publishing deletes it all."""

    def __init__(self, target: Path, is_folder: bool, overwrite: bool) -> None:
        self.target = Path(target)
        self.is_folder = is_folder
        self.overwrite = overwrite
        problem = target_problem(self.target, is_folder, overwrite)
        if problem:
            raise ExportError(problem)
        try:
            self.folder = Path(tempfile.mkdtemp(prefix=partial_prefix(self.target.name),
                                                dir=self.target.parent))
        except OSError as exc:
            raise ExportError(os_error_text(exc, self.target.parent)) from None
        self.path = self.folder / self.target.name
        self.published = False

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def publish(self) -> Path:
        """Move the finished export into place, replacing the target only if allowed."""
        problem = target_problem(self.target, self.is_folder, self.overwrite)
        if problem:  # it appeared while we worked
            raise ExportError(problem)
        aside = self.folder / "replaced"  # the old folder, deleted by __exit__
        moved_aside = False
        try:
            if self.is_folder and self.target.exists():
                os.replace(self.target, aside)
                moved_aside = True
            os.replace(self.path, self.target)
        except OSError as exc:
            if moved_aside:  # put the old one back: a failed export touches nothing
                os.replace(aside, self.target)
            raise ExportError(os_error_text(exc, self.target.parent)) from None
        self.published = True
        return self.target
