"""A model of the user's own from a .keras file, trained like a template (issue 25 item
1, "the same for a user's model loaded from a .keras file"): the run's precision on
each of its layers, the diagnosis naming its overflowing layer, the pin fixing it, and
the window's Open .keras…"""

from __future__ import annotations

import keras
import numpy as np
import pytest

from mpstudio.cli.main import main
from mpstudio.engine.history.locations import HISTORY_ENV
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.engine.templates.registry import build_model

from support.crafted_model_files import with_layer_class, with_member

DIGITS = (8, 8, 1)
DIGITS_SCALE = 1 / 16  # digits are uint8 0..16, scaled inside the model


def boost_model(input_shape=DIGITS) -> keras.Model:
    """tanh, then x 1e6 (float16 overflows past 65,504), then x 1e-6: finite in float32."""
    inputs = keras.Input(input_shape)
    x = keras.layers.Flatten(name="flatten")(inputs)
    x = keras.layers.Dense(16, activation="tanh", name="hidden")(x)
    x = keras.layers.Rescaling(1e6, name="boost")(x)
    x = keras.layers.Rescaling(1e-6, name="unboost")(x)
    x = keras.layers.Dense(10, name="logits")(x)
    return keras.Model(inputs, keras.layers.Activation("softmax", name="softmax")(x))


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "boost.keras"
    boost_model().save(path)
    return path


@pytest.fixture
def history(tmp_path, monkeypatch):
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path / "history.sqlite3"))


def test_the_files_layers_take_the_runs_precision_and_keep_their_weights(model_file):
    saved = keras.saving.load_model(model_file, compile=False)
    model = build_model(str(model_file), DIGITS, 10, "mixed_float16", input_scale=DIGITS_SCALE,
                        float32_layers=["boost"])
    dtypes = {layer.name: layer.compute_dtype for layer in model.layers[1:]}  # not Input
    assert dtypes == {"input_scaling": "float32", "flatten": "float16",
                      "hidden": "float16", "boost": "float32", "unboost": "float16",
                      "logits": "float16", "softmax": "float32"}
    assert model.inputs[0].dtype == "uint8"  # the batches stay uint8, scaled on the device
    for a, b in zip(saved.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    x = np.arange(64, dtype="uint8").reshape(1, 8, 8, 1) % 17
    expected = saved.predict(x.astype("float32") * DIGITS_SCALE, verbose=0)
    float32 = build_model(str(model_file), DIGITS, 10, "float32", input_scale=DIGITS_SCALE)
    np.testing.assert_allclose(float32.predict(x, verbose=0), expected, rtol=1e-6)


def test_a_model_that_does_not_fit_the_data_is_named_before_training(tmp_path, model_file):
    flat = tmp_path / "flat.keras"
    boost_model((64,)).save(flat)
    with pytest.raises(SpecError, match=r"takes inputs of shape 64, but the data's examples "
                                        r"are 8x8x1"):
        build_model(str(flat), DIGITS, 10, "mixed_float16", input_scale=None)
    with pytest.raises(SpecError, match="has 10 outputs, but the data has 3 classes"):
        build_model(str(model_file), DIGITS, 3, "float32", input_scale=None)
    fake = tmp_path / "fake.keras"
    fake.write_text("not a zip")
    assert "not a Keras 3 .keras file" in spec_problems(RunSpec(template=str(fake)))[0]
    assert "does not exist" in spec_problems(RunSpec(template=str(tmp_path / "no.keras")))[0]


def test_the_command_line_diagnoses_pins_and_trains_the_users_model(model_file, history,
                                                                     capsys):
    base = ["train", "--template", str(model_file), "--steps", "12", "--batch-size", "64",
            "--diagnose"]
    assert main(base) == 1
    err = capsys.readouterr().err
    assert "Diagnosis: layer 'boost'" in " ".join(err.split())
    assert f"--template {model_file}" in err and "--float32-layer boost" in err
    assert main([*base, "--float32-layer", "boost", "--float32-layer", "unboost"]) == 0
    out = capsys.readouterr().out
    assert "mixed_float16 · float32 boost, unboost: finished" in out


def test_the_window_opens_a_keras_file_as_the_template(qtbot, model_file, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from mpstudio.ui.setup.setup_panel import SetupPanel

    panel = SetupPanel()
    qtbot.addWidget(panel)
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kwargs: (str(model_file), "")))
    panel.template_picker.open_button.click()
    assert panel.template.currentText() == "boost.keras"
    assert panel.spec().template == str(model_file)
    assert "your model from a .keras file" in panel.template_note.text()
    other = SetupPanel()  # a saved spec that names the file shows it too
    qtbot.addWidget(other)
    other.set_spec(panel.spec())
    assert other.template.currentText() == "boost.keras"
    assert other.spec().template == str(model_file)


