"""Fetch a published file into the cache folder, verified by size and SHA-256.

A file already in the folder (downloaded earlier, or put there by the user) is
never deleted or overwritten: if it does not match the checksum, the user gets
a message and the file stays. A download goes to a temporary file in the same
folder and becomes the real name only once it is complete and verified.
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

from mpstudio import __version__
from mpstudio.engine.datasets.cache_dir import keras_datasets_dir, mirror_url
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, DownloadError

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


def _matches(path: Path, remote: RemoteFile, ctx: LoadContext) -> bool:
    return path.stat().st_size == remote.size and sha256_of(path, ctx) == remote.sha256


def local_copy(remote: RemoteFile, folder: Path) -> Path | None:
    """The file if it is already on disk (ours or Keras' download), unverified."""
    ours = folder / remote.name
    if ours.is_file():
        return ours
    if remote.keras_name:
        theirs = keras_datasets_dir() / remote.keras_name
        if theirs.is_file() and theirs.stat().st_size == remote.size:
            return theirs
    return None


def fetch(remote: RemoteFile, folder: Path, ctx: LoadContext) -> Path:
    """The verified local file, downloading it first when it is not there."""
    dest = folder / remote.name
    if dest.exists():
        _verify_existing(dest, remote, ctx)
        return dest
    keras_copy = local_copy(remote, folder)
    if keras_copy is not None and _matches(keras_copy, remote, ctx):
        return keras_copy  # read in place: nothing copied, nothing changed
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(
            f"could not create the dataset folder {folder}: {exc.strerror}; set "
            "MPSTUDIO_DATA_DIR to a writable folder"
        ) from None
    _download(remote, dest, ctx)
    return dest


def _verify_existing(dest: Path, remote: RemoteFile, ctx: LoadContext) -> None:
    try:
        size = dest.stat().st_size
        digest = sha256_of(dest, ctx)
    except PermissionError:
        raise DataError(f"cannot read {dest}: permission denied") from None
    if size == remote.size and digest == remote.sha256:
        return
    raise DataError(
        f"{dest} does not match the published {ctx.source} file ({size:,} bytes, "
        f"sha256 {digest[:12]}...; expected {remote.size:,} bytes, sha256 "
        f"{remote.sha256[:12]}...). It may be incomplete or a different version. mpstudio "
        "left it in place: move or delete it to download a fresh copy, or pick another "
        "dataset"
    )


def _no_network(remote: RemoteFile, folder: Path, ctx: LoadContext, why: str) -> DownloadError:
    return DownloadError(
        f"could not download {ctx.source}: {why}; put {remote.name} in {folder} "
        "or pick another dataset"
    )


def _download(remote: RemoteFile, dest: Path, ctx: LoadContext) -> None:
    url = mirror_url(remote.url)
    task = f"downloading {remote.name}"
    fd, tmp_name = tempfile.mkstemp(prefix=f".{remote.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            digest, done, announced = _stream(url, remote, dest.parent, out, task, ctx)
        expected = announced if announced is not None else remote.size
        if done < expected:
            raise DownloadError(
                f"the download of {remote.name} was cut short ({done:,} of {expected:,} "
                "bytes); nothing was kept, try again"
            )
        if done != remote.size or digest != remote.sha256:
            raise DownloadError(
                f"the downloaded {remote.name} does not match its published checksum "
                f"({done:,} bytes, sha256 {digest[:12]}...; expected {remote.size:,} bytes, "
                f"sha256 {remote.sha256[:12]}...); nothing was kept. The server sent a "
                f"different file: try again later, or put a good copy in {dest.parent}"
            )
        _move_into_place(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _stream(url, remote, folder, out, task, ctx) -> tuple[str, int, int | None]:
    """(sha256, bytes received, the length the server announced) of one download."""
    request = urllib.request.Request(url, headers={"User-Agent": f"mpstudio/{__version__}"})
    digest = hashlib.sha256()
    done = 0
    announced: int | None = None
    ctx.progress(task, 0, remote.size, "B")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            length = response.headers.get("Content-Length")
            announced = int(length) if length and length.isdigit() else None
            while chunk := response.read(CHUNK):
                _write(out, chunk, remote, folder)
                digest.update(chunk)
                done += len(chunk)
                ctx.progress(task, done, remote.size, "B")
                ctx.check_stop()
    except urllib.error.HTTPError as exc:
        raise DownloadError(
            f"could not download {ctx.source}: the server answered {exc.code} {exc.reason} "
            f"for {url}; put {remote.name} in {folder} or pick another dataset"
        ) from None
    except urllib.error.URLError as exc:
        why = getattr(exc.reason, "strerror", None) or str(exc.reason)
        raise _no_network(remote, folder, ctx, f"no network ({why})") from None
    except (http.client.IncompleteRead, ConnectionError) as exc:
        if done == 0:
            raise _no_network(remote, folder, ctx, f"no network ({exc})") from None
    except TimeoutError:
        if done == 0:
            raise _no_network(remote, folder, ctx, "no network (timed out)") from None
        # a stall mid-way falls through to the size check: "cut short"
    return digest.hexdigest(), done, announced


def _write(out, chunk: bytes, remote: RemoteFile, folder: Path) -> None:
    try:
        out.write(chunk)
    except OSError as exc:  # a full or read-only disk, not the network
        raise DownloadError(f"could not save {remote.name} in {folder}: {exc.strerror}") from None


def _move_into_place(tmp: Path, dest: Path) -> None:
    """Give the finished file its name, without replacing one that appeared meanwhile."""
    try:
        os.link(tmp, dest)  # fails if dest exists: the user's file wins
    except FileExistsError:
        return
    except OSError:  # a filesystem without hard links
        if not dest.exists():
            os.replace(tmp, dest)
