"""The model's layers under the selected policy: compute and variable dtypes per layer,
with the float32 output that keeps the softmax and the loss exact highlighted, and under
a mixed policy whether each layer's sizes fit Tensor Cores (the fix where they do not)."""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.memory_estimate import mib
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.prediction.measurement import ModelMeasurement, measured_payoff
from mpstudio.ui.setup.layer_columns import TENSOR_CORES, LayerColumns
from mpstudio.ui.theme import ThemeColors, colors
from mpstudio.ui.themed import follow_theme, set_role

# The header texts, shown translated (context "LayerTable").
COLUMNS = (QT_TRANSLATE_NOOP("LayerTable", "layer"), QT_TRANSLATE_NOOP("LayerTable", "type"),
           QT_TRANSLATE_NOOP("LayerTable", "compute"),
           QT_TRANSLATE_NOOP("LayerTable", "variables"),
           QT_TRANSLATE_NOOP("LayerTable", "params"),
           QT_TRANSLATE_NOOP("LayerTable", "Tensor Cores"))
# What each header means (its tip)
COLUMN_TIPS = (
    QT_TRANSLATE_NOOP("LayerTable", "The layer's name; its tip gives its type and "
                      "parameters. Right-click the header to show or hide columns."),
    QT_TRANSLATE_NOOP("LayerTable", "The Keras layer class"),
    QT_TRANSLATE_NOOP("LayerTable", "The dtype the layer computes in: float16 or bfloat16 "
                      "is half precision, the part mixed precision speeds up"),
    QT_TRANSLATE_NOOP("LayerTable", "The dtype the layer keeps its weights in: float32 "
                      "under every mixed policy, so small updates are not lost"),
    QT_TRANSLATE_NOOP("LayerTable", "The layer's parameters (weights)"),
    QT_TRANSLATE_NOOP("LayerTable", "Whether the layer's sizes fit Tensor Cores under half "
                      "precision, and what to change where they do not"))
HALF_DTYPES = ("float16", "bfloat16")
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
NAME_TIP = QT_TRANSLATE_NOOP("LayerTable", "{name} ({kind}): {params} parameters")
OUTPUT_TIP = QT_TRANSLATE_NOOP(
    "LayerTable",
    "The output layer computes in float32: the softmax and the loss stay exact even "
    "when the layers before it run in half precision."
)


def tensor_cores_text(value: str) -> str:
    """A Tensor Core cell as shown: the summary's "yes" or "no: units 10 → 16"."""
    if value == "yes":
        return QCoreApplication.translate("LayerTable", "yes")
    if value.startswith("no: "):
        return QCoreApplication.translate("LayerTable", "no: {fix}").format(fix=value[4:])
    return value


def caption_text(summary: ModelSummary, template: str) -> str:
    """The line over the table: the model, its size, what computes in half precision and,
    under a mixed policy, how many layers miss Tensor Cores."""
    # The input row holds the data's dtype (uint8 images): it computes nothing.
    computing = [li for li in summary.layers if li.kind != "InputLayer"]
    half = sum(1 for li in computing if li.compute_dtype in HALF_DTYPES)
    values = {"template": template, "params": f"{summary.params:,}", "policy": summary.policy,
              "half": half, "layers": len(computing)}
    if half:
        caption = QCoreApplication.translate(
            "LayerTable", "<b>{template}</b>: {params} parameters · under <b>{policy}</b> "
            "{half} of {layers} layers compute in half precision, variables stay float32"
        ).format(**values)
    else:
        caption = QCoreApplication.translate(
            "LayerTable", "<b>{template}</b>: {params} parameters · under <b>{policy}</b> "
            "every layer computes in float32").format(**values)
    float8 = sum(1 for li in computing if li.quantized == "float8")
    if float8:
        caption += QCoreApplication.translate(
            "LayerTable", "<br>{count} layers run float8 matmuls (Dense/EinsumDense, marked "
            "+ float8)").format(count=float8)
    misses = summary.tensor_core_misses
    if misses == 1:
        caption += QCoreApplication.translate(
            "LayerTable", "<br>1 layer misses Tensor Cores: see the column")
    elif misses:
        caption += QCoreApplication.translate(
            "LayerTable", "<br>{count} layers miss Tensor Cores: see the column").format(
            count=misses)
    if summary.inputs_note:  # a model file the data does not fit: shown on its own input
        caption += "<br>" + html.escape(QCoreApplication.translate(
            "LayerTable", "Shown for its own input: {reason}").format(
                reason=summary.inputs_note))
    return caption


