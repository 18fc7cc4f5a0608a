"""The user's own data: .npz, CSV and image folders read, reported, and trained end to end."""

from __future__ import annotations

import numpy as np
import pytest

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataLoadStopped
from mpstudio.engine.datasets.registry import load_dataset, read_source
from mpstudio.engine.events import CollectingReporter, RunStarted
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.spec_checks import load_spec, spec_problems
from mpstudio.engine.trainer.runner import run

from support.user_data_files import (
    iris_like_rows,
    learnable_images,
    write_csv,
    write_image_folder,
    write_npz,
)


def small(dataset: str, template: str, **changes) -> RunSpec:
    spec = RunSpec(dataset=dataset, template=template, precision="float32", batch_size=16,
                   epochs=4, validation_split=0.25, log_every_steps=1, learning_rate=3e-3)
    return spec.replace(**changes)


def train(spec: RunSpec):
    reporter = CollectingReporter()
    result = run(spec, reporter)
    assert result.ok, result.failure
    return result, reporter


def test_npz_with_text_labels_and_a_test_split_trains_and_is_tested(tmp_path):
    x, y = learnable_images(160)
    names = np.array(["circle", "square", "triangle"])
    x_test, y_test = learnable_images(30, seed=1)
    path = write_npz(tmp_path / "shapes.npz", x_train=x, y_train=names[y],
                     x_test=x_test, y_test=names[y_test])
    data = read_source(str(path), {})
    report = data.report()
    assert report.class_names == ("circle", "square", "triangle")
    assert report.class_counts == (54, 53, 53) and report.train_samples == 160
    assert report.input_shape == (8, 8, 1) and report.kind == "image"
    assert report.raw_dtype == "uint8" and "divided by 255" in report.scaling
    assert report.test_samples == 30
    result, reporter = train(small(str(path), "mlp", precision="mixed_float16"))
    (started,) = reporter.of_type(RunStarted)
    assert started.data_report == report
    first, last = result.epochs[0], result.epochs[-1]
    assert last.loss < first.loss
    assert result.summary.test_accuracy is not None and result.summary.test_accuracy > 0.6


def test_npz_with_x_and_y_and_one_hot_labels(tmp_path):
    x, y = learnable_images(64, classes=2)
    path = write_npz(tmp_path / "d.npz", x=x.reshape(64, -1).astype(np.float32), y=np.eye(2)[y])
    data = read_source(str(path), {})
    assert data.kind == "flat" and data.input_shape == (64,)
    assert np.array_equal(data.y_train, y) and any("one-hot" in n for n in data.notes)
    assert "standardized" in data.scaling.describe()


def test_channels_first_images_are_transposed(tmp_path):
    x = np.zeros((20, 3, 16, 16), dtype=np.uint8)
    x[:, 0] = 200  # the red channel
    path = write_npz(tmp_path / "nchw.npz", x_train=x, y_train=np.arange(20) % 2)
    data = read_source(str(path), {})
    assert data.input_shape == (16, 16, 3)
    assert data.x_train[0, 5, 5].tolist() == [200, 0, 0]


def test_bundle_scales_images_to_unit_range_and_standardizes_tables(tmp_path):
    x, y = learnable_images(64)
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y)
    bundle = load_dataset(small(str(path), "cnn", validation_split=0.0, data=RunSpec().data))
    xb, _ = next(iter(bundle.train))  # uint8 images: the model divides them by 255
    assert xb.dtype.name == "uint8" and bundle.input_scale == 1 / 255
    assert bundle.value_range == pytest.approx((x.min() / 255, x.max() / 255))
    # the same pixels stored as floats in [0, 255] are scaled on the host, as float32
    floats = write_npz(tmp_path / "f.npz", x_train=x.astype(np.float32), y_train=y)
    bundle = load_dataset(small(str(floats), "cnn", validation_split=0.0, data=RunSpec().data))
    xb, _ = next(iter(bundle.train))
    assert xb.dtype.name == "float32" and bundle.input_scale is None
    assert float(xb.numpy().min()) >= 0.0 and float(xb.numpy().max()) <= 1.0

    csv_path = write_csv(tmp_path / "t.csv", ["a", "b", "big", "n", "label"], iris_like_rows())
    bundle = load_dataset(small(str(csv_path), "mlp", validation_split=0.0, batch_size=120))
    xb, _ = next(iter(bundle.train))
    mean, std = xb.numpy().mean(axis=0), xb.numpy().std(axis=0)
    assert np.allclose(mean, 0, atol=1e-4) and np.allclose(std, 1, atol=1e-3)


def test_standardization_uses_the_training_split_only(tmp_path):
    rows = [[float(i), i % 2] for i in range(100)]
    path = write_csv(tmp_path / "t.csv", ["f", "label"], rows)
    bundle = load_dataset(small(str(path), "mlp", validation_split=0.5, batch_size=8))
    from mpstudio.engine.datasets.pipeline import stratified_split

    train_idx, _ = stratified_split(np.array([r[1] for r in rows]), 0.5, 0)
    train_values = np.array([rows[i][0] for i in train_idx])
    lo = (train_values.min() - train_values.mean()) / train_values.std()
    assert bundle.value_range[0] == pytest.approx(lo, rel=1e-4)


def test_csv_with_text_labels_trains_an_mlp(tmp_path):
    path = write_csv(tmp_path / "flowers.csv", ["sepal", "petal", "weight", "count", "species"],
                     iris_like_rows())
    report = read_source(str(path), {"label_column": "species"}).report()
    assert report.kind == "flat" and report.input_shape == (4,)
    assert report.class_names == ("setosa", "versicolor", "virginica")
    assert report.raw_range[1] > 65504  # would overflow float16 without standardizing
    result, _ = train(small(str(path), "mlp", precision="mixed_float16",
                            dataset_options={"label_column": "species"}))
    assert result.epochs[-1].val_accuracy > 0.8


