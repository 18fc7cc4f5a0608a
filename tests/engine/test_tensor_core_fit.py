"""The static Tensor Core check: real tiny Keras models under mixed_float16 and float32,
the notes through the event codec and pickling, and the layer table's column."""

from __future__ import annotations

import dataclasses
import json
import pickle

import keras
import pytest
from PySide6.QtGui import QColor

from mpstudio.engine.event_codec import event_from_json, event_to_json
from mpstudio.engine.model_summary import LayerInfo, ModelSummary, describe_model
from mpstudio.engine.precision import policy_scope
from mpstudio.engine.tensor_core_fit import batch_fit, layer_tensor_core_fit

from support.history_fakes import started

L = keras.layers


def _image_model(policy: str) -> keras.Model:
    """Conv2D over RGB (3 channels in) with 12 filters, Dense(16), Dense(10), float32 head."""
    with policy_scope(policy):
        inputs = keras.Input((8, 8, 3))
        x = L.Conv2D(12, 3, name="conv_rgb")(inputs)
        x = L.Flatten(name="flatten")(x)
        x = L.Dense(16, name="dense_16")(x)
        x = L.Dense(10, name="dense_10")(x)
        outputs = L.Activation("softmax", dtype="float32", name="probabilities")(x)
        return keras.Model(inputs, outputs)


def _sequence_model(policy: str) -> keras.Model:
    """Embedding(100, 12), MultiHeadAttention(2 heads of 6), LSTM(20), Dense(16) over the
    sequence, a float32 Dense head."""
    with policy_scope(policy):
        inputs = keras.Input((4,), dtype="int32")
        x = L.Embedding(100, 12, name="embed")(inputs)
        x = L.MultiHeadAttention(num_heads=2, key_dim=6, name="attention")(x, x)
        seq = L.Dense(16, name="per_token")(x)  # rows are batch x 4
        x = L.LSTM(20, name="lstm")(seq)
        outputs = L.Dense(16, dtype="float32", name="head")(x)
        return keras.Model(inputs, outputs)


def _fits(model: keras.Model, batch: int | None = None) -> dict[str, tuple[str, str]]:
    return {layer.name: (fit.status, fit.note)
            for layer in model.layers
            for fit in [layer_tensor_core_fit(layer, batch)]}


def test_dense_and_conv_under_mixed_float16():
    fits = _fits(_image_model("mixed_float16"), 128)
    assert fits["conv_rgb"] == ("misfit", "input channels 3 → 8, filters 12 → 16")
    assert fits["dense_16"] == ("fits", "")
    assert fits["dense_10"] == ("misfit", "units 10 → 16")
    # no matmul of their own, or float32 on purpose (the softmax and the loss)
    for name in ("input_layer", "flatten", "probabilities"):
        assert fits.get(name, ("n/a", ""))[0] == "n/a", name
    tip = layer_tensor_core_fit(_image_model("mixed_float16").get_layer("conv_rgb"), 128).tip
    assert "multiples of 8" in tip and "first convolution is a small share" in tip


def test_the_batch_is_the_rows_of_a_dense_layer():
    model = _image_model("mixed_float16")
    dense = model.get_layer("dense_16")
    assert layer_tensor_core_fit(dense, 100).note == "batch 100 → 104"
    assert layer_tensor_core_fit(dense, 128).status == "fits"
    assert layer_tensor_core_fit(dense, None).status == "fits"  # not checked
    assert layer_tensor_core_fit(model.get_layer("dense_10"), 100).note == (
        "units 10 → 16, batch 100 → 104")
    # a convolution's rows are batch x pixels: the batch alone is not checked there
    assert "batch" not in layer_tensor_core_fit(model.get_layer("conv_rgb"), 100).note
    assert (batch_fit(100), batch_fit(128), batch_fit(0)) == ("batch 100 → 104", "", "")