def memory_text(summary: ModelSummary) -> str:
    """The device memory estimate under the chosen policy and, beside it, float32's
    (the engine's preview computes them); "" when the summary has none."""
    if not summary.memory:
        return ""
    chosen = summary.memory[0]
    text = QCoreApplication.translate(
        "LayerTable", "Device memory estimate at batch {batch}: <b>{policy}</b> {total}").format(
        batch=chosen.batch_size, policy=chosen.policy, total=mib(chosen.total))
    if len(summary.memory) > 1:
        other = summary.memory[1]
        saved = 1 - chosen.total / other.total if other.total else 0.0
        if saved >= 0.005:
            text += QCoreApplication.translate(
                "LayerTable", " · {policy} {total} ({percent}% less under {chosen})").format(
                policy=other.policy, total=mib(other.total), percent=f"{100 * saved:.0f}",
                chosen=chosen.policy)
        else:
            text += QCoreApplication.translate("LayerTable", " · {policy} {total}").format(
                policy=other.policy, total=mib(other.total))
    return text


def memory_tip(summary: ModelSummary) -> str:
    """Each estimate's parts and what the estimate leaves out."""
    lines = [QCoreApplication.translate(
        "LayerTable", "{policy}: weights {weights} + optimizer {optimizer} ({optimizer_name}) "
        "+ gradients {gradients} + activations {activations} + loss-scale state {loss_scale}"
    ).format(policy=e.policy, weights=mib(e.weights), optimizer=mib(e.optimizer),
             optimizer_name=e.optimizer_name, gradients=mib(e.gradients),
             activations=mib(e.activations), loss_scale=f"{e.loss_scale} B")
        for e in summary.memory]
    lines.append(QCoreApplication.translate(
        "LayerTable", "Per device. Each layer's output is kept once for the backward pass; "
        "work inside a layer (attention scores, recurrent steps, dropout masks), the input "
        "pipeline and the framework's own buffers are not counted. After a run the summary "
        "and the comparison card set it against the measured peak where the device reports "
        "one."))
    return "\n".join(lines)


