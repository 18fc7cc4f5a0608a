"""Exports of real tiny trained models to every format, each loaded back in its own
runtime; failures and cancels that leave nothing behind; safe-mode loading; the run
keeping its model; and ``mpstudio export``."""

from __future__ import annotations

import errno
import json
import os

import keras
import numpy as np
import pytest

from mpstudio.cli import main
from mpstudio.engine.events import CollectingReporter
from mpstudio.engine.export import exporter, placement, writers
from mpstudio.engine.export.exporter import export_models
from mpstudio.engine.export.formats import FORMATS, default_path, export_format
from mpstudio.engine.export.results import ExportError, ExportRequest
from mpstudio.engine.export.samples import samples_for
from mpstudio.engine.export.source import (
    float32_copy,
    load_model_file,
    source_from_file,
    source_from_model,
    source_from_run,
)
from mpstudio.engine.export.verify import predict_keras, verify
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.run_models import model_file
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.spec import LossScaling
from mpstudio.engine.trainer.runner import run

from support.crafted_model_files import with_layer_class, with_member


def _train(spec):
    result = run(spec, CollectingReporter())
    assert result.ok, result.failure
    return result


@pytest.fixture(scope="module")
def mixed_mlp(request):
    from mpstudio.engine.spec import RunSpec

    spec = RunSpec(dataset="digits", template="mlp", precision="mixed_float16",
                   batch_size=32, epochs=3, validation_split=0.2)
    return _train(spec)


@pytest.fixture(scope="module")
def mixed_cnn():
    """The cnn template trained under mixed_float16 to about 80% validation accuracy (a
    model whose answers mean something to agree on). Small batches: on a CPU, float16
    convolution filter gradients (oneDNN's) cost a hundred times float32's or more, in
    proportion to the batch: 2 epochs at batch 32 took 50 s of CPU, 80 steps at batch 8
    take 15 s."""
    from mpstudio.engine.spec import RunSpec

    spec = RunSpec(dataset="digits", template="cnn", precision="mixed_float16",
                   batch_size=8, steps=80, validation_split=0.2)
    return _train(spec)


def _all(tmp_path, base="m"):
    return [ExportRequest(f.id, default_path(tmp_path, base, f)) for f in FORMATS]


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


def test_every_format_of_a_mixed_float16_mlp_is_verified(mixed_mlp, tmp_path):
    steps = []
    outcomes = export_models(source_from_model(mixed_mlp.model, mixed_mlp.spec),
                             _all(tmp_path), progress=lambda d, t, s: steps.append((d, t)))
    by_id = {o.request.format_id: o for o in outcomes}
    for outcome in outcomes:
        assert outcome.ok, outcome.line()
        v = outcome.result.verification
        assert v.examples == 256 and v.origin == "held-out validation examples"
        assert outcome.result.path.exists() and outcome.result.size_bytes > 0
    # the same graph (Keras, SavedModel): the same numbers
    for same in ("keras", "savedmodel"):
        assert by_id[same].result.verification.max_difference < 1e-6
    # the float32 copy (TFLite, ONNX) differs from float16 math only by rounding
    for copy in ("tflite-float32", "onnx"):
        v = by_id[copy].result.verification
        assert 0 < v.max_difference < 1e-2 and v.agreement >= 0.99
    # quantized weights: the sizes and the savings are what the formats promise
    weights = mixed_mlp.model.count_params() * 4
    size = {k: o.result.size_bytes for k, o in by_id.items()}
    assert size["tflite-float16"] < 0.55 * size["tflite-float32"]
    assert size["tflite-dynamic"] < 0.35 * weights and size["tflite-int8"] < 0.4 * weights
    assert "smaller than the float32 weights" in by_id["tflite-int8"].result.size_text()
    assert by_id["tflite-int8"].result.verification.export_accuracy is not None
    total = 1 + 2 * len(FORMATS)  # loading the examples, then converting and checking each
    assert steps[-1] == (total, total) and [d for d, _ in steps] == sorted(d for d, _ in steps)
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]

    # loaded back by hand, outside mpstudio's own checks
    from ai_edge_litert.interpreter import Interpreter

    int8 = Interpreter(model_path=str(by_id["tflite-int8"].result.path))
    assert int8.get_input_details()[0]["dtype"] == np.int8
    assert int8.get_output_details()[0]["dtype"] == np.int8
    import tensorflow as tf

    serving = tf.saved_model.load(str(by_id["savedmodel"].result.path)).signatures[
        "serving_default"]
    (spec,) = serving.structured_input_signature[1].values()
    assert spec.dtype == tf.float32 and spec.shape.as_list() == [None, 8, 8, 1]
    reloaded = keras.saving.load_model(by_id["keras"].result.path)  # under its own policy
    assert reloaded.get_layer("dense_1024").dtype_policy.name == "mixed_float16"
    assert reloaded.optimizer is not None  # the optimizer state came along
    # the .keras file is the model itself: uint8 images in, divided by 16 inside; the
    # converted formats take float32 images scaled to [0, 1] as before (and say so)
    assert reloaded.inputs[0].dtype == "uint8"
    assert reloaded.get_layer("input_scaling").scale == 1 / 16
    assert by_id["keras"].result.notes[0] == (
        "input: the images as stored (uint8); the model divides them by 16 itself")
    assert "input: float32, the images divided by 16 (0..1), as in training" in by_id[
        "onnx"].result.notes
    assert by_id["tflite-int8"].result.notes[0].startswith("input: int8, the images divided")


