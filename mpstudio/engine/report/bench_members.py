"""A benchmark bundle's zip, checked whole from its directory before a byte is unpacked:
every member a plain file with a safe name at the zip's top, none twice, none that
unpacks past what a bundle's text files ever need. Then only the members the manifest
lists are read, each with a bound. An edited bundle (a member added, a link, a path
out of the folder) or a zip bomb is refused in one sentence, nothing extracted or
trained (bench_read reads the manifest and its members through here)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from mpstudio.engine.i18n import _
from mpstudio.engine.zip_reading import inflation, is_plain_file, is_safe_name, read_bounded

MAX_MEMBERS = 32  # a bundle writes 8
MAX_MANIFEST_BYTES = 4 * 2**20  # kilobytes in a real one
MAX_MEMBER_BYTES = 256 * 2**20  # metrics.csv of a very long run is tens of MB
MAX_BUNDLE_BYTES = 512 * 2**20  # all members together: what a replay may hold in memory


class BundleError(Exception):
    """The bundle cannot be replayed; the message says why."""


def not_ours(path: Path, why: str) -> BundleError:
    return BundleError(_("{path} is not an mpstudio benchmark bundle: {why}").format(
        path=path, why=why))


def damaged(path: Path, why: str) -> BundleError:
    return BundleError(_("{path} is damaged: {why}; export the bundle again").format(
        path=path, why=why))


def _mb(size: int) -> str:
    return f"{size / 2**20:,.0f}"


def checked_members(path: Path, archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """Every member by name, once the directory shows nothing a bundle never holds."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise not_ours(path, _("it holds {count} files; a bundle holds at most {limit}").format(
            count=len(infos), limit=MAX_MEMBERS))
    members: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in infos:
        name = info.filename
        if not is_safe_name(name):  # repr: the name is the crafter's, keep it one line
            raise damaged(path, _("it holds a member named {name}, a path out of the folder "
                                  "it would be unpacked into").format(name=repr(name)))
        if not is_plain_file(info):
            raise damaged(path, _("its member {name} is not a plain file (a folder, a link or "
                                  "a device)").format(name=repr(name)))
        if "/" in name:
            raise damaged(path, _("its member {name} lies in a folder; a bundle's files lie "
                                  "at its top").format(name=repr(name)))
        if name in members:
            raise damaged(path, _("it holds {name} twice").format(name=repr(name)))
        if info.file_size > MAX_MEMBER_BYTES:
            raise damaged(path, _("its {name} unpacks to {size} MB, more than a bundle's "
                                  "file ever holds").format(name=repr(name),
                                                            size=_mb(info.file_size)))
        ratio = inflation(info)
        if ratio is not None:
            raise damaged(path, _("its {name} unpacks {ratio}-fold to {size} MB, which a "
                                  "bundle's text never does").format(
                                      name=repr(name), ratio=f"{ratio:,.0f}",
                                      size=_mb(info.file_size)))
        total += info.file_size
        members[name] = info
    if total > MAX_BUNDLE_BYTES:
        raise damaged(path, _("it unpacks to {size} MB, more than a bundle ever holds").format(
            size=_mb(total)))
    return members


def only_listed(path: Path, members: dict[str, zipfile.ZipInfo], listed: set[str]) -> None:
    """Refuse a member the manifest does not list (an edited bundle), and say which of
    the listed ones is missing."""
    for name in members:
        if name not in listed:
            raise damaged(path, _("it holds {name}, which its manifest does not list (the "
                                  "bundle was edited after it was written)").format(
                                      name=repr(name)))
    for name in sorted(listed):
        if name not in members:
            raise damaged(path, _("{name} is missing").format(name=name))


def read_member(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo,
                limit: int = MAX_MEMBER_BYTES) -> bytes:
    """The member's bytes, read no further than ``limit`` (nor its declared size)."""
    if info.file_size > limit:
        raise damaged(path, _("its {name} unpacks to {size} MB, more than a bundle's "
                              "file ever holds").format(name=repr(info.filename),
                                                        size=_mb(info.file_size)))
    try:
        data = read_bounded(archive, info, min(limit, info.file_size))
    except (zipfile.BadZipFile, ValueError, RuntimeError, EOFError, OSError) as exc:
        raise damaged(path, _("{name} cannot be read ({reason})").format(
            name=info.filename, reason=exc)) from None
    if data is None:
        raise damaged(path, _("{name} unpacks past the size its zip declares").format(
            name=info.filename))
    return data
