"""Loss scaling: dynamic (initial scale, growth steps), fixed (a factor) or off.

Only float16 needs it; under float32 and bfloat16 the form is disabled and says
why, and the run gets no scaling whatever the form holds. Dynamic scaling's two
numbers are rarely changed (Keras' defaults suit nearly every run): they fold away
under "Scale numbers", and the window remembers the fold open.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.spec import FLOAT32_MAX, LossScaling
from mpstudio.ui.themed import set_role
from mpstudio.ui.widgets.folding_group import FoldingGroup

# Shown translated (context "LossScalingForm"); the keys stay English.
MODES = (  # the explanation under the form says what each does
    ("dynamic", QT_TRANSLATE_NOOP("LossScalingForm", "dynamic")),
    ("fixed", QT_TRANSLATE_NOOP("LossScalingForm", "fixed factor")),
    ("off", QT_TRANSLATE_NOOP("LossScalingForm", "off")),
)
WHY_NOT = {
    "float32": QT_TRANSLATE_NOOP("LossScalingForm",
        "Not used under float32: float32 gradients do not underflow."),
    "mixed_bfloat16": QT_TRANSLATE_NOOP("LossScalingForm",
        "Not needed under mixed_bfloat16: bfloat16 keeps float32's exponent range, "
        "so small gradients do not underflow."),
    "float8": QT_TRANSLATE_NOOP("LossScalingForm",
        "Not needed under float8: its layers keep their own per-tensor scales, and the "
        "rest computes in bfloat16, which keeps float32's exponent range."),
}
WHY_FLOAT16 = {
    "dynamic": QT_TRANSLATE_NOOP("LossScalingForm",
        "Scales the loss up so small float16 gradients survive; an overflowing step "
        "is skipped and the scale halved."),
    "fixed": QT_TRANSLATE_NOOP("LossScalingForm",
        "A constant scale: no overflow detection, so a step that overflows diverges."),
    "off": QT_TRANSLATE_NOOP("LossScalingForm",
        "No scaling: small float16 gradients can underflow to zero and training may stall."),
}


def _tr(text: str) -> str:
    """A LossScalingForm string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("LossScalingForm", text)


def _scale_box(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setDecimals(0)
    box.setRange(1.0, 2.0**64)  # float32 can hold more, but nobody scales a loss by 2^64
    box.setValue(value)
    box.setStepType(QDoubleSpinBox.StepType.AdaptiveDecimalStepType)
    return box


class LossScalingForm(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        defaults = LossScaling()
        self.mode = QComboBox()
        self.mode.setObjectName("lossScalingMode")
        for key, text in MODES:
            self.mode.addItem(_tr(text), key)
        self.initial_scale = _scale_box(defaults.initial_scale)
        self.initial_scale.setObjectName("initialScale")
        self.initial_scale.setToolTip(QCoreApplication.translate(
            "LossScalingForm", "The first loss scale; 32768 (2^15) is Keras' default."))
        self.growth_steps = QSpinBox()
        self.growth_steps.setObjectName("growthSteps")
        self.growth_steps.setRange(1, 1_000_000)
        self.growth_steps.setValue(defaults.growth_steps)
        self.growth_steps.setToolTip(QCoreApplication.translate(
            "LossScalingForm", "Finite steps in a row before the scale doubles."))
        self.factor = _scale_box(defaults.factor)
        self.factor.setObjectName("fixedFactor")
        self.explanation = QLabel()
        self.explanation.setObjectName("lossScalingExplanation")
        self.explanation.setWordWrap(True)
        set_role(self.explanation, "hint")

        numbers = QWidget()
        numbers_form = QFormLayout(numbers)
        numbers_form.setContentsMargins(0, 0, 0, 0)
        numbers_form.addRow(QCoreApplication.translate("LossScalingForm", "Initial scale"),
                             self.initial_scale)
        numbers_form.addRow(QCoreApplication.translate("LossScalingForm", "Growth steps"),
                             self.growth_steps)
        self.numbers = FoldingGroup(
            QCoreApplication.translate("LossScalingForm", "Scale numbers"), numbers)
        self.numbers.setObjectName("lossScaleNumbers")
        self.form = QFormLayout()
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow(QCoreApplication.translate("LossScalingForm", "Mode"), self.mode)
        self.form.addRow(self.numbers)
        self.form.addRow(QCoreApplication.translate("LossScalingForm", "Factor"), self.factor)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.form)
        layout.addWidget(self.explanation)
        self._precision = "mixed_float16"
        self.mode.currentIndexChanged.connect(self._update)
        for box in (self.initial_scale, self.growth_steps, self.factor):
            box.valueChanged.connect(lambda _v: self.changed.emit())
        self._update()

    def set_precision(self, precision: str) -> None:
        self._precision = precision
        self._update()

    def loss_scaling(self) -> LossScaling:
        """What the run uses: the form under float16, Keras' automatic choice otherwise."""
        if self._precision != "mixed_float16":
            return LossScaling()  # auto: off under float32 and bfloat16
        return LossScaling(
            mode=str(self.mode.currentData()),
            initial_scale=min(self.initial_scale.value(), FLOAT32_MAX),
            growth_steps=self.growth_steps.value(),
            factor=min(self.factor.value(), FLOAT32_MAX),
        )

    def set_loss_scaling(self, ls: LossScaling, precision: str) -> None:
        mode = ls.resolved_mode("mixed_float16") if ls.mode == "auto" else ls.mode
        self.mode.setCurrentIndex(max(0, self.mode.findData(mode)))
        self.initial_scale.setValue(float(ls.initial_scale))
        self.growth_steps.setValue(int(ls.growth_steps))
        self.factor.setValue(float(ls.factor))
        defaults = LossScaling()
        if (ls.initial_scale, ls.growth_steps) != (defaults.initial_scale, defaults.growth_steps):
            self.numbers.set_open(True)  # numbers set stay in view
        self.set_precision(precision)

    def _update(self) -> None:
        active = self._precision == "mixed_float16"
        mode = str(self.mode.currentData())
        for widget in (self.mode, self.initial_scale, self.growth_steps, self.factor):
            widget.setEnabled(active)
        self.form.setRowVisible(self.numbers, mode == "dynamic")
        self.form.setRowVisible(self.factor, mode == "fixed")
        self.explanation.setText(_tr(WHY_FLOAT16[mode] if active else WHY_NOT[self._precision]))
        self.changed.emit()
