"""The run's tf.distribute strategy: one device, mirrored over local GPUs, a
multi-worker cluster or a TPU; whether the learning rate scales with the replicas
(the linear rule) and its warmup; and a line saying what the run will use.

Which strategies this machine offers comes from ``strategy_options`` (the hardware
report and TF_CONFIG, no TensorFlow); an unavailable one is a disabled item whose
tooltip says why, so it cannot be picked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.distribute.cluster import Cluster, ClusterError, read_cluster
from mpstudio.engine.distribute.lr_plan import LearningRatePlan
from mpstudio.engine.distribute.options import StrategyOption, strategy_options
from mpstudio.ui.themed import set_role

# Shown translated (context "DistributionForm"); the strategy keys stay English.
TITLES = {
    "default": QT_TRANSLATE_NOOP("DistributionForm", "One device"),
    "mirrored": QT_TRANSLATE_NOOP("DistributionForm", "Mirrored (local GPUs)"),
    "multiworker": QT_TRANSLATE_NOOP("DistributionForm", "Multi-worker (TF_CONFIG cluster)"),
    "tpu": "TPU",
}
# A TF_CONFIG task in words ("worker 0"); other job names are shown as they are.
TASK_TEXT = {
    "worker": QT_TRANSLATE_NOOP("DistributionForm", "worker {index}"),
    "chief": QT_TRANSLATE_NOOP("DistributionForm", "chief {index}"),
}
LR_SCALING_TIP = QT_TRANSLATE_NOOP(
    "DistributionForm",
    "The batch size is per replica, so N replicas train on an N times larger "
    "global batch; the linear scaling rule multiplies the learning rate by N to "
    "match. Untick to keep the learning rate as given.")
WARMUP_TIP = QT_TRANSLATE_NOOP(
    "DistributionForm",
    "Raise the learning rate linearly from 0 to its (scaled) value over this many "
    "steps: large global batches often need it to start stably.")
MAX_WARMUP = 1_000_000


def tr(text: str) -> str:
    """A DistributionForm string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("DistributionForm", text)


def strategy_label(option: StrategyOption) -> str:
    """What the strategy choice shows: title and replicas, or that it is unavailable."""
    title = tr(TITLES[option.name]) if option.name in TITLES else option.title
    if option.reason:
        return QCoreApplication.translate("DistributionForm", "{title} - unavailable").format(
            title=title)
    if option.replicas == 1:
        return QCoreApplication.translate("DistributionForm", "{title} - 1 replica").format(
            title=title)
    return QCoreApplication.translate("DistributionForm", "{title} - {count} replicas").format(
        title=title, count=option.replicas)


def describe_batch(per_replica: int, replicas: int) -> str:
    """The batch the run trains on, as lr_plan.describe_batch says it, translated."""
    if replicas == 1:
        return QCoreApplication.translate("DistributionForm", "batch {batch} on 1 replica").format(
            batch=f"{per_replica:,}")
    return QCoreApplication.translate(
        "DistributionForm", "global batch {total} = {batch} per replica x {replicas} replicas"
    ).format(total=f"{per_replica * replicas:,}", batch=f"{per_replica:,}", replicas=replicas)


def describe_plan(plan: LearningRatePlan) -> str:
    """The learning rate the run uses, as LearningRatePlan.describe says it, translated."""
    if plan.scaled:
        text = QCoreApplication.translate(
            "DistributionForm",
            "learning rate {base} -> {target} (linear scaling rule: x{replicas} replicas)"
        ).format(base=f"{plan.base:g}", target=f"{plan.target:g}", replicas=plan.replicas)
    elif plan.replicas > 1:
        text = QCoreApplication.translate(
            "DistributionForm",
            "learning rate {base}, not scaled for {replicas} replicas (lr_scaling none)"
        ).format(base=f"{plan.base:g}", replicas=plan.replicas)
    else:
        text = QCoreApplication.translate("DistributionForm", "learning rate {base}").format(
            base=f"{plan.base:g}")
    if plan.warmup_steps:
        text += QCoreApplication.translate(
            "DistributionForm", ", warmed up linearly from 0 over {steps} steps").format(
            steps=f"{plan.warmup_steps:,}")
    return text


