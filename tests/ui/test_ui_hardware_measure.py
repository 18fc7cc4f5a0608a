"""The Hardware tab's Measure times the setup's own model on this machine (issue 43): the
verdicts there and the setup's payoff line then say what was measured, until the setup's
model, batch or data changes; a .keras model no dataset fits is shown, predicted and
measured on its own input."""

from __future__ import annotations

import pytest

from support.crafted_model_files import small_classifier
from support.gui_helpers import RUN_TIMEOUT_MS

HALVES = ("mixed_float16", "mixed_bfloat16")


def _measure(qtbot, window) -> None:
    """Measure as a user clicks it, the shortest timing the panel offers a case."""
    window.hardware.seconds_spin.setValue(0.05)  # the model: 0.2 s a precision
    with qtbot.waitSignal(window.hardware_jobs.checked, timeout=RUN_TIMEOUT_MS):
        window.hardware.measure_button.click()
    qtbot.waitUntil(lambda: not window.hardware_jobs.measuring, timeout=10_000)


def _cpu_card(window):
    return next(card for card in window.hardware.device_cards() if card.device == "CPU")


def test_measure_times_the_setups_model_and_the_verdicts_say_so(qtbot, window):
    w = window
    _measure(qtbot, w)
    timed = w.hardware_jobs.check.model_measurement
    assert timed is not None and timed.device == "CPU" and timed.template == "mlp"
    assert all(p.ok and p.examples_per_s > 0 for p in timed.precisions)
    card = _cpu_card(w)
    for policy in HALVES:
        assert card.reason_labels[policy].text().startswith(
            f"measured for mlp at batch {timed.batch_size}: {timed.speedup(policy):.2f}x")
        assert card.ratio_labels[policy].text() == f"{timed.speedup(policy):.2f}x"
    assert "Your model timed here: mlp at batch" in card.model_label.text()
    assert [row[0].text() for row in card.model_labels[1:]] == [
        "float32", *HALVES]
    assert "use your model as measured here" in w.hardware.view.measurement_label.text()
    payoff = w.setup.layers.payoff
    qtbot.waitUntil(lambda: payoff.isVisible() and payoff.text().startswith("Measured: "),
                    timeout=30_000)
    assert " measured on CPU" in payoff.text()
    # another batch: the measurement says nothing about it any more
    w.setup.batch_size.setValue(timed.batch_size // 2)
    assert w.hardware_jobs.check.model_measurement is None
    card = _cpu_card(w)
    assert card.model_label is None
    assert not any("measured for" in card.reason_labels[p].text() for p in HALVES)
    qtbot.waitUntil(lambda: payoff.text().startswith("Predicted: "), timeout=30_000)
    assert any("no longer applies" in line for line in w.log.lines())


@pytest.fixture
def model_file(tmp_path):
    return str(small_classifier(tmp_path / "m.keras"))


def test_a_keras_model_no_data_fits_is_shown_on_its_own_input(qtbot, window, model_file):
    """digits (8x8x1, 10 classes) do not fit a 16x16x3 five-class model: the layer table,
    its payoff line and the Hardware tab take the file's own input, and say so."""
    w = window
    w.setup.template_picker.select(model_file)
    layers = w.setup.layers
    qtbot.waitUntil(lambda: layers.summary is not None and "for its own input" in
                    layers.payoff.text(), timeout=60_000)
    assert "Shown for its own input: model file" in layers.caption.text()
    assert "(for its own input 16x16x3, 5 classes)" in layers.payoff.text()
    _measure(qtbot, w)
    timed = w.hardware_jobs.check.model_measurement
    assert timed.own_inputs and timed.input_shape == (16, 16, 3) and timed.classes == 5
    reason = _cpu_card(w).reason_labels["mixed_float16"].text()
    assert reason.startswith("measured for m.keras (for its own input 16x16x3, 5 classes)")
    assert w.hardware_jobs.check.predictions[0].prediction.inputs == \
        "for its own input 16x16x3, 5 classes"
