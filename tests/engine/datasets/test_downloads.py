"""Public datasets: download with progress and checksum, offline afterwards, clear failures.

Files come from a local HTTP server on 127.0.0.1 (never the network)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mpstudio.engine.datasets import public
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.download import RemoteFile, fetch
from mpstudio.engine.datasets.errors import DataError, DataLoadStopped, DownloadError
from mpstudio.engine.datasets.registry import availability, read_source

from support.fake_public_data import (
    FileServer,
    cifar_tar_gz,
    fashion_files,
    mnist_arrays,
    mnist_npz_bytes,
    publish,
    write,
)
from support.user_data_files import unprivileged


@pytest.fixture
def server():
    files = {"mnist.npz": mnist_npz_bytes(), **fashion_files()}
    files["cifar-10-binary.tar.gz"], _ = cifar_tar_gz(hundred=False)
    files["cifar-100-binary.tar.gz"], _ = cifar_tar_gz(hundred=True)
    srv = FileServer(files)
    yield srv
    srv.close()


@pytest.fixture
def served(server, monkeypatch):
    """Every public dataset points at the local server, pinned to its files' checksums."""
    monkeypatch.delenv("MPSTUDIO_DATASETS_MIRROR")
    for name in public.PUBLIC:
        monkeypatch.setitem(public.PUBLIC, name, publish(server, name))
    return server


def collect() -> tuple[LoadContext, list]:
    events: list = []
    return LoadContext("mnist", emit=events.append), events


def folder_listing(path) -> dict[str, tuple[int, float]]:
    return {
        str(p.relative_to(path)): (p.stat().st_size, p.stat().st_mtime)
        for p in path.rglob("*") if p.is_file()
    }


def test_mnist_downloads_with_progress_then_loads_offline(served):
    assert not availability("mnist").offline
    ctx, events = collect()
    data = read_source("mnist", {}, ctx)
    (x_train, y_train), (x_test, _) = mnist_arrays()
    assert np.array_equal(data.x_train[..., 0], x_train)  # channel axis added
    assert np.array_equal(data.y_train, y_train) and len(data.x_test) == len(x_test)
    assert data.report().input_shape == (28, 28, 1)
    # progress: bytes, from 0 to the full size, never going back
    done = [e.done for e in events if e.unit == "B"]
    size = len(served.files["mnist.npz"])
    assert done[0] == 0 and done[-1] == size and done == sorted(done)
    assert all(e.total == size and e.task == "downloading mnist.npz" for e in events)
    cached = public.PUBLIC["mnist"].folder() / "mnist.npz"
    assert cached.read_bytes() == served.files["mnist.npz"]
    assert availability("mnist").offline
    assert [p.name for p in cached.parent.iterdir()] == ["mnist.npz"]  # no .part left

    served.close()  # offline from now on
    again = read_source("mnist", {}, LoadContext("mnist"))
    assert np.array_equal(again.x_train, data.x_train)
    assert served.requests == ["mnist.npz"]


@pytest.mark.parametrize(
    ("name", "classes", "shape"),
    [("fashion_mnist", 10, (28, 28, 1)), ("cifar10", 10, (32, 32, 3)),
     ("cifar100", 100, (32, 32, 3))],
)
def test_other_public_datasets_read_their_published_formats(served, name, classes, shape):
    data = read_source(name, {}, LoadContext(name))
    assert data.input_shape == shape and len(data.class_names) == classes
    assert data.x_train.dtype == np.uint8 and data.x_test is not None
    if name == "fashion_mnist":
        (x_train, y_train), _ = mnist_arrays(seed=1)
        assert np.array_equal(data.x_train[..., 0], x_train)
        assert np.array_equal(data.y_train, y_train)
        assert data.class_names[9] == "Ankle boot"
    else:
        _, first = cifar_tar_gz(hundred=name == "cifar100")
        assert np.array_equal(data.x_train[0], first)  # CHW records become HWC images
        per_file = 20
        assert len(data.x_train) == (per_file if name == "cifar100" else 5 * per_file)
        assert data.class_names[:2] == ("class_0", "class_1")


def test_no_network_says_what_to_do(isolated_datasets):
    with pytest.raises(DownloadError) as err:
        read_source("mnist", {}, LoadContext("mnist"))
    folder = public.PUBLIC["mnist"].folder()
    assert str(err.value).startswith("could not download mnist: no network")
    assert f"put mnist.npz in {folder} or pick another dataset" in str(err.value)
    assert not any(folder.iterdir())  # the empty folder, nothing half-written


def test_truncated_download_keeps_nothing(served):
    served.truncate.add("mnist.npz")
    with pytest.raises(DownloadError, match=r"cut short \([\d,]+ of [\d,]+ bytes\)"):
        read_source("mnist", {}, LoadContext("mnist"))
    assert not any(public.PUBLIC["mnist"].folder().iterdir())