def test_an_old_model_trained_on_float_inputs_still_exports_and_verifies(mixed_mlp, tmp_path):
    """Runs kept before images stayed uint8 took floats in [0, 1]: the model's own Input
    says so, and it is fed the images scaled on the host, as it was trained."""
    from mpstudio.engine.templates import build_model
    from mpstudio.engine.templates.model_input import scale_on_host

    old = build_model("mlp", (8, 8, 1), 10, "mixed_float16")  # float inputs, no scaling
    old.set_weights(mixed_mlp.model.get_weights())
    new_samples = samples_for(mixed_mlp.spec, mixed_mlp.model)
    old_samples = samples_for(mixed_mlp.spec, old)
    assert new_samples.held_out_x.dtype == np.uint8 and old_samples.input_scale is None
    np.testing.assert_array_equal(old_samples.held_out_x,
                                  scale_on_host(new_samples.held_out_x, 1 / 16))
    np.testing.assert_array_equal(old_samples.calibration_x, new_samples.calibration_x)
    # the same weights compute the same outputs, on uint8 inside or on floats from the host
    np.testing.assert_array_equal(predict_keras(old, old_samples.held_out_x),
                                  predict_keras(mixed_mlp.model, new_samples.held_out_x))
    requests = [ExportRequest(i, default_path(tmp_path, "old", export_format(i)))
                for i in ("keras", "savedmodel", "tflite-float32", "tflite-int8", "onnx")]
    outcomes = export_models(source_from_model(old, mixed_mlp.spec), requests)
    for outcome in outcomes:
        assert outcome.ok, outcome.line()
        assert outcome.result.verification.origin == "held-out validation examples"
        assert not [n for n in outcome.result.notes if n.startswith("input:")]


def test_a_uint8_model_file_from_elsewhere_is_checked_on_pixels_in_its_range(mixed_mlp,
                                                                              tmp_path):
    path = tmp_path / "digits.keras"
    mixed_mlp.model.save(path)
    source = source_from_file(path)
    samples = samples_for(None, source.model)
    assert samples.held_out_x.dtype == np.uint8 and samples.held_out_x.max() == 16
    assert samples.converted_x.max() == 1.0 and samples.calibration_x is None
    outcomes = export_models(source, [ExportRequest("keras", tmp_path / "m.keras"),
                                      ExportRequest("tflite-float32", tmp_path / "m.tflite")])
    for outcome in outcomes:
        assert outcome.ok and outcome.result.verification.origin == "random inputs"


