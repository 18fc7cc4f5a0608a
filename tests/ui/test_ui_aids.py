"""The Training aids group of the setup panel and the batch-size learning-rate helper:
every field's round trip (form and panel), which widgets are enabled when, the
underflow view only under mixed_float16, the linear rule's offer, and a spec problem
(a validation monitor without a validation split) said in the form and refused at Run."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QObject, Qt, Signal

from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.service.engine_target import EngineTarget
from mpstudio.engine.spec import MONITORS, RunSpec, TrainingAids
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.ui.engine_client.run_controller import RunController
from mpstudio.ui.models.workbench_state import WorkbenchState
from mpstudio.ui.setup.aids_form import DEFAULT_UNDERFLOW_EVERY, UNDERFLOW_TIP, AidsForm
from mpstudio.ui.setup.setup_panel import LR_HELPER_TIP, SetupPanel

from support.gui_helpers import select

EVERYTHING_CHANGED = TrainingAids(
    monitor="val_accuracy",
    early_stopping=True,
    patience=7,
    restore_best_weights=False,
    reduce_lr_on_plateau=True,
    lr_factor=0.25,
    lr_patience=4,
    min_learning_rate=2.5e-7,
    best_checkpoint=True,
    tensorboard=True,
    oom_retry=False,
    min_batch_size=16,
    diagnose_numerics=True,
    underflow_every=75,
)


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


def test_every_field_differs_from_its_default_in_the_fixture():
    defaults = dataclasses.asdict(TrainingAids())
    for name, value in dataclasses.asdict(EVERYTHING_CHANGED).items():
        assert value != defaults[name], name


def test_the_form_starts_at_the_spec_defaults(form):
    assert form.aids() == TrainingAids()
    assert [form.monitor.itemData(i) for i in range(form.monitor.count())] == list(MONITORS)
    assert form.monitor.itemText(0) == "validation loss"
    assert form.underflow_every.value() == DEFAULT_UNDERFLOW_EVERY  # offered, but off


def test_every_field_round_trips_through_the_form(form):
    form.set_aids(EVERYTHING_CHANGED)
    assert form.aids() == EVERYTHING_CHANGED
    form.set_aids(TrainingAids())
    assert form.aids() == TrainingAids()


def test_every_field_round_trips_through_the_panel(panel):
    spec = RunSpec(batch_size=64, learning_rate=3e-4, aids=EVERYTHING_CHANGED)
    panel.set_spec(spec)
    assert panel.spec().aids == EVERYTHING_CHANGED
    assert (panel.spec().batch_size, panel.spec().learning_rate) == (64, 3e-4)
    assert RunSpec.from_toml(panel.spec().to_toml()).aids == EVERYTHING_CHANGED


def test_set_aids_emits_changed_once(form, qtbot):
    seen = []
    form.changed.connect(lambda: seen.append(1))
    form.set_aids(EVERYTHING_CHANGED)
    assert seen == [1]


def test_a_change_in_the_form_changes_the_panel(panel, qtbot):
    with qtbot.waitSignal(panel.changed, timeout=1000):
        panel.aids.tensorboard.setChecked(True)
    assert panel.spec().aids.tensorboard is True


def test_the_numbers_of_an_option_follow_its_check_box(form):
    form.set_aids(TrainingAids())
    assert not form.patience.isEnabled() and not form.restore_best.isEnabled()
    assert not form.lr_factor.isEnabled() and not form.lr_patience.isEnabled()
    assert not form.min_lr.isEnabled()
    assert form.min_batch.isEnabled()  # the retry is on by default
    assert not form.underflow_every.isEnabled()

    form.early_stopping.setChecked(True)
    assert form.patience.isEnabled() and form.restore_best.isEnabled()
    form.plateau.setChecked(True)
    assert form.lr_factor.isEnabled() and form.lr_patience.isEnabled()
    assert form.min_lr.isEnabled()
    form.oom_retry.setChecked(False)
    assert not form.min_batch.isEnabled()
    form.underflow.setChecked(True)
    assert form.underflow_every.isEnabled()
    assert form.aids().underflow_every == DEFAULT_UNDERFLOW_EVERY


@pytest.mark.parametrize("option", ["early_stopping", "plateau", "best_checkpoint"])
def test_the_monitor_is_enabled_by_any_option_that_watches_it(form, option):
    form.set_aids(TrainingAids())
    assert not form.monitor.isEnabled()
    assert "turn one of them on" in form.monitor.toolTip()
    getattr(form, option).setChecked(True)
    assert form.monitor.isEnabled()
    getattr(form, option).setChecked(False)
    assert not form.monitor.isEnabled()


@pytest.mark.parametrize("precision, why", [
    ("float32", "float32 gradients do not underflow"),
    ("mixed_bfloat16", "bfloat16 keeps float32's exponent range"),
])
def test_the_underflow_view_is_for_float16_only(form, precision, why):
    form.set_aids(TrainingAids(underflow_every=20))
    assert form.underflow.isEnabled() and form.aids().underflow_every == 20
    assert "2% at N=50" in form.underflow.toolTip() == UNDERFLOW_TIP

    form.set_precision(precision)
    assert not form.underflow.isEnabled() and not form.underflow_every.isEnabled()
    assert why in form.underflow.toolTip() and why in form.underflow_every.toolTip()
    assert form.aids().underflow_every == 0  # the run does not sample it

    form.set_precision("mixed_float16")  # the choice was remembered
    assert form.underflow.isEnabled() and form.aids().underflow_every == 20


def test_the_panel_tells_the_form_its_precision(panel):
    panel.set_spec(RunSpec(precision="mixed_float16", aids=TrainingAids(underflow_every=50)))
    assert panel.aids.underflow.isEnabled()
    select(panel.precision, "float32")
    assert not panel.aids.underflow.isEnabled()
    assert panel.spec().aids.underflow_every == 0
    assert panel.spec().warnings() == []  # no "not sampled" warning for a disabled box
    select(panel.precision, "mixed_bfloat16")
    assert "bfloat16" in panel.aids.underflow.toolTip()
    select(panel.precision, "mixed_float16")
    assert panel.spec().aids.underflow_every == 50


def test_the_minimum_learning_rate_is_typed_and_stepped_in_powers_of_ten(form, qtbot):
    form.plateau.setChecked(True)
    assert form.min_lr.text() == "1e-06"
    form.min_lr.lineEdit().selectAll()
    qtbot.keyClicks(form.min_lr, "3e-7")
    form.min_lr.interpretText()
    assert form.aids().min_learning_rate == pytest.approx(3e-7)
    form.min_lr.lineEdit().selectAll()
    qtbot.keyClicks(form.min_lr, "5")  # above the maximum of 1: not taken
    qtbot.keyClick(form.min_lr, Qt.Key.Key_Return)
    form.min_lr.clearFocus()
    assert form.min_lr.value() == pytest.approx(3e-7)
    form.min_lr.stepBy(1)
    assert form.min_lr.value() == pytest.approx(3e-6)
    form.min_lr.stepBy(-2)
    assert form.min_lr.value() == pytest.approx(3e-8)


# ------------------------------------------------ the batch-size learning-rate helper
def test_scaled_learning_rate_is_the_linear_rule():
    assert scaled_learning_rate(1e-3, 128, 256) == pytest.approx(2e-3)
    assert scaled_learning_rate(0.1, 256, 32) == pytest.approx(0.0125)
    assert scaled_learning_rate(0.01, 64, 64) == 0.01
    with pytest.raises(ValueError):
        scaled_learning_rate(0.01, 0, 64)


def test_no_offer_until_the_batch_changes(panel):
    panel.set_spec(RunSpec(batch_size=128, learning_rate=1e-3))
    assert panel.scaled_rate_offer() is None
    assert panel.lr_helper.isHidden()


def test_a_new_batch_offers_lr_times_the_batch_ratio_and_applies_it(panel, qtbot):
    panel.set_spec(RunSpec(batch_size=128, learning_rate=1e-3))
    panel.batch_size.setValue(256)
    assert panel.scaled_rate_offer() == pytest.approx(1e-3 * 256 / 128)
    assert not panel.lr_helper.isHidden()
    assert panel.lr_helper.text() == "Use 0.002 for batch 256 (linear rule)"
    assert LR_HELPER_TIP in panel.lr_helper.toolTip()
    assert "Goyal et al. 2017" in panel.lr_helper.toolTip()

    qtbot.mouseClick(panel.lr_helper, Qt.MouseButton.LeftButton)
    assert panel.learning_rate.value() == pytest.approx(0.002)
    assert panel.spec().learning_rate == pytest.approx(0.002)
    assert panel.lr_helper.isHidden()

    panel.batch_size.setValue(64)  # B0 is now 256: a quarter of the batch
    assert panel.scaled_rate_offer() == pytest.approx(0.002 * 64 / 256)
    assert panel.lr_helper.text() == "Use 0.0005 for batch 64 (linear rule)"
    panel.batch_size.setValue(256)  # back where the rate was set
    assert panel.lr_helper.isHidden()


def test_the_offer_is_from_the_batch_the_rate_was_last_set_at(panel):
    panel.set_spec(RunSpec(batch_size=100, learning_rate=0.01))
    panel.batch_size.setValue(150)
    panel.batch_size.setValue(200)  # typed in steps: still from 100
    assert panel.scaled_rate_offer() == pytest.approx(0.02)
    panel.learning_rate.setValue(0.05)  # the user sets a rate at batch 200
    assert panel.lr_helper.isHidden()
    panel.batch_size.setValue(400)
    assert panel.scaled_rate_offer() == pytest.approx(0.1)


def test_a_large_factor_suggests_a_warmup(panel):
    panel.set_spec(RunSpec(batch_size=32, learning_rate=1e-3))
    panel.batch_size.setValue(512)
    assert "warmup" in panel.lr_helper.toolTip().split("(linear rule)")[-1].lower()
    assert "×16" in panel.lr_helper.toolTip()


def test_no_offer_outside_the_learning_rate_field(panel):
    panel.set_spec(RunSpec(batch_size=128, learning_rate=8.0))
    panel.batch_size.setValue(1024)  # 64 is above the field's maximum of 10
    assert panel.scaled_rate_offer() is None and panel.lr_helper.isHidden()


# ---------------------------------------------------------------- spec problems
class _IdleEngine(QObject):
    job_finished = Signal(object, object)
    job_failed = Signal(object, str)
    target = EngineTarget()  # this computer's: the spec's files are checked here

    def submit(self, job):  # pragma: no cover - a spec with problems is never submitted
        raise AssertionError("a spec with problems was submitted")


def test_a_validation_monitor_without_a_split_is_said_and_refused(panel, qtbot):
    spec = RunSpec(validation_split=0.0, aids=TrainingAids(monitor="val_loss"))
    panel.set_spec(spec)
    assert panel.aids.monitor_note.isHidden()  # nothing watches the monitor yet
    panel.aids.early_stopping.setChecked(True)
    assert not panel.aids.monitor_note.isHidden()
    assert "validation split is 0" in panel.aids.monitor_note.text()

    controller = RunController(_IdleEngine(), WorkbenchState())  # what Run calls
    problems = controller.start(panel.spec())
    assert any("monitor 'val_loss' needs validation data" in p for p in problems)
    assert not controller.active

    select(panel.aids.monitor, "loss")
    assert panel.aids.monitor_note.isHidden()
    assert not [p for p in spec_problems(panel.spec()) if "monitor" in p]
