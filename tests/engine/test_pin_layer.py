"""Keep the layer that overflows float16 in float32 and run again: on real tiny runs of
the crafted overflow model (a layer multiplying by 1e6, its neighbour dividing it
back), through the runner, the command line and the window."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from mpstudio.cli import main
from mpstudio.engine.events import CollectingReporter, NumericsDiagnosis
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.initial_weights import weights_hash
from mpstudio.engine.pin_advice import layers_to_pin
from mpstudio.engine.spec import RunSpec, SpecError, TrainingAids
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.engine.trainer.runner import run

from support.paths import TESTS

TEMPLATE = "boost_overflow"


@pytest.fixture(autouse=True)
def crafted_template(monkeypatch):
    """The crafted template for this module's tests only: the other tests list the
    registered templates and must not meet it."""
    from mpstudio.engine.templates import registry

    from support.crafted_layers import boost_template

    monkeypatch.setitem(registry._TEMPLATES._entries, TEMPLATE, boost_template())


def overflowing(*pinned: str) -> RunSpec:
    return RunSpec(template=TEMPLATE, precision="mixed_float16", batch_size=64, steps=12,
                   float32_layers=list(pinned), aids=TrainingAids(diagnose_numerics=True))


def started_weights(result) -> str:
    result.model.set_weights(result.initial_weights)
    return weights_hash(result.model)


def test_pinning_the_named_layer_then_its_neighbour_makes_the_run_train():
    runs, diagnoses = [], []
    pinned: list[str] = []
    for _attempt in range(3):
        reporter = CollectingReporter()
        result = run(overflowing(*pinned), reporter)
        runs.append(result)
        diagnoses.append(reporter.of_type(NumericsDiagnosis))
        if result.ok:
            break
        pinned = layers_to_pin(pinned, result.diagnosis)
        assert pinned is not None, result.failure.reason
    assert [r.summary.status for r in runs] == ["diverged", "diverged", "finished"]
    assert [d[0].layer for d in diagnoses[:2]] == ["boost", "unboost"]  # then its neighbour
    assert diagnoses[2] == []
    fixed = runs[-1]
    assert fixed.spec.float32_layers == ["boost", "unboost"]
    assert np.isfinite(fixed.summary.final_loss)
    computes = {layer.name: layer.compute_dtype for layer in fixed.model.layers}
    assert computes["boost"] == computes["unboost"] == "float32"
    assert computes["hidden"] == computes["logits"] == "float16"
    assert computes["softmax"] == "float32"  # the output layer stays float32, as built
    # the layer after a pinned one gets float16 again: Keras casts its input
    probe = keras.Model(fixed.model.inputs, [fixed.model.get_layer(n).output
                                             for n in ("unboost", "logits")])
    x = np.zeros((2, *fixed.model.inputs[0].shape[1:]), fixed.model.inputs[0].dtype)
    assert [t.dtype.name for t in probe([x])] == ["float32", "float16"]
    # the same initial weights: pinning changes compute dtypes, never the weights
    assert len({started_weights(r) for r in runs}) == 1


def test_an_unknown_layer_is_a_spec_error_naming_the_models_layers():
    with pytest.raises(SpecError) as caught:
        run(overflowing("no_such_layer"), CollectingReporter())
    assert "'no_such_layer' is not a layer of this model" in str(caught.value)
    assert "hidden, boost, unboost, logits, softmax" in str(caught.value)
    assert spec_problems(RunSpec(float32_layers="dense")) != []
    assert "twice: boost" in " ".join(spec_problems(RunSpec(float32_layers=["boost", "boost"])))
    assert RunSpec.from_toml(overflowing("boost").to_toml()).float32_layers == ["boost"]


def test_the_command_line_prints_the_rerun_and_then_the_cost(capsys):
    base = ["train", "--template", TEMPLATE, "--steps", "12", "--batch-size", "64",
            "--diagnose"]
    assert main(base) == 1
    err = capsys.readouterr().err
    assert ("Keep boost in float32 and run again: mpstudio train --template boost_overflow "
            "--batch-size 64 --steps 12 --diagnose --float32-layer boost") in err
    assert main([*base, "--float32-layer", "boost"]) == 1
    err = capsys.readouterr().err
    assert "--float32-layer boost --float32-layer unboost" in err
    assert main([*base, "--float32-layer", "boost", "--float32-layer", "unboost"]) == 0
    err = capsys.readouterr().err
    assert "boost, unboost kept in float32:" in err
    assert "the all-mixed run (#1)" in err, err
    with RunStore(read_only=True) as store:
        assert store.run(3).spec["float32_layers"] == ["boost", "unboost"]
        assert store.run(3).label == "mixed_float16 · float32 boost, unboost"
    assert main([*base, "--float32-layer", "nope"]) == 2
    assert "hidden, boost, unboost, logits, softmax" in capsys.readouterr().err


def test_the_window_pins_the_named_layer_and_runs_again(qtbot, tmp_path, monkeypatch):
    """The engine process learns the crafted template through a sitecustomize on its
    PYTHONPATH (the window process registered it above)."""

    from PySide6.QtCore import Qt

    from support.gui_helpers import RUN_TIMEOUT_MS, close_window, open_window

    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "from support.crafted_layers import boost_template\n"
        "from mpstudio.engine.templates.registry import register_template\n"
        "register_template(boost_template())\n")
    monkeypatch.setenv("PYTHONPATH", f"{site}:{TESTS}")
    window = open_window(qtbot, tmp_path / "window.ini")
    try:
        window.setup.set_spec(overflowing().replace(epochs=1, steps=None))
        with qtbot.waitSignal(window.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
            qtbot.mouseClick(window.setup.run_button, Qt.MouseButton.LeftButton)
        assert ended.args == ["diverged"]
        offer = window.pin_offer.button
        assert offer.isVisible() and offer.text() == "Keep boost in float32 and run again"
        with qtbot.waitSignal(window.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
            qtbot.mouseClick(offer, Qt.MouseButton.LeftButton)
        assert ended.args == ["diverged"]  # the overflow moved on to the neighbour
        assert window.setup.float32_layers.edit.text() == "boost"
        assert offer.text() == "Keep unboost in float32 and run again"
        table = window.setup.layers.table
        computes = {table.item(r, 0).text(): table.item(r, 2).text()
                    for r in range(table.rowCount())}
        assert computes["boost"] == "float32" and computes["unboost"] == "float16"
        window.grab().save(str(tmp_path / "pin_offer.png"))
        with qtbot.waitSignal(window.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
            qtbot.mouseClick(offer, Qt.MouseButton.LeftButton)
        assert ended.args == ["finished"], window.banner.text()
        assert window.setup.spec().float32_layers == ["boost", "unboost"]
        # no more offer: what pinning cost, against the history's all-mixed run (which
        # diverged before a steady rate) and float32 (none ran with these settings)
        assert not offer.isVisible() and window.pin_offer.cost.isVisible()
        cost = window.pin_offer.cost.text()
        assert cost.startswith("boost, unboost kept in float32:"), cost
        assert "the all-mixed run (#1)" in cost and "no float32 run" in cost
    finally:
        close_window(qtbot, window)


def test_a_model_from_a_keras_file_is_pinned_the_same_way(tmp_path):
    """A user's .keras model: loaded, pinned, same weights hash, float16 elsewhere."""
    from mpstudio.engine.precision import policy_scope
    from mpstudio.engine.templates.pinning import pin_float32

    from support.crafted_layers import boost_overflow

    with policy_scope("mixed_float16"):
        boost_overflow((8,), 3).save(tmp_path / "theirs.keras")
        model = keras.saving.load_model(tmp_path / "theirs.keras", safe_mode=True)
    before = weights_hash(model)
    pin_float32(model, ["boost", "unboost"])
    assert weights_hash(model) == before
    computes = {layer.name: layer.compute_dtype for layer in model.layers}
    assert computes["boost"] == "float32" and computes["logits"] == "float16"
    out = model(np.ones((2, 8), "float32"))
    assert np.isfinite(out.numpy()).all()
    pin_float32(model, [])  # nothing asked: nothing changes
    with pytest.raises(SpecError, match=r"its layers: .*hidden, boost"):
        pin_float32(model, ["dense_9"])
