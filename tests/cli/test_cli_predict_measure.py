"""``mpstudio predict --measure``: the model timed on this machine beside its prediction,
and ``mpstudio predict --template FILE.keras`` on the file's own input and classes."""

from __future__ import annotations

import json

import pytest

from support.crafted_model_files import small_classifier

PRECISIONS = ("float32", "mixed_float16", "mixed_bfloat16")


def test_measure_sets_the_measurement_beside_the_prediction(run_cli):
    code, out, err = run_cli("predict", "--template", "mlp", "--batch-size", "32",
                             "--measure", "--seconds", "0.2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["measurement"]["device"] == "CPU"
    assert data["measurement"]["data"] == "digits"  # what a comparison would train on
    assert data["measurement"]["seconds_per_precision"] == 0.2
    assert set(data["predictions"]) == set(PRECISIONS)
    for name, row in data["predictions"].items():
        measured = row["measured"]
        assert row["examples_per_s"] > 0  # the prediction, beside what was measured
        assert measured["examples_per_s"] > 0 and measured["steps"] > 0
        assert measured["spread"] >= 0 and "prediction_error" in measured
        if name != "float32":
            assert measured["speedup"] > 0 and "speedup_error" in measured
    assert err == ""  # no progress bar with --json


def test_the_measurement_reads_as_a_table_and_in_words(run_cli):
    code, out, err = run_cli("predict", "--template", "mlp", "--batch-size", "32",
                             "--measure", "--seconds", "0.1", "--device", "cpu")
    assert code == 0, err
    text = " ".join(out.split())
    assert "Measured on CPU" in text and "at batch 32: 0.1 s a precision" in text
    assert "prediction off by" in text and "steps timed" in text
    assert "mixed_float16 measured on CPU" in text and "float32 (" in text


@pytest.mark.parametrize(("args", "message"), [
    (("--device", "NVIDIA H200"), "--measure can only time this machine's device (CPU), "
                                  "and NVIDIA H200 is not here"),
    (("--seconds", "0"), "--seconds must be between 0.1 and 60, got 0"),
    (("--input-shape", "8,abc"), "--input-shape takes positive sizes"),
])
def test_bad_input_under_measure_gets_one_line(run_cli, args, message):
    code, out, err = run_cli("predict", "--measure", *args)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    return str(small_classifier(tmp_path_factory.mktemp("own") / "m.keras"))


def test_a_keras_model_is_predicted_on_its_own_input(run_cli, model_file):
    code, out, err = run_cli("predict", "--template", model_file, "--device", "H100",
                             "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["input_shape"], data["classes"], data["inputs_from"]) == (
        [16, 16, 3], 5, "model file")
    assert data["predictions"]["mixed_float16"]["speedup"] > 0
    code, out, err = run_cli("predict", "--template", model_file, "--device", "H100")
    assert code == 0, err
    assert "predicted for its own input 16x16x3, 5 classes" in " ".join(out.split())


def test_input_shape_and_dataset_still_say_what_the_data_is(run_cli, model_file):
    code, out, err = run_cli("predict", "--template", model_file, "--device", "H100",
                             "--input-shape", "16,16,3", "--classes", "5", "--json")
    assert code == 0, err
    assert json.loads(out)["inputs_from"] == "input-shape"
    for args, data in ((("--input-shape", "32,32,3"), "32x32x3"),
                       (("--dataset", "digits"), "8x8x1")):
        code, out, err = run_cli("predict", "--template", model_file, "--device", "H100",
                                 *args)
        assert code == 1 and out == "" and "Traceback" not in err
        assert f"takes inputs of shape 16x16x3, but the data's examples are {data}" in err


def test_a_keras_model_is_measured_on_its_own_input(run_cli, model_file):
    code, out, err = run_cli("predict", "--template", model_file, "--batch-size", "16",
                             "--measure", "--seconds", "0.1", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["measurement"]["input_shape"] == [16, 16, 3]
    assert data["measurement"]["data"] == "synthetic"  # no data of its shape here
    assert all(row["measured"]["examples_per_s"] > 0 for row in data["predictions"].values())
