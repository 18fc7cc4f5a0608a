"""The run's setup: dataset, model template, precision, loss scaling, hyperparameters,
the distribution strategy, the training aids, the comparison with float32 (trials,
baseline math), and the Run/Stop buttons. ``spec()`` turns the form into a RunSpec;
``set_spec()`` fills it from one (a config file, the last session). Changing the batch
size offers the learning rate the linear scaling rule gives for the new batch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QColor, QResizeEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine import i18n
from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.distribute.options import StrategyOption
from mpstudio.engine.spec import (
    LOOPS,
    OPTIMIZERS,
    PRECISIONS,
    XLA_MODES,
    Distribution,
    RunSpec,
    TrainingAids,
)
from mpstudio.engine.templates.registry import template_entry, template_names
from mpstudio.engine.trainer.compare_options import MAX_REPEATS, CompareOptions
from mpstudio.ui.setup.aids_form import AidsForm
from mpstudio.ui.setup.dataset_picker import DatasetPicker
from mpstudio.ui.setup.layer_table import LayerTable
from mpstudio.ui.setup.loss_scaling_form import LossScalingForm
from mpstudio.ui.setup.pinned_layers_field import PinnedLayersField
from mpstudio.ui.setup.setup_texts import (
    BASELINE_MATH_TEXT,
    BASELINE_MATH_TIP,
    BASELINE_TIP,
    LOOP_TEXT,
    LR_HELPER_TIP,
    MULTIWORKER_COMPARE_TIP,
    PROFILE_TIP,
    SIZING_TIP,
    TRIALS_TIP,
    XLA_TEXT,
    tr,
)
from mpstudio.ui.setup.strategy_form import DistributionForm
from mpstudio.ui.setup.template_picker import TemplatePicker
from mpstudio.ui.setup.verdict_marks import mark_color, mark_text, precision_choice_text
from mpstudio.ui.theme import ThemeColors
from mpstudio.ui.themed import follow_theme, set_role
from mpstudio.ui.widgets.folding_group import FoldingGroup
from mpstudio.ui.widgets.panel_labels import spin_box


def _combo(name: str, items: dict[str, str] | tuple[str, ...]) -> QComboBox:
    """Items keyed by ``items``' keys; a dict's texts are shown translated, a tuple's
    (names: templates, optimizers, dtypes) as they are."""
    combo = QComboBox()
    combo.setObjectName(name)
    pairs = ((k, tr(t)) for k, t in items.items()) if isinstance(items, dict) else \
        ((i, i) for i in items)
    for key, text in pairs:
        combo.addItem(text, key)
    return combo


def _select(combo: QComboBox, key: str) -> None:
    index = combo.findData(key)
    if index >= 0:
        combo.setCurrentIndex(index)


class SetupPanel(QWidget):
    changed = Signal()  # anything in the form changed
    model_inputs_changed = Signal()  # dataset, template or precision: the preview is stale
    run_clicked = Signal()
    stop_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset = DatasetPicker()
        self.template = _combo("template", tuple(template_names()))
        self.template_picker = TemplatePicker(self.template)
        self.template_note = self._hint("")
        self.layers = LayerTable()
        self.precision = _combo("precision", PRECISIONS)
        # True once the user chose a precision (in the list, or with a spec of theirs):
        # until then the hardware check's recommendation is selected for them.
        self.precision_picked = False
        self.precision.activated.connect(lambda *_: setattr(self, "precision_picked", True))
        self.precision_note = self._hint("")
        self.precision_note.setObjectName("precisionNote")
        self.float32_layers = PinnedLayersField()
        self.loss_scaling = LossScalingForm()
        self.batch_size = spin_box("batchSize", 1, 65536, value=128,
                                   tip=QCoreApplication.translate(
                                       "SetupPanel",
                                       "Examples per step, per replica (per device)"))
        self.epochs = spin_box("epochs", 1, 100_000, value=5, tip="")
        self.learning_rate = QDoubleSpinBox()
        self.learning_rate.setObjectName("learningRate")
        self.learning_rate.setDecimals(6)
        self.learning_rate.setRange(1e-6, 10.0)
        self.learning_rate.setStepType(QDoubleSpinBox.StepType.AdaptiveDecimalStepType)
        self.lr_helper = QPushButton()
        self.lr_helper.setObjectName("lrForBatch")
        self.lr_helper.setFlat(True)
        self.lr_helper.setCursor(Qt.CursorShape.PointingHandCursor)
        self.lr_helper.setStyleSheet("QPushButton { text-align: left; padding: 0 2px; "
                                     "text-decoration: underline; }")
        self.lr_helper.setToolTip(tr(LR_HELPER_TIP))
        self.lr_helper.hide()
        self._lr_batch = 128  # the batch size at which the learning rate was last set
        # A first launch: until the user picks a precision, the device's best half
        # precision is selected (compared with float32), whatever is recommended.
        self.first_comparison = False
        self.optimizer = _combo("optimizer", OPTIMIZERS)
        self.loop = _combo("loop", {k: LOOP_TEXT[k] for k in LOOPS})
        self.xla = _combo("xla", {k: XLA_TEXT[k] for k in XLA_MODES})
        self.distribution = DistributionForm()
        self.aids = AidsForm()
        self.baseline = QCheckBox(QCoreApplication.translate("SetupPanel", "Compare with float32"))
        self.baseline.setObjectName("baseline")
        self.baseline.setToolTip(tr(BASELINE_TIP))
        self.trials = spin_box("trials", 1, MAX_REPEATS, value=1, tip=tr(TRIALS_TIP))
        self.baseline_math = _combo("baselineMath", BASELINE_MATH_TEXT)
        self.baseline_math.setToolTip(tr(BASELINE_MATH_TIP))
        self.profile = QCheckBox(
            QCoreApplication.translate("SetupPanel", "Profile ops (why slower?)"))
        self.profile.setObjectName("profileOps")
        self.profile.setToolTip(tr(PROFILE_TIP))
        self.sizing = QCheckBox(
            QCoreApplication.translate("SetupPanel", "Size for timing"))
        self.sizing.setObjectName("sizeForTiming")
        self.sizing.setChecked(True)
        self.sizing.setToolTip(tr(SIZING_TIP))
        self.run_button = QPushButton(QCoreApplication.translate("SetupPanel", "Run"))
        self.run_button.setObjectName("runButton")
        self.run_button.setDefault(True)
        self.stop_button = QPushButton(QCoreApplication.translate("SetupPanel", "Stop"))
        self.stop_button.setObjectName("stopButton")
        self._marks: dict[str, tuple[str, str]] = {}  # policy -> the advisor's verdict
        self._device = ""
        self._extra: RunSpec = RunSpec()  # fields the form does not show (seed, data options…)
        self._build_layout()
        self._connect()
        self.set_spec(RunSpec())
        self.set_state(tf_ready=False, running=False)

    # ------------------------------------------------------------- layout
    @staticmethod
    def _hint(text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        set_role(label, "hint")
        return label

    def _group(self, title: str, *widgets: QWidget) -> QGroupBox:
        group = QGroupBox(title)
        layout = QVBoxLayout(group)
        for widget in widgets:
            layout.addWidget(widget)
        return group

    def _build_layout(self) -> None:
        hyper = QWidget()
        form = QFormLayout(hyper)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(QCoreApplication.translate("SetupPanel", "Batch size"),
                    self.batch_size)
        form.addRow(QCoreApplication.translate("SetupPanel", "Epochs"),
                    self.epochs)
        form.addRow(QCoreApplication.translate("SetupPanel", "Learning rate"),
                    self.learning_rate)
        form.addRow("", self.lr_helper)
        self._hyper_form = form
        form.addRow(QCoreApplication.translate("SetupPanel", "Optimizer"),
                    self.optimizer)
        form.addRow(QCoreApplication.translate("SetupPanel", "Loop"),
                    self.loop)
        form.addRow("XLA", self.xla)
        compare = QWidget()
        compare_form = QFormLayout(compare)
        compare_form.setContentsMargins(18, 0, 0, 0)  # indented under its check box
        compare_form.addRow(QCoreApplication.translate("SetupPanel", "Trials"),
                            self.trials)
        compare_form.addRow(QCoreApplication.translate("SetupPanel", "Baseline"),
                            self.baseline_math)
        compare_form.addRow("", self.sizing)
        compare_form.addRow("", self.profile)
        self._compare_form = compare
        self.button_row = QWidget()  # the window pins it below the scrolling form
        self.button_row.setObjectName("runButtons")
        buttons = QHBoxLayout(self.button_row)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.run_button, 2)
        buttons.addWidget(self.stop_button, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self._group(QCoreApplication.translate("SetupPanel", "Dataset"),
                                         self.dataset))
        layout.addWidget(self._group(QCoreApplication.translate("SetupPanel", "Model"),
                                         self.template_picker, self.template_note,
                                         self.layers))
        layout.addWidget(self._group(QCoreApplication.translate("SetupPanel", "Precision"),
                                         self.precision, self.precision_note,
                                         self.float32_layers))
        layout.addWidget(self._group(QCoreApplication.translate("SetupPanel", "Loss scaling"),
                                         self.loss_scaling))
        layout.addWidget(self._group(QCoreApplication.translate("SetupPanel", "Training"),
                                         hyper, self.baseline, compare))
        # Rarely changed: folded until opened (the window remembers which are open).
        self.folding = {
            "distribution": FoldingGroup(
                QCoreApplication.translate("SetupPanel", "Distribution"), self.distribution),
            "aids": FoldingGroup(
                QCoreApplication.translate("SetupPanel", "Training aids"), self.aids)}
        for group in self.folding.values():
            layout.addWidget(group)
        self.folding["loss_scale_numbers"] = self.loss_scaling.numbers  # inside its group
        layout.addWidget(self.button_row)
        layout.addStretch(1)

    def _connect(self) -> None:
        for signal in (self.dataset.changed, self.template.currentIndexChanged,
                       self.precision.currentIndexChanged):
            signal.connect(lambda *_: self.model_inputs_changed.emit())
        self.float32_layers.changed.connect(self.model_inputs_changed.emit)
        self.float32_layers.changed.connect(self.changed.emit)
        self.template.currentIndexChanged.connect(self._template_changed)
        self.precision.currentIndexChanged.connect(self._precision_changed)
        for signal in (self.dataset.changed, self.template.currentIndexChanged,
                       self.precision.currentIndexChanged, self.loss_scaling.changed,
                       self.batch_size.valueChanged, self.epochs.valueChanged,
                       self.learning_rate.valueChanged, self.optimizer.currentIndexChanged,
                       self.loop.currentIndexChanged, self.xla.currentIndexChanged,
                       self.baseline.toggled, self.trials.valueChanged,
                       self.baseline_math.currentIndexChanged, self.sizing.toggled):
            signal.connect(lambda *_: self.changed.emit())
        for signal in (self.batch_size.valueChanged, self.learning_rate.valueChanged):
            signal.connect(lambda *_: self._training_changed())
        self.learning_rate.valueChanged.connect(lambda *_: self._learning_rate_set())
        self.batch_size.valueChanged.connect(lambda *_: self._offer_scaled_rate())
        self.lr_helper.clicked.connect(self.apply_scaled_learning_rate)
        self.aids.changed.connect(self._aids_changed)
        self.distribution.changed.connect(self._distribution_changed)
        self.baseline.toggled.connect(lambda *_: self._compare_changed())
        self.run_button.clicked.connect(self.run_clicked.emit)
        self.stop_button.clicked.connect(self.stop_clicked.emit)

    # ------------------------------------------------------------ the spec
    def spec(self) -> RunSpec:
        """The run the form describes (check it with spec_checks.spec_problems)."""
        return self._extra.replace(
            dataset=self.dataset.dataset(),
            dataset_options=self.dataset.options(),
            template=str(self.template.currentData()),
            precision=self.selected_precision(),
            loss_scaling=self.loss_scaling.loss_scaling(),
            batch_size=self.batch_size.value(),
            epochs=self.epochs.value(),
            learning_rate=self.learning_rate.value(),
            optimizer=str(self.optimizer.currentData()),
            loop=str(self.loop.currentData()),
            xla=str(self.xla.currentData()),
            warmup_steps=self.distribution.warmup_steps.value(),
            distribute=Distribution(
                strategy=self.distribution.selected() or "default",
                devices=list(self._extra.distribute.devices),
                lr_scaling=self.distribution.lr_rule(),
                join_timeout=self._extra.distribute.join_timeout,
            ),
            aids=self.aids.aids(),
            float32_layers=self.float32_layers.layers(),
        )

    def set_spec(self, spec: RunSpec) -> None:
        """The form from ``spec`` (a config file, a run re-run from History): its
        precision counts as the user's pick (the last session's restore says itself)."""
        self._extra = spec
        self.precision_picked = True
        self.dataset.set_dataset(spec.dataset, spec.dataset_options)
        self.template_picker.select(spec.template)
        _select(self.precision, spec.precision)
        self.loss_scaling.set_loss_scaling(spec.loss_scaling, spec.precision)
        self.batch_size.setValue(spec.batch_size)
        self.epochs.setValue(spec.epochs)
        self.learning_rate.setValue(spec.learning_rate)
        _select(self.optimizer, spec.optimizer)
        _select(self.loop, spec.loop)
        _select(self.xla, spec.xla)
        dist = spec.distribute
        self.distribution.set_distribution(dist.strategy, dist.lr_scaling, spec.warmup_steps,
                                           dist.devices)
        self.aids.set_validation_split(spec.validation_split)
        self.aids.set_aids(spec.aids)
        self.float32_layers.set_layers(list(spec.float32_layers))
        # a spec that uses a folded group's settings opens it: nothing set stays hidden
        if dist != Distribution() or spec.warmup_steps:
            self.folding["distribution"].set_open(True)
        if spec.aids != TrainingAids() or spec.validation_split != RunSpec().validation_split:
            self.folding["aids"].set_open(True)
        self._training_changed()
        self._learning_rate_set()
        self._template_changed()
        self._precision_changed()

    def selected_precision(self) -> str:
        return str(self.precision.currentData())

    def set_strategy_options(self, options: Sequence[StrategyOption],
                             environ: Mapping[str, str] | None = None) -> None:
        """The strategies this machine offers (``strategy_options``); ``environ`` is where
        TF_CONFIG was read (this process's environment when None)."""
        self.distribution.set_options(options, environ)

    def with_baseline(self) -> bool:
        return self.baseline.isEnabled() and self.baseline.isChecked()

    def comparison(self) -> CompareOptions | None:
        """The comparison to run, or None for a single run."""
        if not self.with_baseline():
            return None
        return self.compare_options()

    def release_button_row(self) -> None:
        """Take Run and Stop (``button_row``) out of the form, for the window to pin
        below its scroll area (shown on its own, the panel keeps them at its end)."""
        layout = self.layout()
        if layout is not None:
            layout.removeWidget(self.button_row)

    def open_groups(self) -> list[str]:
        return [name for name, group in self.folding.items() if group.is_open]

    def set_open_groups(self, names: list[str]) -> None:
        for name, group in self.folding.items():
            if name in names:
                group.set_open(True)

    def set_comparison(self, checked: bool, options: CompareOptions) -> None:
        self.baseline.setChecked(checked)
        self.trials.setValue(options.repeats)
        _select(self.baseline_math, options.baseline)
        self.profile.setChecked(options.profile)
        self.sizing.setChecked(options.size)
        self._compare_changed()

    def compare_options(self) -> CompareOptions:
        """The trials and baseline fields, whether or not the box is ticked (a float8
        comparison's baseline math is TensorFlow's own: TF32 is float32's)."""
        math = "auto" if self.selected_precision() == "float8" \
            else str(self.baseline_math.currentData())
        return CompareOptions(self.trials.value(), math, self.profile.isChecked(),
                              size=self.sizing.isChecked())

    def _compare_changed(self) -> None:
        self._compare_form.setEnabled(self.with_baseline())

    def _training_changed(self) -> None:
        self.distribution.set_training(self.batch_size.value(), self.learning_rate.value())

    # ------------------------------------------- the learning rate for a batch
    def scaled_rate_offer(self) -> float | None:
        """The learning rate the linear rule gives for the current batch, as the field
        would hold it; None when the batch is the one the rate was set at, or the rule's
        rate is outside the field's range."""
        batch = self.batch_size.value()
        if batch == self._lr_batch:
            return None
        rate = scaled_learning_rate(self.learning_rate.value(), self._lr_batch, batch)
        offer = round(rate, self.learning_rate.decimals())
        low, high = self.learning_rate.minimum(), self.learning_rate.maximum()
        if not low <= offer <= high or offer == self.learning_rate.value():
            return None
        return offer

    def apply_scaled_learning_rate(self) -> None:
        offer = self.scaled_rate_offer()
        if offer is not None:
            self.learning_rate.setValue(offer)  # the rate is now set at this batch
        self._learning_rate_set()

    def _learning_rate_set(self) -> None:
        self._lr_batch = self.batch_size.value()
        self._offer_scaled_rate()

    def _offer_scaled_rate(self) -> None:
        offer = self.scaled_rate_offer()
        if offer is not None:
            batch = self.batch_size.value()
            factor = batch / self._lr_batch
            self.lr_helper.setText(QCoreApplication.translate(
                "SetupPanel", "Use {rate} for batch {batch} (linear rule)").format(
                rate=f"{offer:g}", batch=batch))
            warm = (QCoreApplication.translate(
                "SetupPanel", " This is a large factor: set warmup steps under Distribution.")
                if factor >= 4 and self.distribution.warmup_steps.value() == 0 else "")
            self.lr_helper.setToolTip(QCoreApplication.translate(
                "SetupPanel", "{tip}. The learning rate {rate} was set for batch {old}; "
                "batch {batch} is ×{factor}.{warm}").format(
                tip=tr(LR_HELPER_TIP), rate=f"{self.learning_rate.value():g}",
                old=self._lr_batch, batch=batch, factor=f"{factor:g}", warm=warm))
        self._hyper_form.setRowVisible(self.lr_helper, offer is not None)

    def _aids_changed(self) -> None:
        self._fit_wrapped_labels()
        self.changed.emit()

    def _distribution_changed(self) -> None:
        self._update_baseline()
        self._offer_scaled_rate()  # its tooltip mentions the warmup
        self._fit_wrapped_labels()
        self.changed.emit()

    def _update_baseline(self) -> None:
        """Compare with float32: not from float32 itself, and not across hosts."""
        if self.selected_precision() == "float32":
            why = QCoreApplication.translate(
                "SetupPanel",
                "The run already is float32: pick a mixed precision to compare with it")
        elif self.distribution.selected() == "multiworker":
            why = tr(MULTIWORKER_COMPARE_TIP)
        else:
            why = ""
        self.baseline.setEnabled(not why)
        self.baseline.setToolTip(why or tr(BASELINE_TIP))
        self.baseline.setText(  # a float8 run is compared with the bfloat16 it replaces
            QCoreApplication.translate("SetupPanel", "Compare with mixed_bfloat16")
            if self.selected_precision() == "float8"
            else QCoreApplication.translate("SetupPanel", "Compare with float32"))
        self._compare_changed()
        # TF32 is float32's math: a float8 run's baseline is mixed_bfloat16 (its own math)
        float8 = self.selected_precision() == "float8"
        self.baseline_math.setEnabled(not float8)  # the form greys it with the box
        self.baseline_math.setToolTip(QCoreApplication.translate(
            "SetupPanel", "float8 is compared with mixed_bfloat16, whose matmuls TF32 does "
            "not touch") if float8 else tr(BASELINE_MATH_TIP))

    # ------------------------------------------------------------ updates
    def set_state(self, tf_ready: bool, running: bool, stop_now: bool = False) -> None:
        """Run needs TensorFlow and no run in progress; the form is frozen during a run.
        ``stop_now``: Stop was pressed and the run goes on: the button ends the engine."""
        self.run_button.setEnabled(tf_ready and not running)
        self.run_button.setToolTip("" if tf_ready else QCoreApplication.translate(
            "SetupPanel", "TensorFlow is still loading…"))
        self.stop_button.setEnabled(running)
        self.stop_button.setText(QCoreApplication.translate("SetupPanel", "Stop now")
                                 if stop_now else QCoreApplication.translate("SetupPanel", "Stop"))
        self.stop_button.setToolTip(
            QCoreApplication.translate(
                "SetupPanel",
                "End the engine process now: the run is kept as stopped with what it measured")
            if stop_now else QCoreApplication.translate("SetupPanel", "Stop before the next batch"))
        for group in self.findChildren(QGroupBox):
            group.setEnabled(not running)
        for folding in self.folding.values():  # its header still opens and closes it
            folding.body.setEnabled(not running)

    def set_verdicts(self, marks: dict[str, tuple[str, str]], device: str,
                     recommended: str = "") -> None:
        """Mark each precision with the advisor's verdict for ``device``, and select
        the ``recommended`` one until the user has picked a precision themselves (the
        default mixed_float16 stood marked "slower here" while the log recommended
        float32)."""
        self._marks = marks
        self._device = device
        if recommended and not self.precision_picked:
            _select(self.precision, recommended)
        for i in range(self.precision.count()):
            policy = str(self.precision.itemData(i))
            mark, reason = marks.get(policy, ("", ""))
            self.precision.setItemText(i, precision_choice_text(policy, mark))
            self.precision.setItemData(i, reason, Qt.ItemDataRole.ToolTipRole)
            model = self.precision.model()  # a combo box's own: a QStandardItemModel
            if policy == "float8" and isinstance(model, QStandardItemModel):
                # offered only where float8 matmuls exist
                model.item(i).setEnabled(mark != "not supported")
        follow_theme(self.precision, self._color_marks)
        self._precision_changed()

    def _color_marks(self, _combo: QWidget, palette: ThemeColors) -> None:
        """Each precision in its verdict's colour, in the theme in force."""
        combo = self.precision
        for i in range(combo.count()):
            mark = self._marks.get(str(combo.itemData(i)), ("", ""))[0]
            color = mark_color(mark, palette)
            combo.setItemData(i, QColor(color) if color else None,
                              Qt.ItemDataRole.ForegroundRole)

    def _template_changed(self) -> None:
        name = str(self.template.currentData())
        # the engine's words, marked for gettext there (N_) and translated here
        self.template_note.setText(i18n._(template_entry(name).description))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_wrapped_labels()

    def _fit_wrapped_labels(self) -> None:
        """Word-wrapped labels in a scroll area keep the height of their first text; give
        each the height its current text needs at its current width."""
        for label in self.findChildren(QLabel):
            if label.wordWrap() and label.width() > 0:
                label.setMinimumHeight(max(0, label.heightForWidth(label.width())))

    def _precision_changed(self) -> None:
        precision = self.selected_precision()
        self.loss_scaling.set_precision(precision)
        self.aids.set_precision(precision)
        self.float32_layers.set_precision(precision)
        mark, reason = self._marks.get(precision, ("", ""))  # the reason: the engine's
        self.precision_note.setText(
            QCoreApplication.translate("SetupPanel", "<b>{mark} on {device}</b>: {reason}").format(
                mark=mark_text(mark), device=self._device, reason=reason)
            if mark else QCoreApplication.translate(
                "SetupPanel",
                "The hardware check marks each precision with what it means on this machine.")
        )
        self._update_baseline()
        self._fit_wrapped_labels()