class LayerTable(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel(QCoreApplication.translate(
            "LayerTable", "Model preview appears when TensorFlow has loaded."))
        self.caption.setObjectName("modelCaption")
        self.caption.setWordWrap(True)
        set_role(self.caption, "hint")
        self.summary: ModelSummary | None = None
        # the setup's model as Measure timed it, with each precision's predicted speedup
        self._measured: tuple[ModelMeasurement, dict[str, float]] | None = None
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("layerTable")
        follow_theme(self.table, self._paint, "cells")
        self.table.setHorizontalHeaderLabels(
            [QCoreApplication.translate("LayerTable", c) for c in COLUMNS])
        for column, tip in enumerate(COLUMN_TIPS):
            header = self.table.horizontalHeaderItem(column)  # one per label set above
            if header is not None:
                header.setToolTip(QCoreApplication.translate("LayerTable", tip))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setMinimumHeight(150)
        self.table.setColumnHidden(TENSOR_CORES, True)  # shown when a layer has a note
        self.columns = LayerColumns(self.table)  # widths for the panel's room
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.memory = QLabel()
        self.memory.setObjectName("memoryEstimate")
        self.memory.setWordWrap(True)
        self.memory.setVisible(False)
        # the payoff predicted for this setup on this machine's device, before Run
        self.payoff = QLabel()
        self.payoff.setObjectName("payoffPrediction")
        self.payoff.setWordWrap(True)
        self.payoff.setVisible(False)
        layout.addWidget(self.caption)
        layout.addWidget(self.payoff)
        layout.addWidget(self.memory)
        layout.addWidget(self.table)

    def show_note(self, text: str) -> None:
        """No preview (TensorFlow loading, the data's shape unknown, a build error)."""
        self.summary = None
        self.caption.setText(text)
        self.memory.setVisible(False)
        self.payoff.setVisible(False)
        self.table.setRowCount(0)
        self.table.setColumnHidden(TENSOR_CORES, True)
        self.columns.measure()  # the headers alone

    def show_summary(self, summary: ModelSummary, template: str) -> None:
        self.summary = summary
        self.caption.setText(caption_text(summary, template))
        self.memory.setText(memory_text(summary))
        self.memory.setToolTip(memory_tip(summary) if summary.memory else "")
        self.memory.setVisible(bool(summary.memory))
        self._show_payoff()
        checked = any(li.tensor_cores for li in summary.layers)
        self.table.setColumnHidden(TENSOR_CORES, not checked)
        # Filled with no column sized to its contents live (each item set re-measured
        # its column over all rows: a resnet's table took 115 ms, a visible freeze when
        # its run starts); one measure at the end is enough.
        self.table.setUpdatesEnabled(False)
        try:
            self.table.setRowCount(len(summary.layers))
            for row, layer in enumerate(summary.layers):
                cells = (layer.name, layer.kind, layer.compute_text, layer.variable_dtype,
                         f"{layer.params:,}", tensor_cores_text(layer.tensor_cores))
                for column, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    if column == 0:
                        item.setToolTip(QCoreApplication.translate("LayerTable", NAME_TIP)
                                        .format(name=layer.name, kind=layer.kind,
                                                params=f"{layer.params:,}"))
                    if column == 4:
                        item.setTextAlignment(RIGHT)
                    if column == TENSOR_CORES:
                        item.setToolTip(layer.tensor_core_tip)
                    self.table.setItem(row, column, item)
            self._highlight_output(len(summary.layers) - 1)
            self._paint(self.table, colors())
        finally:
            self.columns.measure()
            self.table.setUpdatesEnabled(True)

    def set_measurement(self, measurement: ModelMeasurement | None,
                        predicted: dict[str, float] | None = None) -> None:
        """The setup's model as the Hardware tab's Measure timed it (None: not timed, or
        the setup changed since): the payoff line then says what was measured."""
        self._measured = (measurement, predicted or {}) if measurement is not None else None
        self._show_payoff()

    def _show_payoff(self) -> None:
        """"Measured: ..." once the setup's model was timed, else "Predicted: ..."."""
        summary = self.summary
        if summary is None:
            self.payoff.setVisible(False)
            return
        measured = (measured_payoff(self._measured[0], summary.policy, self._measured[1])
                    if self._measured is not None else "")
        if measured:
            self.payoff.setText(QCoreApplication.translate("LayerTable", "Measured: {text}")
                                .replace("{text}", measured))
            self.payoff.setToolTip(QCoreApplication.translate(
                "LayerTable", "Timed on this machine by the Hardware tab's Measure: a few "
                "seconds of this model under each precision, as a comparison times it"))
        else:
            self.payoff.setText(QCoreApplication.translate("LayerTable", "Predicted: {text}")
                                .replace("{text}", summary.payoff))
            self.payoff.setToolTip(QCoreApplication.translate(
                "LayerTable", "Predicted before the run from this device's rates and the "
                "model's layers; the comparison measures it"))
        self.payoff.setVisible(bool(measured or summary.payoff))

    def _highlight_output(self, row: int) -> None:
        if row < 0:
            return
        bold = QFont()
        bold.setBold(True)
        output_tip = QCoreApplication.translate("LayerTable", OUTPUT_TIP)
        for column in range(len(COLUMNS)):
            item = self.table.item(row, column)
            if item is None:  # every cell of a filled row has one
                continue
            item.setFont(bold)
            if column == 0:  # the name's tip, then why the row stands out
                item.setToolTip(f"{item.toolTip()}\n{output_tip}")
            elif not item.toolTip():  # a Tensor Core cell keeps its own tip
                item.setToolTip(output_tip)

    def _paint(self, table: QTableWidget, theme: ThemeColors) -> None:
        """The cells' colours from the theme, again whenever it turns: half-precision
        compute, a Tensor Core miss (it runs, slower than it could) and the float32
        output row (the "good" tone's text on its fill)."""
        summary = self.summary
        if summary is None or table.rowCount() != len(summary.layers):
            return
        output_text, output_fill, _border = theme.tones["good"]
        last = len(summary.layers) - 1
        for row, layer in enumerate(summary.layers):
            own = {2: theme.half if layer.compute_dtype in HALF_DTYPES else "",
                   TENSOR_CORES: (theme.verdict[Verdict.SLOWER]
                                  if layer.misses_tensor_cores else "")}
            for column in range(len(COLUMNS)):
                item = table.item(row, column)
                if item is None:
                    continue
                text = own.get(column, "") or (output_text if row == last else "")
                item.setForeground(QBrush(QColor(text)) if text else QBrush())
                item.setBackground(QBrush(QColor(output_fill)) if row == last else QBrush())

    def output_row_highlighted(self) -> bool:
        """For tests: the last row carries the float32-output highlight."""
        row = self.table.rowCount() - 1
        item = self.table.item(row, 0) if row >= 0 else None
        return (item is not None and item.font().bold()
                and item.background().color() == QColor(colors().tones["good"][1]))