def test_semicolon_csv_with_integer_labels(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x;y;label\n" + "".join(f"{i};{i * 2};{i % 2}\n" for i in range(40)))
    data = read_source(str(path), {})
    assert data.input_shape == (2,) and data.class_names == ("0", "1")


def test_csv_into_a_conv_template_is_refused_before_reading(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["a", "label"], [[1, 0], [2, 1]])
    problems = spec_problems(small(str(path), "cnn"))
    assert problems == [
        "template 'cnn' takes image or sequence inputs, but the data is flat; "
        "templates that fit: mlp, mlp_bn"
    ]
    with pytest.raises(SpecError):
        run(small(str(path), "cnn"), CollectingReporter())


def test_image_folder_is_read_resized_and_trains(tmp_path):
    root = write_image_folder(tmp_path / "pets")
    (root / "cats" / "README.txt").write_text("photos from my phone")
    events: list = []
    data = read_source(str(root), {"image_size": [8, 8]}, LoadContext("pets", emit=events.append))
    report = data.report()
    assert report.class_names == ("cats", "dogs") and report.class_counts == (12, 12)
    assert report.input_shape == (8, 8, 3) and data.x_train.dtype == np.uint8
    assert any("ignored 1 files that are not images: cats/README.txt" in n for n in report.notes)
    assert events[-1].done == events[-1].total == 24 and events[-1].task == "reading images"
    # brightness survives decoding and resizing: class 1 is much brighter
    assert data.x_train[data.y_train == 1].mean() > data.x_train[data.y_train == 0].mean() + 100

    gray = read_source(str(root), {"image_size": [6, 5], "color_mode": "grayscale"})
    assert gray.input_shape == (6, 5, 1)
    result, _ = train(small(str(root), "cnn", batch_size=8,
                            dataset_options={"image_size": [8, 8]}))
    assert result.epochs[-1].loss < result.epochs[0].loss


def test_sequence_templates_take_images_as_rows(tmp_path):
    x, y = learnable_images(64)
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y)
    result, _ = train(small(str(path), "lstm", epochs=1))
    assert result.summary.steps_done == 3


def test_per_replica_batch_is_multiplied_by_replicas(tmp_path):
    x, y = learnable_images(64)
    path = write_npz(tmp_path / "d.npz", x_train=x, y_train=y)
    bundle = load_dataset(small(str(path), "cnn", validation_split=0.0), replicas=2)
    assert bundle.batch_size == 32 and bundle.steps_per_epoch == 2
    assert next(iter(bundle.train))[0].shape[0] == 32


def test_relative_dataset_path_in_a_config_is_relative_to_the_config(tmp_path, monkeypatch):
    x, y = learnable_images(40)
    write_npz(tmp_path / "d.npz", x_train=x, y_train=y)
    config = tmp_path / "run.toml"
    config.write_text('dataset = "d.npz"\ntemplate = "cnn"\n')
    monkeypatch.chdir("/")
    spec = load_spec(config)
    assert spec.dataset == str(tmp_path / "d.npz") and spec_problems(spec) == []


def test_stop_while_reading_images_keeps_nothing(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=40)
    before = sorted(p.name for p in root.rglob("*"))
    events: list = []
    ctx = LoadContext("pets", emit=events.append, should_stop=lambda: bool(events))
    with pytest.raises(DataLoadStopped, match="stopped while loading pets"):
        read_source(str(root), {"image_size": [8, 8]}, ctx)
    assert events[-1].done < 80  # stopped after the first batch of decoded images
    assert sorted(p.name for p in root.rglob("*")) == before


def test_every_color_mode_reads_every_format(tmp_path):
    """decode_image alone refuses grayscale GIF/BMP and RGBA JPEG; mpstudio converts."""
    import tensorflow as tf

    rng = np.random.default_rng(0)
    for c in ("a", "b"):
        folder = tmp_path / "mixed" / c
        folder.mkdir(parents=True)
        rgb = (rng.random((9, 7, 3)) * 255).astype(np.uint8)
        (folder / "color.jpg").write_bytes(tf.io.encode_jpeg(rgb).numpy())
        (folder / "gray.png").write_bytes(tf.io.encode_png(rgb[..., :1]).numpy())
        (folder / "gray_alpha.png").write_bytes(tf.io.encode_png(rgb[..., :2]).numpy())
        rgba = np.concatenate([rgb, np.full((9, 7, 1), 128, np.uint8)], axis=-1)
        (folder / "rgba.png").write_bytes(tf.io.encode_png(rgba).numpy())
    for mode, channels in (("grayscale", 1), ("rgb", 3), ("rgba", 4)):
        data = read_source(str(tmp_path / "mixed"), {"image_size": [4, 4], "color_mode": mode})
        assert data.x_train.shape == (8, 4, 4, channels)
    alpha = data.x_train[..., 3]  # rgba: opaque where the file had no alpha
    assert set(np.unique(alpha[data.y_train == 0])) >= {128, 255}


def test_stop_while_loading_is_a_stop_not_a_failure(tmp_path):
    root = write_image_folder(tmp_path / "pets", per_class=4)
    reporter = CollectingReporter()
    reporter.stop()
    with pytest.raises(DataLoadStopped):
        run(small(str(root), "cnn", dataset_options={"image_size": [8, 8]}), reporter)
