"""Copying an export from the engine's machine to the window's (service/file_fetch.py):
the engine's listing, chunks and checksums fed to the window's receiver as they would
cross; a folder arrives whole; a hostile or damaged copy leaves nothing behind."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from mpstudio.engine.service.file_fetch import (
    CHUNK_BYTES,
    FetchedFiles,
    FetchError,
    FileChunk,
    FileEntry,
    FileListing,
    FileReceiver,
    send_files,
    staging_folder,
)


def _send(path: Path, **options) -> tuple[list, FetchedFiles]:
    events: list = []
    result = send_files(path, events.append, lambda *_: None, lambda: False, **options)
    return events, result


def _receive(events: list, result: FetchedFiles, target: Path, overwrite: bool = False):
    receiver = FileReceiver(target, overwrite)
    try:
        for event in events:
            receiver.receive(event)
        return receiver.finish(result)
    finally:
        receiver.close()


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_folder_crosses_whole_with_each_files_checksum(tmp_path):
    model = tmp_path / "server" / "digits_savedmodel"
    (model / "variables").mkdir(parents=True)
    (model / "saved_model.pb").write_bytes(os.urandom(3 * CHUNK_BYTES + 17))  # 4 chunks
    (model / "variables" / "variables.index").write_bytes(b"index")
    (model / "empty").write_bytes(b"")
    events, result = _send(model)
    assert isinstance(events[0], FileListing) and events[0].is_folder
    assert sum(isinstance(e, FileChunk) for e in events) == 4 + 1  # the empty file: none
    assert result.sha256[events[0].files.index(FileEntry("saved_model.pb", 3 * CHUNK_BYTES
                                                          + 17))] == hashlib.sha256(
        (model / "saved_model.pb").read_bytes()).hexdigest()
    target = tmp_path / "laptop" / "digits_savedmodel"
    target.parent.mkdir()
    assert _receive(events, result, target) == target
    assert _tree(target) == _tree(model)
    assert [p.name for p in target.parent.iterdir()] == ["digits_savedmodel"]  # no staging


def test_a_staged_export_is_removed_once_sent_and_only_it(tmp_path):
    folder = staging_folder()
    first, second = folder / "a.keras", folder / "b.tflite"
    first.write_bytes(b"k" * 10)
    second.write_bytes(b"t" * 10)
    _send(first, remove_after=True)
    assert not first.exists() and second.exists()  # the export's next file still there
    _send(second, remove_after=True)
    assert not folder.exists()
    mine = tmp_path / "mine.keras"  # a file of the user's, not in a staging folder
    mine.write_bytes(b"x")
    _send(mine, remove_after=True)
    assert mine.exists()


@pytest.mark.parametrize("relative", ["../escaped", "/etc/passwd", "a/../../x", "a\\b", "."])
def test_a_listing_naming_a_path_outside_the_copy_writes_nothing(tmp_path, relative):
    listing = FileListing("model", True, (FileEntry(relative, 1),))
    target = tmp_path / "model"
    with pytest.raises(FetchError, match="outside the copy"):
        _receive([listing, FileChunk(0, 0, b"x")], FetchedFiles(listing, ("0",)), target)
    assert list(tmp_path.iterdir()) == [] and not (tmp_path.parent / "escaped").exists()


def test_a_copy_that_does_not_match_leaves_nothing_and_the_old_file_untouched(tmp_path):
    source = tmp_path / "model.keras"
    source.write_bytes(os.urandom(1000))
    events, result = _send(source)
    target = tmp_path / "here" / "model.keras"
    target.parent.mkdir()
    target.write_bytes(b"the user's file")
    damaged = [events[0], FileChunk(0, 0, events[1].data[:-1] + b"!")]
    with pytest.raises(FetchError, match="does not match the engine's file"):
        _receive(damaged, result, target, overwrite=True)
    assert target.read_bytes() == b"the user's file"
    assert [p.name for p in target.parent.iterdir()] == ["model.keras"]
    with pytest.raises(FetchError, match="already exists"):
        _receive(events, result, target)  # not asked to replace it
    assert _receive(events, result, target, overwrite=True).read_bytes() == \
        source.read_bytes()
