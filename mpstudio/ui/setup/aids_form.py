"""Training aids: what practitioners add to a run by hand. Early stopping and the
learning-rate plateau (both watching one monitored metric), the best epoch's weights
for export, TensorBoard logs, the out-of-memory retry at half the batch, the NaN/inf
diagnosis and the gradient-underflow view (mixed_float16 only).

Each option is a check box; the numbers that belong to it sit indented under it and
are disabled while it is off.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.spec import MONITORS, TrainingAids
from mpstudio.ui.themed import set_role
from mpstudio.ui.widgets.panel_labels import spin_box

# Shown translated (context "AidsForm"); the monitor keys stay English.
MONITOR_TEXT = {
    "val_loss": QT_TRANSLATE_NOOP("AidsForm", "validation loss"),
    "val_accuracy": QT_TRANSLATE_NOOP("AidsForm", "validation accuracy"),
    "loss": QT_TRANSLATE_NOOP("AidsForm", "training loss"),
    "accuracy": QT_TRANSLATE_NOOP("AidsForm", "training accuracy"),
}
MONITOR_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "The metric early stopping, the plateau and the best-epoch checkpoint watch; "
    "a validation metric needs a validation split")
MONITOR_OFF_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "Watched by early stopping, the plateau and the best-epoch checkpoint: "
    "turn one of them on")
EARLY_STOPPING_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "Stop the run when the monitored metric has not improved for Patience "
    "epochs in a row (Keras EarlyStopping)")
RESTORE_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "When early stopping stops the run, go back to the weights of the best epoch "
    "instead of keeping the last one")
PLATEAU_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "Multiply the learning rate by Factor when the monitored metric has not improved "
    "for Patience epochs, never below the minimum (Keras ReduceLROnPlateau)")
CHECKPOINT_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "The run keeps the weights (as float32) of the epoch with the best monitored "
    "metric, and exports those rather than the last epoch's")
TENSORBOARD_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "Writes TensorBoard scalars (loss, accuracy, learning rate, loss scale) into "
    "the run's folder; \"Open in TensorBoard\" in the Run menu shows them")
OOM_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "When a step runs out of device memory, the run starts again at half the batch "
    "(the learning rate scaled by the same factor, the linear rule), and halves again "
    "if need be, down to this batch size")
DIAGNOSE_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "On a NaN or inf loss, re-run that step with a check after every layer and name "
    "the first layer whose output or gradient is not finite. Costs nothing until a "
    "loss goes bad")
UNDERFLOW_TIP = QT_TRANSLATE_NOOP(
    "AidsForm",
    "Samples how many gradients flush to zero in float16, with and without the loss "
    "scale. Cost: one extra forward+backward pass on a fixed batch every N steps "
    "(about 1/N more compute, e.g. 2% at N=50) plus a device sync; "
    "mixed_float16 only")
UNDERFLOW_WHY_NOT = {
    "float32": QT_TRANSLATE_NOOP(
        "AidsForm", "Only for mixed_float16: float32 gradients do not underflow"),
    "mixed_bfloat16": QT_TRANSLATE_NOOP(
        "AidsForm", "Only for mixed_float16: bfloat16 keeps float32's exponent range, so "
        "small gradients do not underflow"),
    "float8": QT_TRANSLATE_NOOP(
        "AidsForm", "Only for mixed_float16: float8 layers scale their own gradients and "
        "bfloat16 keeps float32's exponent range"),
}
DEFAULT_UNDERFLOW_EVERY = 50
MAX_PATIENCE = 10_000
MAX_BATCH = 65536
MAX_EVERY = 1_000_000
INDENT = 18  # the numbers of an option sit under its check box


def tr(text: str) -> str:
    """An AidsForm string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("AidsForm", text)