def _task(cluster: Cluster) -> str:
    """This host's task: "worker 0 (10.0.0.1:12345)"."""
    kind = cluster.task_type
    task = (tr(TASK_TEXT[kind]) if kind in TASK_TEXT else kind + " {index}").format(
        index=cluster.task_index)
    return QCoreApplication.translate("DistributionForm", "{task} ({address})").format(
        task=task, address=cluster.address)


def _where(devices: Sequence[str]) -> str:
    """The devices in a few words: all of them when few, the ends when many."""
    if len(devices) > 4:
        return f"{devices[0]} … {devices[-1]}"
    return ", ".join(devices)


class DistributionForm(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.strategy = QComboBox()
        self.strategy.setObjectName("strategy")
        self.strategy.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.strategy.setMinimumContentsLength(18)
        self.lr_scaling = QCheckBox(QCoreApplication.translate(
            "DistributionForm", "Scale learning rate with replicas (linear rule)"))
        self.lr_scaling.setObjectName("lrScaling")
        self.lr_scaling.setToolTip(tr(LR_SCALING_TIP))
        self.lr_scaling.setChecked(True)
        self.warmup_steps = QSpinBox()
        self.warmup_steps.setObjectName("warmupSteps")
        self.warmup_steps.setRange(0, MAX_WARMUP)
        self.warmup_steps.setSpecialValueText(
            QCoreApplication.translate("DistributionForm", "off"))
        self.warmup_steps.setGroupSeparatorShown(True)
        self.warmup_steps.setToolTip(tr(WARMUP_TIP))
        self.note = QLabel()
        self.note.setObjectName("distributionNote")
        self.note.setWordWrap(True)
        set_role(self.note, "hint")
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(QCoreApplication.translate("DistributionForm", "Strategy"), self.strategy)
        form.addRow(self.lr_scaling)
        form.addRow(QCoreApplication.translate("DistributionForm", "Warmup steps"),
                    self.warmup_steps)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.note)

        self._options: dict[str, StrategyOption] = {}
        self._environ: Mapping[str, str] = {}
        self._devices: list[str] = []  # the spec's mirrored subset; [] = every local GPU
        self._batch_size = 128
        self._learning_rate = 1e-3
        self._pending = ""  # a strategy a spec asked for before it was available
        self.set_options(strategy_options(None, {}))
        self.strategy.currentIndexChanged.connect(self._picked)
        self.strategy.activated.connect(self._forget_pending)  # a pick, even of the same
        self.lr_scaling.toggled.connect(lambda *_: self._update())
        self.warmup_steps.valueChanged.connect(lambda *_: self._update())

    # ---------------------------------------------------------- the choices
    def set_options(self, options: Sequence[StrategyOption],
                    environ: Mapping[str, str] | None = None) -> None:
        """Offer ``options``; the selection stays where it was if still available, moves
        to a strategy a spec asked for earlier once it is, and else falls back to the
        default."""
        self._options = {o.name: o for o in options}
        self._environ = dict(os.environ if environ is None else environ)
        current = self.selected() or "default"
        wanted = self._pending or current
        model = self.strategy.model()
        assert isinstance(model, QStandardItemModel)
        self.strategy.blockSignals(True)
        self.strategy.clear()
        for option in options:
            self.strategy.addItem(strategy_label(option), option.name)
            item = model.item(self.strategy.count() - 1)
            item.setEnabled(option.available)
            item.setToolTip(option.reason or self._devices_tip(option))
        if self._available(wanted):
            self._pending = ""
            self._select(wanted)
        else:
            self._select(current if self._available(current) else "default")
        self.strategy.blockSignals(False)
        self._update()

    def set_distribution(self, strategy: str, lr_scaling: str, warmup_steps: int,
                         devices: Sequence[str]) -> None:
        """Fill the form from a spec. A strategy this machine does not offer (yet) falls
        back to the default, and is selected when a later hardware check offers it."""
        self._devices = list(devices)
        self._pending = "" if self._available(strategy) else strategy
        self.strategy.blockSignals(True)
        self._select(strategy if self._available(strategy) else "default")
        self.strategy.blockSignals(False)
        self.lr_scaling.blockSignals(True)
        self.lr_scaling.setChecked(lr_scaling != "none")
        self.lr_scaling.blockSignals(False)
        self.warmup_steps.blockSignals(True)
        self.warmup_steps.setValue(max(0, min(int(warmup_steps), MAX_WARMUP)))
        self.warmup_steps.blockSignals(False)
        self._update()

    def set_training(self, batch_size: int, learning_rate: float) -> None:
        """The per-replica batch and the base learning rate the note describes."""
        self._batch_size, self._learning_rate = batch_size, learning_rate
        self._update()

    def selected(self) -> str:
        data = self.strategy.currentData()
        return str(data) if data is not None else ""

    def selected_option(self) -> StrategyOption | None:
        return self._options.get(self.selected())

    def lr_rule(self) -> str:
        return "linear" if self.lr_scaling.isChecked() else "none"

    def replicas(self) -> int:
        option = self.selected_option()
        if option is None:
            return 1
        if option.name == "mirrored" and self._devices:
            return len(self._devices)
        return max(1, option.replicas)

    # ------------------------------------------------------------ internals
    def _available(self, name: str) -> bool:
        option = self._options.get(name)
        return option is not None and option.available

    def _select(self, name: str) -> None:
        index = self.strategy.findData(name)
        if index >= 0:
            self.strategy.setCurrentIndex(index)

    @staticmethod
    def _devices_tip(option: StrategyOption) -> str:
        return ", ".join(option.devices)

    def _forget_pending(self) -> None:
        self._pending = ""

    def _picked(self) -> None:
        if not self._available(self.selected()):  # a disabled item, set from code
            self.strategy.blockSignals(True)
            self._select("default")
            self.strategy.blockSignals(False)
        self._pending = ""  # the user chose: forget what an earlier spec asked for
        self._update()

    def _update(self) -> None:
        self.note.setText(self.describe())
        option = self.selected_option()
        self.strategy.setToolTip(option.reason or self._devices_tip(option) if option else "")
        self.changed.emit()

    def describe(self) -> str:
        """What the run will use: strategy and devices, global batch, learning rate."""
        option = self.selected_option()
        replicas = self.replicas()
        plan = LearningRatePlan(self._learning_rate, replicas, self.lr_rule(),
                                self.warmup_steps.value())
        facts = QCoreApplication.translate("DistributionForm", "{batch}; {rate}").format(
            batch=describe_batch(self._batch_size, replicas), rate=describe_plan(plan))
        if option is None or option.name == "default":
            where = _where(option.devices) if option is not None else ""
            if where:
                return QCoreApplication.translate(
                    "DistributionForm", "One device ({where}): {facts}").format(
                    where=where, facts=facts)
            return QCoreApplication.translate("DistributionForm", "One device: {facts}").format(
                facts=facts)
        if option.name == "mirrored":
            devices = self._devices or list(option.devices)
            return QCoreApplication.translate(
                "DistributionForm", "Mirrored over {replicas} replicas ({where}): {facts}"
            ).format(replicas=replicas, where=_where(devices), facts=facts)
        if option.name == "tpu":
            return QCoreApplication.translate(
                "DistributionForm", "TPU over {replicas} replicas ({where}): {facts}"
            ).format(replicas=replicas, where=_where(option.devices), facts=facts)
        return self._describe_multiworker(option, facts)

    def _describe_multiworker(self, option: StrategyOption, facts: str) -> str:
        workers = len(option.devices)
        try:
            cluster = read_cluster(self._environ)
        except ClusterError:
            role = ""
        else:
            role = (QCoreApplication.translate(
                "DistributionForm", "; this host is {task}, the chief") if cluster.is_chief
                else QCoreApplication.translate("DistributionForm", "; this host is {task}")
            ).format(task=_task(cluster))
        return QCoreApplication.translate(
            "DistributionForm",
            "Multi-worker over {workers} workers, {replicas} replicas in all{role}: {facts}. "
            "The run starts a worker process for this host "
            "(mpstudio train --strategy multiworker) that joins the other hosts, which "
            "must be started the same way (README, \"More than one device\": two hosts)."
        ).format(workers=workers, replicas=option.replicas, role=role, facts=facts)
