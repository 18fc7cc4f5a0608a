"""Copying a file (or a folder: a SavedModel) from the engine's machine to the window's:
an export written on a server, copied back to where the user chose on the laptop.

The engine sends a listing first (each file's path relative to what was asked for,
and its size), then the bytes in chunks, then each file's SHA-256 as the job's result.
The window (``FileReceiver``) writes them into a staging folder beside the target,
checks every path is inside it (a hostile server cannot name ``../.bashrc``), every
size and every checksum, and only then moves the copy into place: a copy cut short
leaves nothing behind and touches no existing file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from mpstudio.engine.export.placement import Staging
from mpstudio.engine.i18n import _

CHUNK_BYTES = 256 * 1024  # small enough that a window away holds few in the outbox
STAGING_PREFIX = "mpstudio-copy-back-"  # a server's exports, waiting to be copied back


def staging_folder() -> Path:
    """A fresh folder in the engine machine's temp folder for a staged export."""
    return Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-"))


def _staged(path: Path) -> Path | None:
    """The staging folder ``path`` is in, if it is in one (what may be removed)."""
    temp = Path(tempfile.gettempdir()).resolve()
    resolved = path.resolve()
    if resolved.parent.parent == temp and resolved.parent.name.startswith(STAGING_PREFIX):
        return resolved.parent
    return None


class FetchError(RuntimeError):
    """The copy could not be made (the message says why); nothing was written."""


@dataclass(frozen=True)
class FileEntry:
    relative: str  # "" for a single file; "variables/variables.index" in a folder
    size: int


@dataclass(frozen=True)
class FileListing:
    name: str  # the file's or folder's own name
    is_folder: bool
    files: tuple[FileEntry, ...]

    @property
    def total(self) -> int:
        return sum(f.size for f in self.files)


@dataclass(frozen=True)
class FileChunk:
    index: int  # into FileListing.files
    offset: int
    data: bytes


@dataclass(frozen=True)
class FetchedFiles:
    listing: FileListing
    sha256: tuple[str, ...]  # per file, in the listing's order


def send_files(path: str | Path, emit: Callable[[Any], None],
               progress: Callable[[int, int, str], None],
               should_stop: Callable[[], bool], remove_after: bool = False) -> FetchedFiles:
    """The engine's side: the listing, the chunks, then the checksums. ``remove_after``:
    a staged export's copy is removed once sent (and only such a copy)."""
    root = Path(path).expanduser()
    staged = _staged(root) if remove_after else None
    try:
        return _send(root, emit, progress, should_stop)
    finally:
        if staged is not None:  # this copy; its folder too once the export's last is sent
            if root.is_dir():
                shutil.rmtree(root, ignore_errors=True)
            else:
                root.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                staged.rmdir()


def _send(root: Path, emit: Callable[[Any], None], progress: Callable[[int, int, str], None],
          should_stop: Callable[[], bool]) -> FetchedFiles:
    if not root.exists():
        raise FetchError(_("{path} does not exist on the engine's machine").format(path=root))
    if root.is_dir():
        found = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        files = tuple(FileEntry(p.relative_to(root).as_posix(), p.stat().st_size)
                      for p in found)
    else:
        found, files = [root], (FileEntry("", root.stat().st_size),)
    listing = FileListing(root.name, root.is_dir(), files)
    emit(listing)
    sums: list[str] = []
    done = 0
    for index, file in enumerate(found):
        digest = hashlib.sha256()
        with open(file, "rb") as f:
            offset = 0
            while chunk := f.read(CHUNK_BYTES):
                if should_stop():
                    raise FetchError(_("the copy was cancelled"))
                digest.update(chunk)
                emit(FileChunk(index, offset, chunk))
                offset += len(chunk)
                done += len(chunk)
                progress(done, listing.total, listing.name)
        sums.append(digest.hexdigest())
    return FetchedFiles(listing, tuple(sums))


