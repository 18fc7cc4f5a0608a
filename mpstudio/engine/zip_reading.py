"""Reading zip files that may have been crafted (a model file, a benchmark bundle): what
the zip's directory declares about a member is judged before a byte of it is unpacked
(a 5 MB zip can unpack to gigabytes of zeros), and a member is read with a bound, so
memory stays bounded whatever the directory says."""

from __future__ import annotations

import stat
import zipfile

MAX_RATIO = 200  # real data (weights, text tables) never packs this tight; zeros pack ~1000x
RATIO_FLOOR = 2**20  # a small member may pack tight (a run of spaces): only bigger ones count


def inflation(member: zipfile.ZipInfo, max_ratio: float = MAX_RATIO) -> float | None:
    """The member's declared unpacking ratio when it is a zip bomb's, else None."""
    ratio = member.file_size / max(1, member.compress_size)
    return ratio if member.file_size > RATIO_FLOOR and ratio > max_ratio else None


def is_plain_file(member: zipfile.ZipInfo) -> bool:
    """Not a folder, a symbolic link or a device: the Unix file type in the upper half of
    ``external_attr`` is a regular file's or none (zip tools that record no Unix mode),
    and the MS-DOS folder bit is clear."""
    kind = stat.S_IFMT(member.external_attr >> 16)
    return not member.is_dir() and not member.external_attr & 0x10 \
        and kind in (0, stat.S_IFREG)


def is_safe_name(name: str) -> bool:
    """A relative name inside the zip: not absolute (``/x``, ``C:x``, ``\\x``), no
    ``..`` or empty parts, no control characters (a folder's entry ends in ``/``)."""
    name = name[:-1] if name.endswith("/") else name
    if not name or name.startswith(("/", "\\")) or "\\" in name or ":" in name:
        return False
    if any(ord(char) < 32 for char in name):
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def read_bounded(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limit: int) -> bytes | None:
    """The member's bytes, or None when it unpacks past ``limit`` (reading stops just
    past it, whatever size the directory declared)."""
    with archive.open(member) as stream:
        data = stream.read(limit + 1)
    return data if len(data) <= limit else None