def test_a_mixed_cnn_converts_through_its_float32_copy(mixed_cnn, tmp_path):
    copy = float32_copy(mixed_cnn.model)
    assert {layer.dtype_policy.name for layer in copy.layers} == {"float32"}
    for a, b in zip(copy.get_weights(), mixed_cnn.model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    requests = [ExportRequest(i, default_path(tmp_path, "cnn", export_format(i)))
                for i in ("tflite-float32", "tflite-int8", "onnx")]
    outcomes = export_models(source_from_model(mixed_cnn.model, mixed_cnn.spec), requests)
    for outcome in outcomes:
        assert outcome.result is not None, outcome.error
    assert outcomes[0].ok and outcomes[2].ok  # float formats: near-identical
    int8 = outcomes[1].result.verification
    assert int8.threshold == 0.95 and f"{int8.agreement:.1%}" in outcomes[1].line()


def test_the_check_fails_for_an_export_that_computes_something_else(mixed_mlp, tmp_path):
    """Verification compares with the trained model: an export of other weights fails."""
    other = float32_copy(mixed_mlp.model)
    rng = np.random.default_rng(1)
    other.set_weights([rng.permutation(w.reshape(-1)).reshape(w.shape)
                       for w in other.get_weights()])
    [outcome] = export_models(source_from_model(other, mixed_mlp.spec),
                              [ExportRequest("tflite-float32", tmp_path / "other.tflite")])
    samples = samples_for(mixed_mlp.spec, mixed_mlp.model)
    check = verify(export_format("tflite-float32"), outcome.result.path, samples,
                   predict_keras(mixed_mlp.model, samples.held_out_x))
    assert not check.passed and check.agreement < 0.5
    assert "BELOW THRESHOLD" in check.line()


def test_an_unwritable_folder_or_a_full_disk_leaves_nothing(mixed_mlp, tmp_path,
                                                            monkeypatch):
    source = source_from_model(mixed_mlp.model, mixed_mlp.spec)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    [outcome] = export_models(source, [ExportRequest("keras", blocker / "m.keras")])
    assert outcome.result is None and "does not exist" in outcome.error

    existing = tmp_path / "m.tflite"
    existing.write_bytes(b"the user's model")

    def disk_full(path, data):
        with open(path, "wb") as f:
            f.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writers, "write_bytes", disk_full)
    outcomes = export_models(source, [ExportRequest("tflite-dynamic", existing),
                                      ExportRequest("onnx", tmp_path / "m.onnx")],
                             overwrite=True)
    assert all(o.result is None and "is full" in o.error for o in outcomes)
    assert existing.read_bytes() == b"the user's model"
    assert _files(tmp_path) == ["a-file", "m.tflite"]  # no partial file, no staging folder


def test_existing_files_are_replaced_only_when_asked(mixed_mlp, tmp_path):
    source = source_from_model(mixed_mlp.model, mixed_mlp.spec)
    target = tmp_path / "served"
    target.mkdir()
    (target / "old.txt").write_text("keep me")
    [kept] = export_models(source, [ExportRequest("savedmodel", target)])
    assert "already exists" in kept.error and (target / "old.txt").exists()
    [replaced] = export_models(source, [ExportRequest("savedmodel", target)], overwrite=True)
    assert replaced.ok and (target / "saved_model.pb").exists()
    assert not (target / "old.txt").exists()
    assert _files(tmp_path) == ["served"]


def test_a_cancel_leaves_nothing_written(mixed_mlp, tmp_path):
    calls = []
    outcomes = export_models(source_from_model(mixed_mlp.model, mixed_mlp.spec),
                             _all(tmp_path), progress=lambda *a: calls.append(a),
                             should_stop=lambda: len(calls) >= 2)
    assert outcomes[0].error == exporter.CANCELLED  # stopped while converting the first
    assert all(o.result is None for o in outcomes)
    assert _files(tmp_path) == []


