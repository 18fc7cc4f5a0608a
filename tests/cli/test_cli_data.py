"""The CLI with datasets: `data list`, `data show`, and training on downloads and user files."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from mpstudio.cli import main
from mpstudio.cli.console import ConsoleReporter
from mpstudio.engine.datasets import public
from mpstudio.engine.datasets.report import DataProgress

from support.fake_public_data import FileServer, mnist_npz_bytes, publish
from support.user_data_files import (
    iris_like_rows,
    learnable_images,
    write_csv,
    write_image_folder,
    write_npz,
)


@pytest.fixture
def served_mnist(monkeypatch):
    server = FileServer({"mnist.npz": mnist_npz_bytes()})
    monkeypatch.delenv("MPSTUDIO_DATASETS_MIRROR")
    monkeypatch.setitem(public.PUBLIC, "mnist", publish(server, "mnist"))
    yield server
    server.close()


def test_data_list_says_what_works_offline(capsys):
    assert main(["data", "list", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"digits", "mnist", "fashion_mnist", "cifar10", "cifar100", "synthetic"}
    assert rows["digits"]["offline"] and rows["synthetic"]["offline"]
    assert not rows["cifar10"]["offline"] and "170.1 MB" in rows["cifar10"]["detail"]
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert "offline now" in out and "--dataset PATH" in out


def test_data_list_sees_a_finished_download(served_mnist, capsys):
    assert main(["data", "show", "mnist", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["train_samples"] == 256 and report["input_shape"] == [28, 28, 1]
    main(["data", "list", "--json"])
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["mnist"]["offline"] and "on disk in" in rows["mnist"]["detail"]


def test_data_show_prints_what_a_file_holds(tmp_path, capsys):
    path = write_csv(tmp_path / "flowers.csv", ["a", "b", "c", "d", "species"], iris_like_rows())
    assert main(["data", "show", str(path), "--label-column", "species"]) == 0
    out = capsys.readouterr().out
    assert "120 training" in out and "flat 4" in out
    assert "setosa 40, versicolor 40, virginica 40" in out and "standardized" in out


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["data", "show", "/nonexistent/d.npz"],
         "dataset path '/nonexistent/d.npz' does not exist"),
        (["data", "show", "mnist", "--label-column", "x"], "takes no options"),
        (["data", "show", "imagenet"], "unknown dataset 'imagenet'"),
    ],
)
def test_data_show_bad_arguments(capsys, args, expected):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1


def test_data_show_of_a_bad_file_is_one_line(tmp_path, capsys):
    path = write_npz(tmp_path / "d.npz", features=learnable_images(10)[0])
    assert main(["data", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert "has no x_train and y_train arrays" in err and len(err.strip().splitlines()) == 1


def test_train_mnist_downloads_with_progress_then_trains(served_mnist, capsys):
    args = ["train", "--dataset", "mnist", "--template", "mlp", "--precision", "float32",
            "--steps", "4", "--batch-size", "32"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    size = len(served_mnist.files["mnist.npz"]) / 1e6
    assert f"mnist: downloading mnist.npz ({size:,.1f} MB) ..." in err
    assert f"mnist: downloading mnist.npz ({size:,.1f} MB) done" in err
    assert "256 training examples, 64 test, image input 28x28x1" in err
    assert "test loss / accuracy" in out and "finished" in out  # results: stdout
    assert main(args) == 0  # offline now: no second download
    assert "downloading" not in capsys.readouterr().err
    assert served_mnist.requests == ["mnist.npz"]


def test_train_mnist_without_network_is_one_clear_line(capsys):
    assert main(["train", "--dataset", "mnist", "--steps", "1"]) == 1
    err = capsys.readouterr().err
    assert "could not download mnist: no network" in err and "put mnist.npz in" in err
    assert "Traceback" not in err


def test_train_on_a_users_files(tmp_path, capsys):
    folder = write_image_folder(tmp_path / "pets", per_class=10)
    args = ["train", "--dataset", str(folder), "--image-size", "8,8", "--template", "cnn",
            "--precision", "float32", "--epochs", "1", "--batch-size", "8", "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["spec"]["dataset"] == str(folder)
    assert result["spec"]["dataset_options"] == {"image_size": [8, 8]}
    assert result["summary"]["status"] == "finished"

    csv_path = write_csv(tmp_path / "t.csv", ["a", "b", "c", "d", "species"], iris_like_rows())
    assert main(["train", "--dataset", str(csv_path), "--label-column", "species",
                 "--template", "mlp", "--steps", "3", "--batch-size", "16", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["steps_done"] == 3

    assert main(["train", "--dataset", str(csv_path), "--label-column", "species",
                 "--template", "cnn"]) == 2
    assert "template 'cnn' takes image or sequence inputs, but the data is flat" in (
        capsys.readouterr().err)


def test_relative_path_is_saved_absolute(tmp_path, monkeypatch, capsys):
    x, y = learnable_images(40)
    write_npz(tmp_path / "d.npz", x_train=x, y_train=y)
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "run.toml"
    assert main(["train", "--dataset", "d.npz", "--steps", "1", "--batch-size", "8",
                 "--save-config", str(config), "--json"]) == 0
    assert f'dataset = "{tmp_path / "d.npz"}"' in config.read_text()


def test_download_progress_is_a_live_bar_in_a_terminal():
    out = io.StringIO()
    reporter = ConsoleReporter(Console(file=out, force_terminal=True, width=100))
    total = 5_000_000
    for done in range(0, total + 1, 1_000_000):
        reporter.emit(DataProgress("mnist", "downloading mnist.npz", done, total, "B"))
    text = out.getvalue()
    assert "downloading mnist.npz" in text and "5.0 MB" in text  # the bar's byte column
    assert "mnist: downloading mnist.npz (5.0 MB) done" in text
