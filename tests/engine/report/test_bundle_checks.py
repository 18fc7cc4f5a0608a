"""A benchmark bundle is checked whole before anything trains: members added to it (a
path out of the folder, an absolute path, a link, a folder, a duplicate, a file the
manifest does not list), a zip bomb, and fields of the wrong type are each refused in
one line (exit 2), nothing read past its bound and no run trained. ``runs bundle -o``
refuses to replace a file without --overwrite and writes into an existing folder.

Every case is a real zip, made from a real bundle of a tiny run."""

from __future__ import annotations

import contextlib
import hashlib
import json
import stat
import struct
import time
import tracemalloc
import uuid
import zipfile
import zlib
from pathlib import Path

import pytest

from mpstudio.engine.history.locations import HISTORY_ENV
from mpstudio.engine.history.store import RunStore

from support.bundled_history import bundled_history


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """One tiny run (#1) and its bundle, bench.zip, beside the history."""
    return bundled_history(tmp_path_factory.mktemp("bundle-checks"),
                           ["train", "--steps", "4", "--batch-size", "32"], 1)


@pytest.fixture
def cli(history, monkeypatch, run_cli):
    monkeypatch.setenv(HISTORY_ENV, str(history))
    return run_cli


def _members(history) -> dict[str, bytes]:
    with zipfile.ZipFile(history.parent / "bench.zip") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(target, members, extra=()) -> None:
    """The bundle's members (``members``, by name), then ``extra`` ZipInfo/data pairs."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for info, data in extra:
            archive.writestr(info, data)


def _info(name: str, mode: int = stat.S_IFREG | 0o644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the upper half of external_attr is st_mode
    info.external_attr = mode << 16
    return info


def _run_count(history) -> int:
    with RunStore(history) as store:
        return len(store.runs())


def _refused(cli, history, bad, words: str) -> None:
    """``mpstudio replay bad`` exits 2 with one line, before anything trains."""
    before = _run_count(history)
    started = time.perf_counter()
    code, out, err = cli("replay", str(bad))
    assert (code, out) == (2, ""), err
    assert err == f"mpstudio replay: error: {bad} {words}\n"
    assert time.perf_counter() - started < 10  # no training, no TensorFlow start
    assert _run_count(history) == before


ESCAPE = f"../../../../../tmp/mpstudio-escape-{uuid.uuid4().hex}"
EXTRA = [  # (members added, the words of the refusal)
    ([(_info(ESCAPE), b"x")],
     f"is damaged: it holds a member named '{ESCAPE}', a path out of the folder it would be "
     "unpacked into; export the bundle again"),
    ([(_info("/tmp/x"), b"x")],
     "is damaged: it holds a member named '/tmp/x', a path out of the folder it would be "
     "unpacked into; export the bundle again"),
    ([(_info("link", stat.S_IFLNK | 0o777), b"/etc/passwd")],
     "is damaged: its member 'link' is not a plain file (a folder, a link or a device); "
     "export the bundle again"),
    ([(_info("extra/", stat.S_IFDIR | 0o755), b"")],
     "is damaged: its member 'extra/' is not a plain file (a folder, a link or a device); "
     "export the bundle again"),
    ([(_info("extra/spec.toml"), b"x")],
     "is damaged: its member 'extra/spec.toml' lies in a folder; a bundle's files lie at "
     "its top; export the bundle again"),
    ([(_info("metrics.csv"), b"step\n")],
     "is damaged: it holds 'metrics.csv' twice; export the bundle again"),
    ([(_info("notes.txt"), b"hello")],
     "is damaged: it holds 'notes.txt', which its manifest does not list (the bundle was "
     "edited after it was written); export the bundle again"),
]


@pytest.mark.parametrize("extra, words", EXTRA, ids=["parent", "absolute", "link", "folder",
                                                   "nested", "twice", "unlisted"])
def test_a_member_added_to_a_bundle_is_refused_before_anything_trains(
        history, cli, tmp_path, extra, words):
    """They replayed, trained and recorded a run with exit 0."""
    bad = tmp_path / "bad.zip"
    with pytest.warns(UserWarning) if "twice" in words else contextlib.nullcontext():
        _write(bad, _members(history), extra)  # (zipfile warns of a duplicate name)
    _refused(cli, history, bad, words)
    assert not Path("/tmp", ESCAPE.rsplit("/", 1)[1]).exists()  # nothing was unpacked


def test_a_listed_member_that_is_a_link_is_refused(history, cli, tmp_path):
    """README.txt as a symbolic link whose bytes still match the manifest's checksum."""
    members = _members(history)
    readme = members.pop("README.txt")
    bad = tmp_path / "bad.zip"
    _write(bad, members, [(_info("README.txt", stat.S_IFLNK | 0o777), readme)])
    _refused(cli, history, bad, "is damaged: its member 'README.txt' is not a plain file (a "
             "folder, a link or a device); export the bundle again")


# A zip written by hand: zipfile would deflate each 240 MiB member again (minutes); here
# one deflated stream of zeros is stored twenty times over.
def _zip_by_hand(target, entries) -> None:
    """``entries``: (name, deflated bytes, CRC-32, unpacked size)."""
    local, central = bytearray(), bytearray()
    for name, packed, crc, size in entries:
        raw = name.encode()
        head = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(packed),
                           size, len(raw), 0)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x314, 20, 0, 8, 0, 0x21,
                               crc, len(packed), size, len(raw), 0, 0, 0, 0,
                               (stat.S_IFREG | 0o644) << 16, len(local)) + raw
        local += head + raw + packed
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central),
                      len(local), 0)
    target.write_bytes(bytes(local + central + end))


