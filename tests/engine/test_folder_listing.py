"""A folder of the engine's machine, listed for the window's server file dialog: real
folders in a temp folder; what is left out (hidden names, other suffixes, broken links),
the order, the home folder, and the one sentence of a folder that cannot be listed,
as the engine passes it to the window. No TensorFlow, no engine process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mpstudio.engine.service import folder_listing
from mpstudio.engine.service import job_requests as jr
from mpstudio.engine.service.engine_process import failure_message
from mpstudio.engine.service.folder_listing import FolderError, list_folder
from mpstudio.engine.service.job_table import EngineMemory, run_job


class _Context:
    def emit(self, event: object) -> None: ...
    def should_stop(self) -> bool:
        return False
    def progress(self, done: int, total: int, text: str) -> None: ...


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A user's data folder: two sub-folders, datasets, other files, hidden ones."""
    root = tmp_path / "data"
    (root / "images" / "cats").mkdir(parents=True)
    (root / "Archive").mkdir()
    (root / ".cache").mkdir()
    (root / "digits.npz").write_bytes(b"x" * 300)
    (root / "Table.CSV").write_text("a,b\n1,2\n")
    (root / "notes.txt").write_text("hello")
    (root / ".secret.npz").write_bytes(b"")
    (root / "broken.npz").symlink_to(root / "gone.npz")  # a link to nothing: left out
    (root / "linked").symlink_to(root / "images")  # a link to a folder is a folder
    return root


def test_folders_first_then_the_files_asked_for_without_hidden_ones(data):
    listing = list_folder(str(data), (".npz", ".csv"))
    assert [(e.name, e.is_dir) for e in listing.entries] == [
        ("Archive", True), ("images", True), ("linked", True),
        ("digits.npz", False), ("Table.CSV", False)]  # any case; .txt and dot names out
    npz = listing.entries[3]
    assert npz.size == 300 and npz.modified == pytest.approx((data / "digits.npz").stat()
                                                            .st_mtime)
    assert listing.entries[0].size == 0
    assert listing.path == str(data.resolve()) and listing.parent == str(data.resolve().parent)
    assert not listing.truncated
    every = list_folder(str(data))  # no suffixes: every file that is not hidden
    assert [e.name for e in every.entries if not e.is_dir] == [
        "digits.npz", "notes.txt", "Table.CSV"]
    folders = list_folder(str(data), (".npz",), folders_only=True)
    assert [e.name for e in folders.entries] == ["Archive", "images", "linked"]


def test_home_is_the_engine_users_and_paths_are_expanded_and_resolved(data, monkeypatch):
    monkeypatch.setenv("HOME", str(data))
    for asked in ("", "~", "  ", "~/"):
        listing = list_folder(asked)
        assert listing.path == str(data.resolve()) == listing.home, asked
    assert list_folder("~/images").path == str(data / "images")
    assert list_folder("images/../Archive").path == str(data / "Archive")  # from home
    assert list_folder(str(data / "linked")).path == str(data / "images")  # resolved
    assert [e.name for e in list_folder("~/linked").entries] == ["cats"]
    top = list_folder("/")
    assert top.path == "/" and top.parent == ""


def test_a_huge_folder_is_cut_short_and_says_so(data, monkeypatch):
    monkeypatch.setattr(folder_listing, "MOST_SHOWN", 3)
    listing = list_folder(str(data), (".npz", ".csv"))
    assert [e.name for e in listing.entries] == ["Archive", "images", "linked"]
    assert listing.truncated
    monkeypatch.setattr(folder_listing, "MOST_SCANNED", 2)
    assert list_folder(str(data)).truncated


def _failure(path: str) -> str:
    """The sentence the window shows, as the engine process makes it from the job."""
    request = jr.ListFolderRequest(path)
    with pytest.raises(FolderError) as failed:
        run_job(_Context(), EngineMemory(), request)
    return failure_message(request, failed.value)


def test_a_missing_path_or_a_file_fails_with_one_sentence_naming_it(data):
    missing = data / "nowhere"
    assert _failure(str(missing)) == (
        f"there is no folder {missing} on the engine's machine: check the path, or go "
        f"up to a folder that exists")
    assert _failure(str(data / "digits.npz")) == (
        f"{data / 'digits.npz'} is a file, not a folder: open the folder it is in, {data}")
    assert _failure(str(data / "digits.npz" / "inside")).startswith(
        f"there is no folder {data / 'digits.npz' / 'inside'} on")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its mode")
def test_a_folder_the_user_may_not_read_says_so(data):
    locked = data / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        assert _failure(str(locked)) == (
            f"you may not read the folder {locked} on the engine's machine: pick another "
            f"folder, or ask its owner for access")
        assert "locked" in [e.name for e in list_folder(str(data)).entries]  # still shown
    finally:
        locked.chmod(0o700)


def test_a_scan_that_fails_says_so_too(data, monkeypatch):
    """Where the mode cannot refuse (root): the same sentence from the scan's error."""
    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(folder_listing.os, "scandir", refused)
    with pytest.raises(FolderError, match=r"^you may not read the folder .*data on the "):
        list_folder(str(data))
