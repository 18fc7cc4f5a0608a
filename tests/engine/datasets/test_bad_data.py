"""Bad input: each gives one clear message naming the file and the problem, and nothing
is written or deleted."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.datasets.registry import read_source
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.spec_checks import spec_problems

from support.user_data_files import (
    learnable_images,
    listing,
    unprivileged,
    write_csv,
    write_image_folder,
    write_npz,
)


def refused(path: Path, *fragments: str, options: dict | None = None, names: str | None = None):
    """Reading ``path`` fails with a DataError naming ``names`` (default: the path) and
    containing ``fragments``; the files under the path are exactly as before."""
    before = listing(path)
    with pytest.raises(DataError) as err:
        read_source(str(path), options or {})
    message = str(err.value)
    assert (names or str(path)) in message, message
    for fragment in fragments:
        assert fragment in message, message
    assert "\n" not in message and "Traceback" not in message
    assert listing(path) == before
    return message


@pytest.fixture
def images():
    return learnable_images(20)


# ------------------------------------------------------------------- .npz
def test_npz_missing_keys(tmp_path, images):
    x, y = images
    path = write_npz(tmp_path / "d.npz", features=x, targets=y)
    refused(path, "has no x_train and y_train arrays (nor x and y)", "features, targets",
            "np.savez(")


def test_npz_object_arrays_are_never_unpickled(tmp_path):
    x = np.empty(4, dtype=object)
    x[:] = [[1, 2], [3], [4, 5, 6], None]
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=np.arange(4) % 2)
    refused(path, "x_train is an object array", "never loads", names=str(path))


def test_npz_mismatched_lengths(tmp_path, images):
    x, y = images
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y[:-1])
    refused(path, "x_train has 20 samples but y_train has 19")


def test_npz_nan_in_features(tmp_path, images):
    x, y = images
    x = x.astype(np.float32)
    x[7, 1, 1] = np.nan
    x[9, 0, 0] = np.inf
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y)
    refused(path, "2 NaN or infinite values (the first in sample 7)", names="d.npz: x_train")


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (np.r_[np.arange(19) % 3, -1], "labels out of range: found -1"),
        (np.r_[np.arange(19) % 3, 123_456], "labels out of range: found 123456"),
        (np.linspace(0, 1, 20), "non-integer labels such as"),
        (np.zeros(20, dtype=int), "only one class"),
    ],
)
def test_npz_bad_labels(tmp_path, images, labels, expected):
    path = write_npz(tmp_path / "d.npz", x_train=images[0], y_train=labels)
    refused(path, expected, names="d.npz: y_train")


def test_npz_test_labels_outside_the_training_classes(tmp_path, images):
    x, y = images
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y, x_test=x[:4],
                     y_test=np.array([0, 1, 2, 7]))
    refused(path, "labels out of range: found 7", "classes 0..2", names="d.npz: y_test")


def test_npz_that_is_not_an_npz(tmp_path):
    path = tmp_path / "d.npz"
    path.write_bytes(b"x,y\n1,2\n")
    refused(path, "is not an .npz file")


def test_npz_wrong_feature_rank(tmp_path):
    path = write_npz(tmp_path / "d.npz", x_train=np.zeros((4, 2, 2, 2, 2)), y_train=[0, 1, 0, 1])
    refused(path, "has shape 4x2x2x2x2", names="d.npz: x_train")


# ----------------------------------------------------------- image folder
def test_image_folder_empty(tmp_path):
    (tmp_path / "empty").mkdir()
    refused(tmp_path / "empty", "has no class sub-folders", "cats/1.jpg")


def test_image_folder_one_class(tmp_path):
    root = write_image_folder(tmp_path / "pets", classes=("cats",), per_class=3)
    refused(root, "only one class sub-folder (cats)")


def test_image_folder_with_a_file_that_is_not_an_image(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=3)
    fake = root / "dogs" / "notes.png"
    fake.write_text("shopping list")
    refused(root, "is not a PNG, JPEG, GIF or BMP image", "remove it", names=str(fake))


def test_image_folder_with_a_damaged_image(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=3)
    good = (root / "cats" / "1.jpg").read_bytes()
    damaged = root / "cats" / "9.jpg"
    damaged.write_bytes(good[:40])  # a valid JPEG header, then nothing
    refused(root, "is damaged or not a readable image", names=str(damaged))


def test_image_folder_class_without_images(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=2)
    (root / "birds").mkdir()
    (root / "birds" / "list.txt").write_text("todo")
    refused(root, "has no images", names=str(root / "birds"))


# -------------------------------------------------------------------- CSV
def test_csv_text_in_a_feature_column(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["size", "color", "label"],
                     [[1.0, 3, 0], [2.0, "red", 1], [3.0, 4, 0]])
    refused(path, "column 'color' has text ('red' on line 3)", "encode it as numbers")


def test_csv_without_the_label_column(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["a", "b", "species"], [[1, 2, "x"], [3, 4, "y"]])
    refused(path, "has no column 'label'", "its columns are: a, b, species", "--label-column")
    refused(path, "has no column 'kind'", options={"label_column": "kind"})


def test_csv_with_a_missing_value_and_a_ragged_row(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["a", "label"], [[1, 0], ["", 1], [2, 0]])
    refused(path, "column 'a' is empty on line 3")
    ragged = tmp_path / "r.csv"
    ragged.write_text("a,b,label\n1,2,0\n3,1\n4,5,1\n")
    refused(ragged, "line 3 has 2 fields but the header has 3")


# ------------------------------------------------------------ any source
def test_a_path_that_does_not_exist(tmp_path):
    missing = tmp_path / "nowhere" / "d.npz"
    assert spec_problems(RunSpec(dataset=str(missing))) == [
        f"dataset path {str(missing)!r} does not exist"
    ]
    assert not missing.parent.exists()


def test_an_unsupported_file_type(tmp_path):
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1")
    (problem,) = spec_problems(RunSpec(dataset=str(path)))
    assert "reads .npz files, .csv files and folders of images" in problem and ".parquet" in problem


@pytest.mark.parametrize("kind", ["npz", "csv"])
def test_a_file_without_read_permission(images, kind):
    # A folder of its own directly in the system temp folder, so 'nobody' can reach it.
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        root.chmod(0o755)
        if kind == "npz":
            path = write_npz(root / "d.npz", x_train=images[0], y_train=images[1])
        else:
            path = write_csv(root / "t.csv", ["a", "label"], [[1, 0], [2, 1]])
        path.chmod(0o000)
        try:
            with unprivileged():
                message = refused(path, "permission denied")
        finally:
            path.chmod(0o644)
    assert message == f"cannot read {path}: permission denied; check the file's permissions"


# ------------------------------------------------ found in review: more bad inputs
def test_npz_single_values_and_foreign_members(tmp_path):
    path = write_npz(tmp_path / "d.npz", x_train=np.float32(3), y_train=np.arange(3))
    refused(path, "x_train is a single value")
    import zipfile

    odd = tmp_path / "odd.npz"
    with zipfile.ZipFile(odd, "w") as zf:
        zf.writestr("x_train.npy", b"not an array")
        zf.writestr("y_train.npy", b"nor this")
    refused(odd, "x_train")


def test_npz_labels_that_are_not_text(tmp_path, images):
    path = write_npz(tmp_path / "d.npz", x_train=images[0],
                     y_train=np.array([b"\xff\xfe"] * 10 + [b"ok"] * 10))
    refused(path, "byte strings that are not UTF-8 text", names="d.npz: y_train")
    x, y = images
    inf = write_npz(tmp_path / "i.npz", x_train=x, y_train=y, x_test=x[:2],
                    y_test=np.array([0.0, np.inf]))
    refused(inf, "NaN, infinite or non-integer labels", names="i.npz: y_test")


def test_npz_test_images_on_another_scale(tmp_path, images):
    x, y = images  # uint8 0..255
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y,
                     x_test=(x[:4] / 255).astype(np.float32), y_test=y[:4])
    refused(path, "x_test has values 0..", "save x_test on the same scale", names="d.npz: x_test")


def test_csv_line_numbers_count_blank_lines(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,label\n1,0\n\n\n2,1\nred,0\n")
    refused(path, "('red' on line 6)")


def test_unreadable_class_folder_is_named(images):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        root.chmod(0o755)
        write_image_folder(root / "pets", per_class=2)
        for p in [root / "pets", root / "pets" / "cats"]:
            p.chmod(0o755)
        locked = root / "pets" / "dogs"
        locked.chmod(0o000)
        try:
            with unprivileged(), pytest.raises(DataError) as err:
                read_source(str(root / "pets"), {})
        finally:
            locked.chmod(0o755)
    assert str(err.value) == (
        f"cannot read {locked}: permission denied; check the file's permissions"
    )


@pytest.mark.parametrize("name", ["x.npz", "x.csv"])
def test_a_named_pipe_as_the_dataset_is_refused_without_opening_it(tmp_path, name):
    """Opening a FIFO blocks until something writes to it: the command hung forever."""
    import subprocess
    import sys

    fifo = tmp_path / name
    os.mkfifo(fifo)
    (problem,) = spec_problems(RunSpec(dataset=str(fifo)))
    assert problem.startswith(f"{fifo} is a named pipe (FIFO), not a file")
    assert "save the data to a file" in problem
    proc = subprocess.run([sys.executable, "-m", "mpstudio", "train", "--dataset", str(fifo)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"mpstudio train: error: {problem}"]


def test_a_named_pipe_inside_an_image_folder_is_named(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=3)
    fifo = root / "dogs" / "9.png"
    os.mkfifo(fifo)
    refused(root, "is a named pipe (FIFO), not an image file", "remove it", names=str(fifo))


def test_a_csv_too_big_for_the_memory_free_is_refused_before_it_is_read(tmp_path):
    """A 3 GB sparse CSV grew the process past 4 GB in 14 s: now its size is enough."""
    import time

    import psutil

    big = tmp_path / "big.csv"
    size = max(3 * 2**30, psutil.virtual_memory().available // 4)  # sparse: no disk used
    with open(big, "wb") as fh:
        fh.write(b"a,label\n")
        fh.truncate(size)
    started = time.perf_counter()
    message = refused(big, "GB of memory here", "save the data as .npz")
    assert time.perf_counter() - started < 2
    assert f"{big} is {size / 2**30:,.1f} GB" in message


def test_a_csv_line_without_end_is_refused_at_the_cap(tmp_path):
    path = tmp_path / "one-line.csv"
    path.write_text("a,label\n" + "1," * (9 * 2**20))  # an 18 MB line, no newline
    refused(path, "line 2 is longer than 16 MB", "one sample per line")


def test_an_image_whose_name_is_not_utf8_is_named(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=3)
    good = (root / "cats" / "1.jpg").read_bytes()
    with open(os.path.join(os.fsencode(root / "cats"), b"\xff\xfe.jpg"), "wb") as fh:
        fh.write(good)
    shown = f"{root / 'cats'}/\\udcff\\udcfe.jpg"
    refused(root, "has a file name that is not UTF-8 text", "rename it", names=shown)


def test_the_command_refuses_a_huge_csv_with_its_memory_bounded(tmp_path):
    """The same 3 GB sparse CSV through `mpstudio train`: one line, exit 2, and the
    process's peak memory is TensorFlow's own, not the file's."""
    import subprocess
    import sys

    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:
        fh.write(b"a,label\n")
        fh.truncate(3 * 2**30)
    measure = ("import resource, subprocess, sys; "
               "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(p.returncode); print(p.stderr.strip().splitlines()[-1]); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    env = dict(os.environ, MPSTUDIO_HISTORY=str(tmp_path / "h.sqlite3"))
    out = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "mpstudio",
                          "train", "--dataset", str(big), "--template", "mlp"],
                         capture_output=True, text=True, timeout=300, env=env).stdout
    code, line, peak_kib = out.strip().splitlines()
    assert int(code) == 2, line  # the data cannot be used: refused like a bad argument
    # refused by its size; on a machine with 36 GB free, by its first line's length
    assert line.startswith(f"mpstudio train: error: {big} is 3.0 GB") or \
        line == f"mpstudio train: error: {big}: line 2 is longer than 16 MB, which is not " \
                "a table row; check that it is a CSV file with one sample per line", line
    assert int(peak_kib) < 2 * 2**20, f"peak {int(peak_kib) / 2**20:.1f} GB"