def test_wrong_checksum_from_the_server_keeps_nothing(server, monkeypatch):
    """The real checksum table, a mirror serving a different file."""
    monkeypatch.setenv("MPSTUDIO_DATASETS_MIRROR", server.url)
    with pytest.raises(DownloadError, match="does not match its published checksum"):
        read_source("mnist", {}, LoadContext("mnist"))
    assert server.requests == ["mnist.npz"]
    assert not any(public.PUBLIC["mnist"].folder().iterdir())


def test_a_users_bad_file_is_reported_and_left_in_place(served):
    folder = public.PUBLIC["mnist"].folder()
    mine = write(folder / "mnist.npz", b"my own half-copied file")
    before = folder_listing(folder)
    with pytest.raises(DataError) as err:
        read_source("mnist", {}, LoadContext("mnist"))
    message = str(err.value)
    assert str(mine) in message and "left it in place" in message
    assert folder_listing(folder) == before and mine.read_bytes() == b"my own half-copied file"
    assert served.requests == []  # never re-downloaded over it


def test_a_users_good_file_is_used_without_downloading(served):
    folder = public.PUBLIC["mnist"].folder()
    write(folder / "mnist.npz", served.files["mnist.npz"])
    assert availability("mnist").offline
    read_source("mnist", {}, LoadContext("mnist"))
    assert served.requests == []


def test_keras_cache_is_reused_in_place(served, isolated_datasets):
    keras_copy = write(isolated_datasets / "keras" / "datasets" / "mnist.npz",
                       served.files["mnist.npz"])
    data = read_source("mnist", {}, LoadContext("mnist"))
    assert served.requests == [] and str(keras_copy.parent) in data.origin
    assert not public.PUBLIC["mnist"].folder().exists()  # nothing copied


def test_stop_during_download_keeps_nothing(served):
    served.files["mnist.npz"] += b"\0" * (3 << 20)  # several chunks
    served.truncate.discard("mnist.npz")
    big = served.remote("mnist.npz")
    events: list = []
    ctx = LoadContext("mnist", emit=events.append, should_stop=lambda: len(events) > 0)
    folder = public.PUBLIC["mnist"].folder()
    with pytest.raises(DataLoadStopped, match="nothing was kept"):
        fetch(big, folder, ctx)
    assert not any(folder.iterdir())


def test_http_error_names_the_status(served):
    missing = RemoteFile("gone.npz", served.url + "gone.npz", "0" * 64, 10)
    with pytest.raises(DownloadError, match="answered 404"):
        fetch(missing, public.PUBLIC["mnist"].folder(), LoadContext("mnist"))


def test_published_checksums_are_well_formed():
    for dataset in public.PUBLIC.values():
        for f in dataset.files:
            assert len(f.sha256) == 64 and int(f.sha256, 16) >= 0 and f.size > 1000
            assert f.url.startswith("https://") and f.url.endswith("/" + f.name)


def test_download_goes_to_the_user_cache_folder_by_default(monkeypatch):
    monkeypatch.delenv("MPSTUDIO_DATA_DIR")
    folder = public.PUBLIC["mnist"].folder()
    assert folder.name == "mnist" and "mpstudio" in str(folder).lower()
    assert os.path.isabs(folder)


def test_a_server_sending_too_much_is_cut_off(served):
    served.files["mnist.npz"] = served.files["mnist.npz"] * 40  # published size stays small
    with pytest.raises(DownloadError, match="does not match its published checksum"):
        read_source("mnist", {}, LoadContext("mnist"))
    assert not any(public.PUBLIC["mnist"].folder().iterdir())


def test_fashion_without_network_names_every_file(isolated_datasets):
    with pytest.raises(DownloadError) as err:
        read_source("fashion_mnist", {}, LoadContext("fashion_mnist"))
    for f in public.PUBLIC["fashion_mnist"].files:
        assert f.name in str(err.value)


def test_a_bad_mirror_setting_is_named(monkeypatch):
    monkeypatch.setenv("MPSTUDIO_DATASETS_MIRROR", "127.0.0.1:1")
    with pytest.raises(DownloadError, match=r"MPSTUDIO_DATASETS_MIRROR=127\.0\.0\.1:1"):
        read_source("mnist", {}, LoadContext("mnist"))


def test_a_folder_in_the_way_and_a_read_only_cache(served, isolated_datasets):
    folder = public.PUBLIC["mnist"].folder()
    (folder / "mnist.npz").mkdir(parents=True)
    with pytest.raises(DataError, match="is in the way: it is not a file"):
        read_source("mnist", {}, LoadContext("mnist"))
    assert (folder / "mnist.npz").is_dir()


def test_a_read_only_cache_folder(served):
    with tempfile.TemporaryDirectory() as top:  # reachable by 'nobody' when run as root
        folder = Path(top) / "mnist"
        folder.mkdir()
        Path(top).chmod(0o755)
        folder.chmod(0o555)
        try:
            with unprivileged(), pytest.raises(DownloadError) as err:
                fetch(public.PUBLIC["mnist"].files[0], folder, LoadContext("mnist"))
        finally:
            folder.chmod(0o755)
    assert str(err.value).startswith(f"could not write to the dataset folder {folder}")
    assert "MPSTUDIO_DATA_DIR" in str(err.value)