def test_embedding_attention_and_lstm_under_mixed_float16():
    model = _sequence_model("mixed_float16")
    fits = _fits(model, 100)
    assert fits["embed"] == ("misfit", "output dim 12 → 16")
    assert fits["attention"] == ("misfit", "key_dim 6 → 8, value_dim 6 → 8")
    assert fits["lstm"] == ("misfit", "units 20 → 24, batch 100 → 104")
    # over a sequence of 4 the rows are 100 x 4 = 400: the batch is no problem there
    assert fits["per_token"] == ("misfit", "input features 12 → 16")
    assert fits["head"] == ("n/a", "")  # the float32 output head
    assert _fits(model, 128)["lstm"] == ("misfit", "units 20 → 24")


def test_layers_that_fit():
    with policy_scope("mixed_float16"):
        inputs = keras.Input((6,), dtype="int32")
        x = L.Embedding(50, 16)(inputs)
        x = L.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
        x = L.LSTM(24)(x)
        x = L.Dense(32)(x)
        model = keras.Model(inputs, x)
    fits = [layer_tensor_core_fit(layer, 128) for layer in model.layers[1:]]
    assert [f.status for f in fits] == ["fits"] * 4
    assert all("all multiples of 8" in f.tip for f in fits)


def test_wrapped_grouped_and_depthwise_layers():
    with policy_scope("mixed_bfloat16"):
        inputs = keras.Input((8, 8, 16))
        x = L.DepthwiseConv2D(3, name="depthwise")(inputs)
        x = L.Conv2D(12, 3, groups=4, name="grouped")(x)
        x = L.Reshape((16, 12))(x)
        x = L.Bidirectional(L.GRU(12, return_sequences=True), name="bigru")(x)
        x = L.TimeDistributed(L.Dense(10), name="per_step")(x)
        model = keras.Model(inputs, x)
    fits = _fits(model, 100)
    assert fits["depthwise"] == ("n/a", "")  # no channel matmul
    assert fits["grouped"] == ("misfit", "input channels per group 4 → 8, "
                                         "filters per group 3 → 8")
    assert fits["bigru"] == ("misfit", "units 12 → 16, input features 12 → 16, "
                                       "batch 100 → 104")
    assert fits["per_step"] == ("misfit", "units 10 → 16")  # rows: batch x steps


@pytest.mark.parametrize("build", [_image_model, _sequence_model])
def test_float32_has_nothing_to_check(build):
    model = build("float32")
    assert {fit[0] for fit in _fits(model, 100).values()} == {"n/a"}
    summary = describe_model(model, "float32", 100)
    assert all(li.tensor_cores == "" and li.tensor_core_tip == "" for li in summary.layers)
    assert "Tensor Cores" not in summary.as_table() and summary.tensor_core_misses == 0


def test_describe_model_fills_the_column_under_a_mixed_policy():
    summary = describe_model(_image_model("mixed_float16"), "mixed_float16", 100)
    cores = {li.name: li.tensor_cores for li in summary.layers}
    assert cores["conv_rgb"] == "no: input channels 3 → 8, filters 12 → 16"
    assert cores["dense_16"] == "no: batch 100 → 104"
    assert cores["dense_10"] == "no: units 10 → 16, batch 100 → 104"
    assert cores["flatten"] == cores["probabilities"] == ""
    assert summary.tensor_core_misses == 3
    table = summary.as_table()
    assert table.splitlines()[0].split()[-2:] == ["Tensor", "Cores"]
    assert "no: units 10 → 16" in table
    plain = describe_model(_image_model("mixed_float16"), "mixed_float16")  # no batch: old call
    assert {li.name: li.tensor_cores for li in plain.layers}["dense_16"] == "yes"


def _summary_with_notes() -> ModelSummary:
    return ModelSummary("m", "mixed_float16", 10, 10, (
        LayerInfo("dense_16", "Dense", "float16", "float32", 8, "yes", "Tensor Cores: units 16"),
        LayerInfo("dense_10", "Dense", "float16", "float32", 5, "no: units 10 → 16",
                  "Tensor Cores run…\n• units 10 → 16: give the layer 16 units"),
        LayerInfo("probabilities", "Activation", "float32", "float32", 0),
    ))