def test_model_files_open_in_safe_mode(tmp_path):
    inputs = keras.Input((4,))
    outputs = keras.layers.Lambda(lambda x: x * 2)(inputs)
    path = tmp_path / "with-code.keras"
    keras.Model(inputs, outputs).save(path)
    with pytest.raises(ExportError, match="contains Python code"):
        source_from_file(path)
    damaged = tmp_path / "damaged.keras"
    damaged.write_bytes(os.urandom(2000))
    with pytest.raises(ExportError, match="damaged or not a Keras 3 model"):
        load_model_file(damaged)
    crafted = with_layer_class(path, tmp_path / "crafted.keras", "lambda", "os", "system")
    with pytest.raises(ExportError) as err:  # Keras' five lines with the config, in one
        load_model_file(crafted)
    assert str(err.value).startswith("refused to open crafted.keras: its layer 'lambda' is "
                                     "of class os.system") and "\n" not in str(err.value)


def test_a_run_keeps_its_model_for_export_and_forgets_it_on_delete(tiny_spec, tmp_path):
    recorder = RecordingReporter(CollectingReporter())
    spec = tiny_spec.replace(precision="mixed_float16")
    diverging = spec.replace(loss_scaling=LossScaling("fixed", factor=1e30), epochs=3)
    for each in (spec, diverging):
        recorder.keep_model(run(each, recorder))
    recorder.close()
    good, bad = recorder.run_ids
    assert model_file(good) is not None and model_file(bad) is None
    with pytest.raises(ExportError, match="kept no trained model"):
        source_from_run(bad)
    source = source_from_run(good)
    assert source.spec == spec and source.keras_file == model_file(good)
    [outcome] = export_models(source, [ExportRequest("keras", tmp_path / "again.keras")])
    assert outcome.ok and (tmp_path / "again.keras").read_bytes() == model_file(
        good).read_bytes()
    with RunStore() as store:
        store.delete_runs([good])
    assert model_file(good) is None and not model_file(good, None)