class ScientificSpinBox(QDoubleSpinBox):
    """A small positive number (a learning rate) shown as ``1e-06``, typed in any float
    notation; the arrows multiply or divide it by 10."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDecimals(15)  # QDoubleSpinBox rounds to this many decimals

    def textFromValue(self, value: float) -> str:
        return f"{value:g}"

    def valueFromText(self, text: str) -> float:
        try:
            return float(text.strip())
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        stripped = text.strip()
        try:
            value = float(stripped)
        except ValueError:
            partial = stripped == "" or stripped[-1] in "eE+-." or stripped.lower() == "e"
            state = QValidator.State.Intermediate if partial else QValidator.State.Invalid
            return state, text, pos
        if not math.isfinite(value):
            return QValidator.State.Invalid, text, pos
        if not self.minimum() <= value <= self.maximum():  # "3" on the way to "3e-7"
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Acceptable, text, pos

    def stepBy(self, steps: int) -> None:
        value = self.value() or 1e-9  # from 0, the first step up is 1e-8
        self.setValue(value * 10.0**steps)


def _check(name: str, text: str, tip: str) -> QCheckBox:
    """A check box; ``text`` is shown as it is (translated by the caller), ``tip`` is a
    constant marked with QT_TRANSLATE_NOOP."""
    box = QCheckBox(text)
    box.setObjectName(name)
    box.setToolTip(tr(tip))
    return box


def _indented(*rows: tuple[str, QWidget] | QWidget) -> tuple[QWidget, QFormLayout]:
    holder = QWidget()
    form = QFormLayout(holder)
    form.setContentsMargins(INDENT, 0, 0, 0)
    for row in rows:
        if isinstance(row, tuple):
            form.addRow(*row)
        else:
            form.addRow(row)
    return holder, form


class AidsForm(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.monitor = QComboBox()
        self.monitor.setObjectName("monitor")
        for key in MONITORS:
            self.monitor.addItem(tr(MONITOR_TEXT[key]) if key in MONITOR_TEXT else key, key)
        epochs = QCoreApplication.translate("AidsForm", " epochs")
        self.early_stopping = _check(
            "earlyStopping", QCoreApplication.translate("AidsForm", "Early stopping"),
            EARLY_STOPPING_TIP)
        self.patience = spin_box("patience", 1, MAX_PATIENCE, tr(EARLY_STOPPING_TIP),
                                 suffix=epochs)
        self.restore_best = _check(
            "restoreBestWeights", QCoreApplication.translate("AidsForm", "Restore best weights"),
            RESTORE_TIP)
        self.plateau = _check(
            "reduceLrOnPlateau",
            QCoreApplication.translate("AidsForm", "Reduce learning rate on plateau"),
            PLATEAU_TIP)
        self.lr_factor = QDoubleSpinBox()
        self.lr_factor.setObjectName("lrFactor")
        self.lr_factor.setDecimals(2)
        self.lr_factor.setRange(0.01, 0.99)
        self.lr_factor.setSingleStep(0.05)
        self.lr_factor.setPrefix("× ")
        self.lr_factor.setToolTip(QCoreApplication.translate(
            "AidsForm", "The learning rate is multiplied by this on a plateau (0.5 halves it)"))
        self.lr_patience = spin_box("lrPatience", 1, MAX_PATIENCE, tr(PLATEAU_TIP),
                                    suffix=epochs)
        self.min_lr = ScientificSpinBox()
        self.min_lr.setObjectName("minLearningRate")
        self.min_lr.setRange(0.0, 1.0)
        self.min_lr.setToolTip(QCoreApplication.translate(
            "AidsForm", "The plateau never lowers the learning rate below this "
            "(type e.g. 1e-6; the arrows step by a factor of 10)"))
        self.best_checkpoint = _check(
            "bestCheckpoint",
            QCoreApplication.translate("AidsForm", "Keep the best epoch's weights (for export)"),
            CHECKPOINT_TIP)
        self.tensorboard = _check(
            "tensorboard", QCoreApplication.translate("AidsForm", "Write TensorBoard logs"),
            TENSORBOARD_TIP)
        self.oom_retry = _check(
            "oomRetry",
            QCoreApplication.translate("AidsForm", "Retry with half the batch when out of memory"),
            OOM_TIP)
        self.min_batch = spin_box("minBatchSize", 1, MAX_BATCH, tr(OOM_TIP))
        self.diagnose = _check(
            "diagnoseNumerics",
            QCoreApplication.translate("AidsForm",
                                       "Diagnose a NaN/inf loss (name the first bad layer)"),
            DIAGNOSE_TIP)
        self.underflow = _check(
            "underflowView", QCoreApplication.translate("AidsForm", "Gradient-underflow view"),
            UNDERFLOW_TIP)
        self.underflow_every = spin_box("underflowEvery", 1, MAX_EVERY, tr(UNDERFLOW_TIP),
                                        suffix=QCoreApplication.translate("AidsForm", " steps"))
        self.underflow_every.setPrefix(QCoreApplication.translate("AidsForm", "every "))
        self.underflow_every.setGroupSeparatorShown(True)
        self.monitor_note = QLabel()
        self.monitor_note.setObjectName("monitorNote")
        self.monitor_note.setWordWrap(True)
        set_role(self.monitor_note, "hint")
        self.monitor_note.hide()

        top = QFormLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addRow(QCoreApplication.translate("AidsForm", "Monitor"), self.monitor)
        patience = QCoreApplication.translate("AidsForm", "Patience")
        self._early_rows, _ = _indented((patience, self.patience), self.restore_best)
        self._plateau_rows, _ = _indented(
            (QCoreApplication.translate("AidsForm", "Factor"), self.lr_factor),
            (patience, self.lr_patience),
            (QCoreApplication.translate("AidsForm", "Minimum rate"), self.min_lr))
        self._oom_rows, _ = _indented(
            (QCoreApplication.translate("AidsForm", "Down to batch"), self.min_batch))
        underflow = QHBoxLayout()
        underflow.setContentsMargins(0, 0, 0, 0)
        underflow.addWidget(self.underflow)
        underflow.addWidget(self.underflow_every, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.monitor_note)
        layout.addWidget(self.early_stopping)
        layout.addWidget(self._early_rows)
        layout.addWidget(self.plateau)
        layout.addWidget(self._plateau_rows)
        layout.addWidget(self.best_checkpoint)
        layout.addWidget(self.tensorboard)
        layout.addWidget(self.oom_retry)
        layout.addWidget(self._oom_rows)
        layout.addWidget(self.diagnose)
        layout.addLayout(underflow)

        self._precision = "mixed_float16"
        self._validation_split = 0.2
        self._updating = False
        self.set_aids(TrainingAids())
        for box in (self.early_stopping, self.restore_best, self.plateau, self.best_checkpoint,
                    self.tensorboard, self.oom_retry, self.diagnose, self.underflow):
            box.toggled.connect(lambda *_: self._update())
        for spin in (self.patience, self.lr_factor, self.lr_patience, self.min_lr,
                     self.min_batch, self.underflow_every):
            spin.valueChanged.connect(lambda *_: self._update())
        self.monitor.currentIndexChanged.connect(lambda *_: self._update())

    # ------------------------------------------------------------ the spec
    def aids(self) -> TrainingAids:
        """What the run uses. The underflow view is 0 (off) unless the precision is
        mixed_float16, whatever the box says (it remembers for when it is again)."""
        every = self.underflow_every.value() if self._underflow_active() else 0
        return TrainingAids(
            monitor=str(self.monitor.currentData()),
            early_stopping=self.early_stopping.isChecked(),
            patience=self.patience.value(),
            restore_best_weights=self.restore_best.isChecked(),
            reduce_lr_on_plateau=self.plateau.isChecked(),
            lr_factor=self.lr_factor.value(),
            lr_patience=self.lr_patience.value(),
            min_learning_rate=self.min_lr.value(),
            best_checkpoint=self.best_checkpoint.isChecked(),
            tensorboard=self.tensorboard.isChecked(),
            oom_retry=self.oom_retry.isChecked(),
            min_batch_size=self.min_batch.value(),
            diagnose_numerics=self.diagnose.isChecked(),
            underflow_every=every,
        )

    def set_aids(self, aids: TrainingAids) -> None:
        """Fill the form from a spec's aids (``changed`` is emitted once, at the end)."""
        self._updating = True
        try:
            index = self.monitor.findData(aids.monitor)
            self.monitor.setCurrentIndex(max(0, index))
            self.early_stopping.setChecked(bool(aids.early_stopping))
            self.patience.setValue(int(aids.patience))
            self.restore_best.setChecked(bool(aids.restore_best_weights))
            self.plateau.setChecked(bool(aids.reduce_lr_on_plateau))
            self.lr_factor.setValue(float(aids.lr_factor))
            self.lr_patience.setValue(int(aids.lr_patience))
            self.min_lr.setValue(float(aids.min_learning_rate))
            self.best_checkpoint.setChecked(bool(aids.best_checkpoint))
            self.tensorboard.setChecked(bool(aids.tensorboard))
            self.oom_retry.setChecked(bool(aids.oom_retry))
            self.min_batch.setValue(int(aids.min_batch_size))
            self.diagnose.setChecked(bool(aids.diagnose_numerics))
            every = int(aids.underflow_every)
            self.underflow.setChecked(every > 0)
            self.underflow_every.setValue(every if every > 0 else DEFAULT_UNDERFLOW_EVERY)
        finally:
            self._updating = False
        self._update()

    def set_precision(self, precision: str) -> None:
        """The underflow view is for mixed_float16 runs only."""
        self._precision = precision
        self._update()

    def set_validation_split(self, split: float) -> None:
        """A validation metric needs a validation split: the form says so when it is 0."""
        self._validation_split = split
        self._update()

    # ------------------------------------------------------------ internals
    def _underflow_active(self) -> bool:
        return self._precision == "mixed_float16" and self.underflow.isChecked()

    def _update(self) -> None:
        if self._updating:
            return
        early = self.early_stopping.isChecked()
        watching = early or self.plateau.isChecked() or self.best_checkpoint.isChecked()
        self.monitor.setEnabled(watching)
        self.monitor.setToolTip(tr(MONITOR_TIP if watching else MONITOR_OFF_TIP))
        self.patience.setEnabled(early)
        self.restore_best.setEnabled(early)
        self._plateau_rows.setEnabled(self.plateau.isChecked())
        self._oom_rows.setEnabled(self.oom_retry.isChecked())
        why = tr(UNDERFLOW_WHY_NOT[self._precision]) if self._precision in UNDERFLOW_WHY_NOT \
            else ""
        if self._precision != "mixed_float16" and not why:
            why = QCoreApplication.translate(
                "AidsForm", "Only for mixed_float16 (the precision is {precision})").format(
                precision=self._precision)
        self.underflow.setEnabled(not why)
        self.underflow.setToolTip(why or tr(UNDERFLOW_TIP))
        self.underflow_every.setEnabled(self._underflow_active())
        self.underflow_every.setToolTip(why or tr(UNDERFLOW_TIP))
        monitor = str(self.monitor.currentData())
        needs_split = watching and monitor.startswith("val_") and self._validation_split == 0
        shown = tr(MONITOR_TEXT[monitor]) if monitor in MONITOR_TEXT else monitor
        self.monitor_note.setText(QCoreApplication.translate(
            "AidsForm", "The {monitor} needs validation data, and this run's validation split "
            "is 0: monitor the training loss instead").format(monitor=shown)
            if needs_split else "")
        self.monitor_note.setVisible(needs_split)
        self.changed.emit()
