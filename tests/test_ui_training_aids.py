"""The setup panel's Training aids group and the batch-size learning-rate helper."""

from __future__ import annotations

import pytest
from gui_helpers import select
from PySide6.QtCore import Qt

from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.spec import RunSpec, TrainingAids
from mpstudio.ui.aids_form import AidsForm
from mpstudio.ui.setup_panel import SetupPanel

EVERYTHING_ON = TrainingAids(
    monitor="val_accuracy", early_stopping=True, patience=5, restore_best_weights=False,
    reduce_lr_on_plateau=True, lr_factor=0.25, lr_patience=4, min_learning_rate=1e-7,
    best_checkpoint=True, tensorboard=True, oom_retry=False, min_batch_size=16,
    diagnose_numerics=True, underflow_every=25)


@pytest.fixture
def form(qtbot):
    form = AidsForm()
    qtbot.addWidget(form)
    return form


@pytest.fixture
def panel(qtbot):
    panel = SetupPanel()
    qtbot.addWidget(panel)
    return panel


def test_every_aid_round_trips_through_the_form_and_the_panel(form, panel):
    assert form.aids() == TrainingAids()  # the defaults: only the OOM retry is on
    form.set_aids(EVERYTHING_ON)
    assert form.aids() == EVERYTHING_ON
    spec = RunSpec(precision="mixed_float16", aids=EVERYTHING_ON)
    panel.set_spec(spec)
    assert panel.spec().aids == EVERYTHING_ON
    assert RunSpec.from_toml(panel.spec().to_toml()).aids == EVERYTHING_ON


def test_dependent_settings_follow_their_check_box(form):
    assert not form.monitor.isEnabled() and not form.patience.isEnabled()
    assert not form.lr_factor.isEnabled() and form.min_batch.isEnabled()
    form.early_stopping.click()
    assert form.early_stopping.isChecked()
    assert form.monitor.isEnabled() and form.patience.isEnabled()
    assert form.restore_best.isEnabled()
    form.plateau.setChecked(True)
    assert form.lr_factor.isEnabled() and form.min_lr.isEnabled()
    form.oom_retry.setChecked(False)
    assert not form.min_batch.isEnabled() and form.aids().oom_retry is False
    form.early_stopping.setChecked(False)
    form.plateau.setChecked(False)
    assert not form.monitor.isEnabled()
    form.best_checkpoint.setChecked(True)
    assert form.monitor.isEnabled()  # the checkpoint watches it too


def test_the_underflow_view_is_offered_for_float16_runs_only(panel):
    aids = panel.aids
    aids.set_aids(TrainingAids(underflow_every=40))
    for precision, reason in (("float32", "float32 gradients do not underflow"),
                              ("mixed_bfloat16", "bfloat16 keeps float32's exponent range")):
        select(panel.precision, precision)
        assert not aids.underflow.isEnabled() and reason in aids.underflow.toolTip()
        assert panel.spec().aids.underflow_every == 0
    select(panel.precision, "mixed_float16")
    assert aids.underflow.isEnabled() and aids.underflow.isChecked()
    assert panel.spec().aids.underflow_every == 40  # remembered across the switch
    assert "1/N more compute" in aids.underflow.toolTip() or "%" in aids.underflow.toolTip()


def test_a_validation_monitor_without_validation_data_is_explained(panel):
    panel.set_spec(RunSpec(validation_split=0, aids=TrainingAids(early_stopping=True)))
    assert not panel.aids.monitor_note.isHidden()
    assert "needs validation data" in panel.aids.monitor_note.text()
    assert any("needs validation data" in p for p in panel.spec().problems())
    select(panel.aids.monitor, "loss")
    assert panel.aids.monitor_note.isHidden() and panel.spec().problems() == []


def test_doubling_the_batch_offers_the_linearly_scaled_rate(panel, qtbot):
    panel.set_spec(RunSpec(batch_size=128, learning_rate=0.001))
    assert panel.lr_helper.isHidden()
    panel.batch_size.setValue(256)
    assert not panel.lr_helper.isHidden()
    assert panel.lr_helper.text() == "Use 0.002 for batch 256 (linear rule)"
    assert "linear scaling rule" in panel.lr_helper.toolTip()
    qtbot.mouseClick(panel.lr_helper, Qt.MouseButton.LeftButton)
    assert panel.learning_rate.value() == pytest.approx(0.002)
    assert panel.spec().learning_rate == pytest.approx(0.002)
    assert panel.lr_helper.isHidden()  # the rate is now set for batch 256
    panel.batch_size.setValue(64)
    assert panel.lr_helper.text() == "Use 0.0005 for batch 64 (linear rule)"
    panel.batch_size.setValue(256)  # back where the rate was set: nothing to offer
    assert panel.lr_helper.isHidden()
    panel.batch_size.setValue(2048)  # x8 without a warmup: the tip suggests one
    assert "warmup" in panel.lr_helper.toolTip()
    assert scaled_learning_rate(0.001, 128, 256) == pytest.approx(0.002)
    with pytest.raises(ValueError):
        scaled_learning_rate(0.001, 0, 256)


def test_the_training_aids_group_reads_well(panel, tmp_path):
    """Screenshot of the group with everything on (looked at by hand when it changes)."""
    panel.set_spec(RunSpec(aids=EVERYTHING_ON))
    panel.resize(380, 1500)
    panel.show()
    group = panel.aids.parentWidget()
    assert group.title() == "Training aids"
    assert panel.aids.sizeHint().width() <= 380
    assert group.grab().save(str(tmp_path / "aids.png"))
