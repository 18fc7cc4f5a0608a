"""Fetch a published file into the cache folder, verified by size and SHA-256.

A file already in the folder (downloaded earlier, or put there by the user) is
never deleted or overwritten: if it does not match the checksum, the user gets
a message and the file stays. A download goes to a temporary file in the same
folder and becomes the real name only once it is complete, verified and synced.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from mpstudio import __version__
from mpstudio.engine.datasets.cache_dir import MIRROR_ENV, keras_datasets_dir, mirror_url
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, DownloadError, unreadable
from mpstudio.engine.i18n import _

CHUNK = 1 << 18  # 256 KiB
TIMEOUT = 30.0  # seconds without data before giving up


@dataclass(frozen=True)
class RemoteFile:
    name: str  # file name in the cache folder
    url: str
    sha256: str
    size: int  # bytes
    keras_name: str | None = None  # the same file in Keras' cache, relative to it


def sha256_of(path: Path, ctx: LoadContext | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
            if ctx is not None:
                ctx.check_stop()
    return digest.hexdigest()


def local_copy(remote: RemoteFile, folder: Path) -> Path | None:
    """The file if it is on disk with the published size (ours, or Keras' download).
    The checksum is checked when the file is loaded."""
    candidates = [folder / remote.name]
    if remote.keras_name:
        candidates.append(keras_datasets_dir() / remote.keras_name)
    for path in candidates:
        with contextlib.suppress(OSError):
            if path.is_file() and path.stat().st_size == remote.size:
                return path
    return None


def fetch(
    remote: RemoteFile, folder: Path, ctx: LoadContext, missing: tuple[str, ...] = ()
) -> Path:
    """The verified local file, downloading it first when it is not there.

    ``missing`` names every file of the dataset still to fetch, for the message a
    user without network gets (they need to put all of them in place)."""
    dest = folder / remote.name
    try:
        present = dest.exists() or dest.is_symlink()
    except OSError as exc:  # a folder on the way that cannot be entered
        raise unreadable(folder, exc) from None
    if present:
        _verify_existing(dest, remote, ctx)
        return dest
    if remote.keras_name:
        theirs = keras_datasets_dir() / remote.keras_name
        with contextlib.suppress(OSError):  # an unreadable copy is simply not used
            if theirs.is_file() and theirs.stat().st_size == remote.size and (
                sha256_of(theirs, ctx) == remote.sha256
            ):
                return theirs  # read in place: nothing copied, nothing changed
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{remote.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise DownloadError(_(
            "could not write to the dataset folder {folder}: {reason}; set "
            "MPSTUDIO_DATA_DIR to a writable folder").format(
                folder=folder, reason=exc.strerror or exc)) from None
    _download(remote, dest, fd, Path(tmp_name), ctx, missing or (remote.name,))
    return dest


def _verify_existing(dest: Path, remote: RemoteFile, ctx: LoadContext) -> None:
    if not dest.is_file():
        raise DataError(_(
            "{path} is in the way: it is not a file; move it so mpstudio can download {file} "
            "there").format(path=dest, file=remote.name))
    try:
        size = dest.stat().st_size
        digest = sha256_of(dest, ctx)
    except OSError as exc:
        raise unreadable(dest, exc) from None
    if size == remote.size and digest == remote.sha256:
        return
    raise DataError(_(
        "{path} does not match the published {dataset} file ({size:,} bytes, sha256 "
        "{digest}...; expected {expected:,} bytes, sha256 {expected_digest}...). It may be "
        "incomplete or a different version. mpstudio left it in place: move or delete it to "
        "download a fresh copy, or pick another dataset").format(
            path=dest, dataset=ctx.source, size=size, digest=digest[:12],
            expected=remote.size, expected_digest=remote.sha256[:12]))


def _download(
    remote: RemoteFile, dest: Path, fd: int, tmp: Path, ctx: LoadContext,
    missing: tuple[str, ...],
) -> None:
    url = mirror_url(remote.url)
    try:
        with os.fdopen(fd, "wb") as out:
            digest, done, announced = _stream(url, remote, out, ctx, missing, dest.parent)
            if done == remote.size and digest == remote.sha256:
                out.flush()
                os.fsync(out.fileno())  # a crash must not leave a short file under the name
        if done != remote.size or digest != remote.sha256:
            raise _bad_download(remote, done, digest, announced, dest.parent)
        if not _move_into_place(tmp, dest):
            _verify_existing(dest, remote, ctx)  # someone else's file appeared meanwhile
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _bad_download(
    remote: RemoteFile, done: int, digest: str, announced: int | None, folder: Path
) -> DownloadError:
    expected = announced if announced is not None else remote.size
    if done < expected and done <= remote.size:
        return DownloadError(_(
            "the download of {file} was cut short ({done:,} of {expected:,} bytes); nothing "
            "was kept, try again").format(file=remote.name, done=done, expected=expected))
    got = (_("{size:,} bytes").format(size=done) if done <= remote.size
           else _("more than {size:,} bytes").format(size=remote.size))
    return DownloadError(_(
        "the downloaded {file} does not match its published checksum ({got}, expected "
        "{expected:,} bytes, sha256 {digest}...); nothing was kept. The server sent a "
        "different file: try again later, or put a good copy in {folder}").format(
            file=remote.name, got=got, expected=remote.size, digest=remote.sha256[:12],
            folder=folder))


def _cannot_download(source: str, why: str, missing: tuple[str, ...], folder: Path) -> str:
    files = (_("{first} and {second}").format(first=missing[0], second=missing[1])
             if len(missing) == 2 else ", ".join(missing))
    return _("could not download {source}: {why}; put {files} in {folder} or pick another "
             "dataset").format(source=source, why=why, files=files, folder=folder)


def _stream(
    url: str, remote: RemoteFile, out: BinaryIO, ctx: LoadContext,
    missing: tuple[str, ...], folder: Path,
) -> tuple[str, int, int | None]:
    """(sha256, bytes received, the length the server announced) of one download.
    Reading stops one chunk past the published size: a wrong file cannot fill the disk."""
    mirror = (_(" (from {variable}={value})").format(variable=MIRROR_ENV,
                                                      value=os.environ[MIRROR_ENV])
              if os.environ.get(MIRROR_ENV) else "")
    request = urllib.request.Request(url, headers={"User-Agent": f"mpstudio/{__version__}"})
    digest = hashlib.sha256()
    done = 0
    announced: int | None = None
    task = _("downloading {file}").format(file=remote.name)

    def failed(why: str) -> DownloadError:
        return DownloadError(_cannot_download(ctx.source, why, missing, folder))

    ctx.progress(task, 0, remote.size, "B")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            length = response.headers.get("Content-Length")
            announced = int(length) if length and length.isdigit() else None
            while chunk := response.read(CHUNK):
                _write(out, chunk, remote, folder)
                digest.update(chunk)
                done += len(chunk)
                if done > remote.size:
                    break
                ctx.progress(task, done, remote.size, "B")
                ctx.check_stop()
    except urllib.error.HTTPError as exc:
        raise failed(_("the server answered {code} {reason} for {url}{mirror}").format(
            code=exc.code, reason=exc.reason, url=url, mirror=mirror)) from None
    except urllib.error.URLError as exc:
        why = getattr(exc.reason, "strerror", None) or str(exc.reason)
        raise failed(_("no network ({reason}){mirror}").format(reason=why,
                                                              mirror=mirror)) from None
    except (http.client.HTTPException, ValueError) as exc:
        if done == 0:
            raise failed(_("{url}{mirror} did not answer as a web server ({error})").format(
                url=url, mirror=mirror, error=f"{type(exc).__name__}: {exc}")) from None
    except OSError as exc:  # connection reset, timeout, TLS error mid-way
        if done == 0:
            raise failed(_("no network ({reason}){mirror}").format(
                reason=exc.strerror or exc, mirror=mirror)) from None
        # a failure mid-way falls through to the size check: "cut short"
    return digest.hexdigest(), done, announced


def _write(out: BinaryIO, chunk: bytes, remote: RemoteFile, folder: Path) -> None:
    try:
        out.write(chunk)
    except OSError as exc:  # a full or read-only disk, not the network
        raise DownloadError(_("could not save {file} in {folder}: {reason}").format(
            file=remote.name, folder=folder, reason=exc.strerror)) from None


def _move_into_place(tmp: Path, dest: Path) -> bool:
    """Give the finished file its name unless one appeared meanwhile (then False)."""
    try:
        os.link(tmp, dest)  # fails if dest exists: an existing file always wins
    except FileExistsError:
        return False
    except OSError:  # a filesystem without hard links
        if dest.exists():
            return False
        os.replace(tmp, dest)
    return True