def test_the_notes_travel_through_the_event_codec_and_pickle():
    event = dataclasses.replace(started(), model=_summary_with_notes())
    assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event
    assert pickle.loads(pickle.dumps(event)) == event
    # an event written before the notes existed still decodes, without them
    old = json.loads(json.dumps(event_to_json(event)))
    for layer in old["model"]["layers"]:
        del layer["tensor_cores"], layer["tensor_core_tip"]
    decoded = event_from_json(old)
    assert [li.tensor_cores for li in decoded.model.layers] == ["", "", ""]
    assert decoded.model.layers[0].name == "dense_16"


def test_the_history_keeps_a_run_with_notes(tmp_path):
    """The history stores the model's totals, not its layers: a summary with notes goes
    in and comes back as before."""
    from mpstudio.engine.history.store import RunStore

    with RunStore(tmp_path / "history.sqlite3") as store:
        run_id = store.begin_run(dataclasses.replace(started(), model=_summary_with_notes()))
        assert store.run(run_id).model == {"name": "m", "policy": "mixed_float16", "params": 10,
                                           "trainable_params": 10, "output_dtype": "float32"}


def test_the_layer_table_shows_the_column_only_with_notes(qtbot):
    from mpstudio.engine.hardware.verdict_rules import Verdict
    from mpstudio.ui.setup.layer_table import TENSOR_CORES, LayerTable
    from mpstudio.ui.theme import colors

    misfit = QColor(colors().verdict[Verdict.SLOWER])  # runs, but slower than it could

    table = LayerTable()
    qtbot.addWidget(table)
    mixed = describe_model(_image_model("mixed_float16"), "mixed_float16", 128)
    table.show_summary(mixed, "tiny")
    grid = table.table
    assert not grid.isColumnHidden(TENSOR_CORES)
    assert grid.horizontalHeaderItem(TENSOR_CORES).text() == "Tensor Cores"
    cells = {grid.item(r, 0).text(): grid.item(r, TENSOR_CORES) for r in range(grid.rowCount())}
    assert cells["dense_10"].text() == "no: units 10 → 16"
    assert cells["dense_10"].foreground().color() == misfit
    assert cells["dense_16"].text() == "yes"
    assert cells["dense_16"].foreground().color() != misfit
    assert cells["dense_10"].toolTip() == mixed.layers[4].tensor_core_tip != ""
    assert "2 layers miss Tensor Cores: see the column" in table.caption.text()
    assert table.output_row_highlighted()

    table.show_summary(describe_model(_image_model("float32"), "float32", 128), "tiny")
    assert grid.isColumnHidden(TENSOR_CORES)
    assert "Tensor Cores" not in table.caption.text()
    table.show_summary(mixed, "tiny")
    table.show_note("No preview: the data could not be read.")
    assert grid.isColumnHidden(TENSOR_CORES)


@pytest.mark.slow
def test_the_window_preview_checks_the_batch_and_follows_it(qtbot, window):
    """The preview is built in the engine process with the form's batch; changing the
    batch under a mixed policy builds it again."""
    from mpstudio.ui.setup.layer_table import TENSOR_CORES

    from support.gui_helpers import select

    w, layers = window, window.setup.layers
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    w.setup.batch_size.setValue(100)
    select(w.setup.precision, "mixed_float16")

    def cores() -> dict[str, str]:
        summary = layers.summary
        if summary is None or summary.policy != "mixed_float16":
            return {}
        return {li.name: li.tensor_cores for li in summary.layers}

    qtbot.waitUntil(lambda: cores().get("dense_1024") == "no: batch 100 → 104", timeout=30_000)
    assert not layers.table.isColumnHidden(TENSOR_CORES)
    w.setup.batch_size.setValue(128)
    qtbot.waitUntil(lambda: cores().get("dense_1024") == "yes", timeout=30_000)
    select(w.setup.precision, "float32")
    qtbot.waitUntil(lambda: layers.summary.policy == "float32", timeout=30_000)
    assert layers.table.isColumnHidden(TENSOR_CORES)