def safe_relative(relative: str) -> PurePosixPath:
    """A listing's path, checked to stay inside the copy (FetchError otherwise)."""
    path = PurePosixPath(relative)
    if path.is_absolute() or not path.parts or any(part in ("", ".", "..")
                                                   for part in path.parts) \
            or "\\" in relative or "\0" in relative:
        raise FetchError(_("the engine named a file outside the copy ({path}): nothing "
                           "was written").format(path=relative))
    return path


class FileReceiver:
    """The window's side: ``receive(event)`` for the listing and each chunk, then
    ``finish(result)`` checks and moves the copy into place at ``target``."""

    def __init__(self, target: Path, overwrite: bool = False) -> None:
        self.target = Path(target)
        self.overwrite = overwrite
        self.listing: FileListing | None = None
        self._stage: Staging | None = None
        self._open: tuple[int, BinaryIO, Any] | None = None  # (index, file, sha256)
        self._sums: dict[int, str] = {}
        self._written: dict[int, int] = {}

    def receive(self, event: Any) -> None:
        if isinstance(event, FileListing):
            self._start(event)
        elif isinstance(event, FileChunk):
            self._write(event)

    def _start(self, listing: FileListing) -> None:
        if self.listing is not None:
            raise FetchError(_("the engine sent a second listing: nothing was written"))
        paths = [safe_relative(f.relative) for f in listing.files if listing.is_folder]
        if len(set(paths)) != len(paths) or (not listing.is_folder and len(listing.files) != 1):
            raise FetchError(_("the engine's listing of {name} does not add up: nothing was "
                               "written").format(name=listing.name))
        self.listing = listing
        try:
            self._stage = Staging(self.target, listing.is_folder, self.overwrite)
        except Exception as exc:  # ExportError: says what to do
            raise FetchError(str(exc)) from None
        if listing.is_folder:
            self._stage.path.mkdir()

    def _file_path(self, index: int) -> Path:
        assert self.listing is not None and self._stage is not None
        if not self.listing.is_folder:
            return self._stage.path
        return self._stage.path.joinpath(*safe_relative(self.listing.files[index].relative).parts)

    def _write(self, chunk: FileChunk) -> None:
        if self.listing is None or not 0 <= chunk.index < len(self.listing.files):
            raise FetchError(_("the engine sent bytes of no listed file: nothing was written"))
        if self._open is None or self._open[0] != chunk.index:
            self._close_current()
            path = self._file_path(chunk.index)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._open = (chunk.index, open(path, "wb"), hashlib.sha256())  # noqa: SIM115
        index, f, digest = self._open
        if chunk.offset != self._written.get(index, 0):
            raise FetchError(_("the copy of {name} arrived out of order: nothing was "
                               "written").format(name=self.listing.name))
        f.write(chunk.data)
        digest.update(chunk.data)
        self._written[index] = chunk.offset + len(chunk.data)

    def _close_current(self) -> None:
        if self._open is not None:
            index, f, digest = self._open
            f.flush()
            os.fsync(f.fileno())
            f.close()
            self._sums[index] = digest.hexdigest()
            self._open = None

    def finish(self, result: FetchedFiles) -> Path:
        """Check every size and checksum against the engine's, then move into place."""
        self._close_current()
        listing = self.listing
        if listing is None or self._stage is None or result.listing != listing:
            raise FetchError(_("the copy ended without its files: nothing was written"))
        for index, entry in enumerate(listing.files):
            if entry.size == 0 and index not in self._sums:  # an empty file: no chunk
                path = self._file_path(index)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
                self._sums[index] = hashlib.sha256(b"").hexdigest()
                self._written[index] = 0
            if self._written.get(index) != entry.size or \
                    self._sums.get(index) != result.sha256[index]:
                raise FetchError(_("the copy of {name} does not match the engine's file "
                                   "(size or SHA-256): nothing was written; export it "
                                   "again").format(name=entry.relative or listing.name))
        try:
            return self._stage.publish()
        except Exception as exc:  # ExportError: a target that appeared, a full disk
            raise FetchError(str(exc)) from None

    def close(self) -> None:
        """Whatever happened, nothing half-written is left beside the target."""
        if self._open is not None:
            self._open[1].close()
            self._open = None
        if self._stage is not None:
            self._stage.__exit__(None, None, None)
            self._stage = None