def _saved(model: keras.Model, path) -> str:
    model.save(path)
    return str(path)


def test_a_logits_model_and_an_unbuilt_one_are_refused_and_a_nested_head_is_float32(tmp_path):
    inputs = keras.Input(DIGITS)
    flat = keras.layers.Flatten()(inputs)
    logits = _saved(keras.Model(inputs, keras.layers.Dense(10)(flat)), tmp_path / "logits.keras")
    with pytest.raises(SpecError, match="does not end in a softmax"):
        build_model(logits, DIGITS, 10, "mixed_float16")
    unbuilt = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(10)])
    with pytest.warns(UserWarning):
        path = _saved(unbuilt, tmp_path / "unbuilt.keras")
    with pytest.raises(SpecError, match="never built"):
        build_model(path, DIGITS, 10, "mixed_float16")
    head = keras.Sequential([keras.Input((64,)), keras.layers.Dense(32, name="h1"),
                             keras.layers.Dense(10, activation="softmax", name="h2")],
                            name="head")
    nested = _saved(keras.Model(inputs, head(flat)), tmp_path / "nested.keras")
    model = build_model(nested, DIGITS, 10, "mixed_float16", input_scale=None)
    assert model.get_layer("head").get_layer("h2").compute_dtype == "float32"
    assert model(np.zeros((1, *DIGITS), "float32")).dtype == "float32"


@pytest.mark.parametrize("member, chunk, words", [
    ("model.weights.h5", bytes(2**20), "model.weights.h5 unpacks"),  # 300 MB of zeros
    ("config.json", b" " * 2**20, "config.json unpacks to 300 MB"),
])
def test_a_zip_bomb_template_is_refused_before_tensorflow_reads_it(model_file, tmp_path,
                                                                    history, capsys, member,
                                                                    chunk, words):
    """Issue 35: a 3.7 MB .keras whose weights unpacked to 3.9 GB ran 67 s at 8.2 GB
    before h5py failed; one with a 1.5 GB config.json trained. The template loader now
    runs export's checks (model_file.archive_problem): refused in seconds, one line."""
    import time

    bomb = with_member(model_file, tmp_path / "bomb.keras", member, chunk, 300)
    assert bomb.stat().st_size < 5 * 2**20
    started = time.perf_counter()
    problems = spec_problems(RunSpec(template=str(bomb)))  # the spec check, no TensorFlow
    assert len(problems) == 1 and problems[0].startswith("refused to open bomb.keras")
    assert words in problems[0] and "damaged or crafted" in problems[0]
    with pytest.raises(SpecError, match=r"refused to open bomb\.keras"):  # the loader itself
        build_model(str(bomb), DIGITS, 10, "float32", input_scale=DIGITS_SCALE)
    assert main(["train", "--template", str(bomb), "--steps", "2"]) == 2
    assert time.perf_counter() - started < 10
    err = capsys.readouterr().err
    assert err.startswith("mpstudio train: error: refused to open bomb.keras")
    assert err.count("\n") == 1


def test_a_layer_naming_any_python_callable_is_refused_in_one_line(model_file, tmp_path,
                                                                    history, capsys,
                                                                    monkeypatch):
    """A layer "class" os.system: Keras refused it (no code ran) in five lines with the
    whole config; now one line naming the layer and its class, and what to do."""
    monkeypatch.chdir(tmp_path)
    crafted = with_layer_class(model_file, tmp_path / "crafted.keras", "hidden", "os",
                               "system")
    assert main(["train", "--template", str(crafted), "--steps", "2"]) == 2
    err = capsys.readouterr().err
    assert err == ("mpstudio train: error: refused to open crafted.keras: its layer 'hidden' "
                   "is of class os.system, which is neither a Keras layer nor mpstudio's "
                   "(nothing of it was run): rebuild that layer from Keras layers and save "
                   "the model again\n")
    assert not (tmp_path / "pwned").exists()