def _deflated(data: bytes) -> tuple[bytes, int]:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(), zlib.crc32(data)


def test_a_zip_bomb_is_refused_from_the_directory_without_reading_it(history, cli, tmp_path):
    """20 unlisted members of 240 MiB of zeros (a 5 MB zip) were read whole (~5 GB)
    before training started."""
    size = 240 * 2**20
    packer, crc, chunk = zlib.compressobj(9, zlib.DEFLATED, -15), 0, bytes(2**20)
    parts = []
    for _ in range(size // len(chunk)):
        parts.append(packer.compress(chunk))
        crc = zlib.crc32(chunk, crc)
    zeros = b"".join(parts) + packer.flush()
    entries = [(name, *_deflated(data), len(data)) for name, data in _members(history).items()]
    entries += [(f"pad{i:02}.bin", zeros, crc, size) for i in range(20)]
    bomb = tmp_path / "bomb.zip"
    _zip_by_hand(bomb, entries)
    assert bomb.stat().st_size < 6 * 2**20
    with zipfile.ZipFile(bomb) as archive:  # a zip any tool reads, as declared
        assert sum(i.file_size for i in archive.infolist()) > 20 * size
    tracemalloc.start()
    try:
        _refused(cli, history, bomb, f"is damaged: its 'pad00.bin' unpacks "
                 f"{size / len(zeros):,.0f}-fold to 240 MB, which a bundle's text never "
                 "does; export the bundle again")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20  # nothing was unpacked


def _edit_manifest(history, target, change) -> None:
    members = _members(history)
    manifest = json.loads(members["manifest.json"])
    change(manifest, members)
    members["manifest.json"] = json.dumps(manifest).encode()
    _write(target, members)


def _runs_json_of_numbers(manifest, members) -> None:
    """runs.json = [1, 2], its checksum in the manifest made to match."""
    members["runs.json"] = b"[1, 2]"
    manifest["files"]["runs.json"] = hashlib.sha256(b"[1, 2]").hexdigest()


DEEP = 100_000
FIELDS = [  # (what is changed, the words of the refusal)
    (lambda m, _: m.update(kind="comparison", compare="fast"),
     "is damaged: its manifest.json field compare is a string, not an object or null; "
     "export the bundle again"),
    (lambda m, _: m.update(machine="a string"),
     "is damaged: its manifest.json field machine is a string, not an object or null; "
     "export the bundle again"),
    (lambda m, _: m.update(software=["x"]),
     "is damaged: its manifest.json field software is an array, not an object; export the "
     "bundle again"),
    (lambda m, _: m["machine"].update(gpus=[1]),
     "is damaged: its manifest.json field machine.gpus[0] is a whole number, not an object; "
     "export the bundle again"),
    (lambda m, _: m.update(kind="benchmark"),
     "is damaged: its manifest.json field kind is 'benchmark', not one of: comparison, run; "
     "export the bundle again"),
    (lambda m, _: m["files"].update({"../x": "0" * 64}),
     "is damaged: its manifest.json lists '../x', which is not a bundle's file; export the "
     "bundle again"),
    (_runs_json_of_numbers,
     "is damaged: its runs.json field [0] is a whole number, not an object; export the "
     "bundle again"),
]


@pytest.mark.parametrize("change, words", FIELDS, ids=["compare", "machine", "software", "gpus",
                                                     "kind", "files", "runs.json"])
def test_a_field_of_the_wrong_type_is_named_before_anything_trains(
        history, cli, tmp_path, change, words):
    """These trained first, then crashed with "unexpected AttributeError" (compare:
    before training, the same crash)."""
    bad = tmp_path / "bad.zip"
    _edit_manifest(history, bad, change)
    _refused(cli, history, bad, words)


def test_a_manifest_nested_too_deep_is_named(history, cli, tmp_path):
    """It gave "unexpected RecursionError", exit 1."""
    members = _members(history)
    manifest = members["manifest.json"].decode().rstrip().rstrip("}")
    members["manifest.json"] = (manifest + ', "x": ' + "[" * DEEP + "]" * DEEP + "}").encode()
    bad = tmp_path / "bad.zip"
    _write(bad, members)
    _refused(cli, history, bad, "is damaged: its manifest.json is nested too deeply to be a "
             "bundle's; export the bundle again")


def test_runs_bundle_replaces_a_file_only_with_overwrite(cli, tmp_path):
    """-o mine.zip silently replaced an existing file."""
    mine = tmp_path / "mine.zip"
    mine.write_bytes(b"my own file")
    code, out, err = cli("runs", "bundle", "1", "-o", str(mine))
    assert (code, out) == (2, "")
    assert err == (f"mpstudio runs bundle: error: {mine} already exists; pass --overwrite to "
                   "replace it, or pick another name\n")
    assert mine.read_bytes() == b"my own file"
    code, out, err = cli("runs", "bundle", "1", "-o", str(mine), "--overwrite")
    assert code == 0, err
    assert zipfile.is_zipfile(mine)


def test_runs_bundle_into_an_existing_folder_writes_inside_it(cli, tmp_path):
    """-o in/dest, dest a folder, wrote in/dest.zip beside it."""
    dest = tmp_path / "in" / "dest"
    dest.mkdir(parents=True)
    code, out, err = cli("runs", "bundle", "1", "-o", str(dest), "--json")
    assert code == 0, err
    assert json.loads(out)["bundle"] == str(dest / "bench-1.zip")
    assert zipfile.is_zipfile(dest / "bench-1.zip")
    assert not (tmp_path / "in" / "dest.zip").exists()
    code, out, err = cli("runs", "bundle", "1", "-o", str(dest))  # there now: refused
    assert code == 2 and "bench-1.zip already exists; pass --overwrite" in err