def test_the_export_command(tiny_spec, tmp_path, capsys):
    assert main(["train", "--steps", "30", "--batch-size", "32", "--json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["id"]
    target = tmp_path / "model.tflite"
    assert main(["export", str(run_id), "--format", "tflite-float16", "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "TFLite float16 weights" in out and "top-1 agreement" in out and "OK" in out
    assert target.exists()
    assert main(["export", str(run_id), "--format", "tflite-float16", "-o", str(target)]) == 2
    assert "pass --overwrite" in capsys.readouterr().err
    assert main(["export", str(run_id), "-f", "onnx", "-o", str(tmp_path / "m"), "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["exports"]
    assert entry["path"].endswith("m.onnx") and entry["verification"]["passed"]
    with RunStore() as store:
        assert str((tmp_path / "m.onnx").resolve()) in store.run(run_id).model_paths
    assert main(["export", "9999", "-f", "keras"]) == 1
    assert "no run #9999" in capsys.readouterr().err
    assert main(["export", str(run_id), "-f", "tflite-nano"]) == 2
    assert "unknown export format" in capsys.readouterr().err


def test_format_all_into_a_folder_it_cannot_use_leaves_no_folder(tmp_path, capsys):
    """`--format all -o deploy/` makes a missing folder, but a refused export (here:
    no such model) takes it back; a file where the folder should be is refused."""
    target = tmp_path / "deploy"
    assert main(["export", str(tmp_path / "none.keras"), "--format", "all",
                 "-o", str(target)]) == 2
    assert "neither a run id" in capsys.readouterr().err and not target.exists()
    target.write_text("a file")
    assert main(["export", str(tmp_path / "none.keras"), "--format", "all",
                 "-o", str(target)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_missing_dependency_is_refused_up_front(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "tf2onnx" else real(name, *a))
    assert main(["export", "1", "-f", "onnx"]) == 2
    err = capsys.readouterr().err
    assert "needs tf2onnx" in err and "pip install tf2onnx onnxruntime" in err


def test_a_converter_crash_fails_that_format_only(tmp_path):
    """Calibrating an LSTM's static-batch loop for full-integer int8 segfaults TF 2.21's
    converter. It runs in a process of its own: the crash is that format's failure,
    named with its signal, and the other formats (and this process) go on."""
    from mpstudio.engine.spec import RunSpec

    spec = RunSpec(dataset="digits", template="lstm", precision="mixed_float16",
                   batch_size=64, epochs=1, validation_split=0.2)
    result = _train(spec)
    requests = [ExportRequest(i, default_path(tmp_path, "lstm", export_format(i)))
                for i in ("tflite-int8", "tflite-dynamic")]
    outcomes = export_models(source_from_model(result.model, spec, None), requests)
    int8, dynamic = outcomes
    assert dynamic.ok and "fixed batch of 1" in " ".join(dynamic.result.notes)
    if int8.ok:  # a converter that no longer crashes: then it must verify like any other
        assert int8.result.verification.passed
    else:
        assert "the TFLite converter crashed (SIGSEGV) calibrating the recurrent loop" \
            in int8.error and "dynamic-range int8 instead" in int8.error
        assert not default_path(tmp_path, "lstm", export_format("tflite-int8")).exists()
    assert _files(tmp_path) == sorted(
        p.name for p in (o.request.path for o in outcomes if o.ok))


@pytest.mark.parametrize("member, chunk, words", [
    ("model.weights.h5", bytes(2**20), "-fold to 300 MB"),  # 300 MB of zeros
    ("config.json", b" " * 2**20, "config.json unpacks to 300 MB"),
])
def test_a_zip_bomb_model_file_is_refused_before_anything_is_read(mixed_mlp, tmp_path, member,
                                                                   chunk, words):
    import hashlib
    import time

    real = tmp_path / "real.keras"
    mixed_mlp.model.save(real)
    bomb = with_member(real, tmp_path / "bomb.keras", member, chunk, 300)
    assert bomb.stat().st_size < 5 * 2**20
    before = hashlib.sha256(bomb.read_bytes()).hexdigest()
    started = time.perf_counter()
    with pytest.raises(ExportError) as err:
        load_model_file(bomb)
    assert time.perf_counter() - started < 2  # refused from the directory, nothing unpacked
    message = str(err.value)
    assert message.startswith("refused to open bomb.keras") and "\n" not in message
    assert words in message and "damaged or crafted" in message
    assert hashlib.sha256(bomb.read_bytes()).hexdigest() == before
    load_model_file(real)  # the real file still opens


def test_a_killed_export_leaves_nothing_the_next_export_does_not_clear(mixed_mlp, tmp_path):
    """kill -9 of `mpstudio export --format all` mid-way left a `.NAME.partial-*` folder
    with an unverified model in the user's folder, and a scratch folder in the temp
    folder; the next export now removes both (their owner is gone)."""
    import signal
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    real = tmp_path / "real.keras"
    mixed_mlp.model.save(real)
    out = tmp_path / "deploy" / "out"  # not there yet: `--format all` makes it (mkdir -p)
    proc = subprocess.Popen([sys.executable, "-m", "mpstudio", "export", str(real),
                             "--format", "all", "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    temp = Path(tempfile.gettempdir())
    scratch = f"{placement.SCRATCH_PREFIX}{proc.pid}-"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
            out.is_dir() and any(".partial-" in p.name for p in out.iterdir())):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = [p for p in out.iterdir() if ".partial-" in p.name]
    assert left, "the export was not caught mid-way"
    assert [p for p in temp.iterdir() if p.name.startswith(scratch)]
    assert main(["export", str(real), "--format", "keras", "-o", str(out / "again.keras")]) == 0
    assert not [p for p in out.iterdir() if ".partial-" in p.name]
    assert not [p for p in temp.iterdir() if p.name.startswith(scratch)]
    assert (out / "again.keras").is_file()


# A real writer of partials: the export's own staging and scratch code, in a process
# of its own that then waits (to be killed, or to show that a live one's are kept).
_WRITER = """
import sys, time
from pathlib import Path
from mpstudio.engine.export.placement import Staging, scratch_folder
stage = Staging(Path(sys.argv[1]), False, False)
stage.path.write_bytes(b"half a model")
print(stage.folder, scratch_folder(), flush=True)
time.sleep(600)
"""


def test_any_later_export_clears_what_killed_exports_left_but_never_a_live_ones(tmp_path):
    """kill -9 of an export left `deploy/.NAME.keras.partial-PID-*` and a temp
    `mpstudio-export-PID-*` folder until an export with --overwrite happened to clear
    them: the same export again, refused since its file exists (exit 2), left them. Now
    any export clears them first, and so does the atomic-write helper in that folder;
    a process still at work keeps its own."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from mpstudio.engine.report.files import atomic_write_text

    deploy = tmp_path / "deploy"
    deploy.mkdir()

    def writer(name: str) -> tuple[subprocess.Popen, Path, Path]:
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(deploy / name)],
                                stdout=subprocess.PIPE, text=True)
        staged, scratch = proc.stdout.readline().split()
        return proc, Path(staged), Path(scratch)

    live, live_stage, live_scratch = writer("other.keras")  # first: it clears as it starts
    try:
        killed, killed_stage, killed_scratch = writer("model.keras")
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert killed_stage.name.startswith(f".model.keras.partial-{killed.pid}-")
        assert killed_scratch.name.startswith(f"{placement.SCRATCH_PREFIX}{killed.pid}-")
        source = tmp_path / "source.keras"
        keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)]).save(source)
        (deploy / "model.keras").write_bytes(source.read_bytes())  # exported before
        assert main(["export", str(source), "--format", "keras", "-o",
                     str(deploy / "model.keras")]) == 2  # it exists: refused at once
        assert not killed_stage.exists() and not killed_scratch.exists()
        assert (live_stage / "other.keras").is_file() and live_scratch.is_dir()
    finally:
        live.kill()
        live.wait()
    assert atomic_write_text(deploy / "notes.txt", "x") == deploy / "notes.txt"
    assert sorted(p.name for p in deploy.iterdir()) == ["model.keras", "notes.txt"]
    main(["export", str(source), "--format", "keras", "-o", str(deploy / "model.keras")])
    assert not live_scratch.exists()


def test_a_tfsmlayer_is_named_as_what_it_is_in_one_line(tmp_path):
    """It was refused as "a Lambda layer"."""
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    inner.export(str(tmp_path / "saved"), verbose=False)
    inputs = keras.Input((4,))
    outputs = keras.layers.TFSMLayer(str(tmp_path / "saved"), call_endpoint="serve")(inputs)
    path = tmp_path / "wrapped.keras"
    keras.Model(inputs, outputs).save(path)
    with pytest.raises(ExportError) as err:
        load_model_file(path)
    message = str(err.value)
    assert message.startswith("refused to open wrapped.keras: it contains a TFSMLayer")
    assert "Lambda" not in message and "\n" not in message


def test_exporting_into_proc_says_it_is_a_system_folder(mixed_mlp, tmp_path):
    """It said "/proc does not exist"."""
    from pathlib import Path

    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    source = source_from_model(mixed_mlp.model, mixed_mlp.spec, None)
    [outcome] = export_models(source, [ExportRequest("keras", Path("/proc/model.keras"))])
    assert outcome.error == ("cannot create files in /proc: it is a system folder, not one "
                             "for files; pick another folder")
