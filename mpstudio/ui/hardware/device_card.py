"""One device of the hardware check as a card: what it is, then each precision
policy's verdict with its reason (and the measured speed once measured).

Labels, not a table: a reason is a sentence or two and must wrap at any panel
width, which QLabel does and table cells do poorly.
"""

from __future__ import annotations

import html
from functools import partial

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mpstudio.engine.hardware.advisor import DeviceAdvice
from mpstudio.engine.hardware.measurement import DeviceMeasurement
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.prediction.measurement import ModelMeasurement
from mpstudio.engine.said import render
from mpstudio.ui.hardware.hardware_facts import (
    Rows,
    measurement_caption,
    measurement_rows,
    model_caption,
    model_failures,
    model_rows,
    ratio_text,
)
from mpstudio.ui.setup.verdict_marks import mark_text
from mpstudio.ui.theme import LIGHT, ThemeColors
from mpstudio.ui.themed import set_role, themed_sheet
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

RUN_DEVICE_COLOR = LIGHT.verdict[Verdict.RECOMMENDED]  # a fill under white text: both themes
# A card's title is the device's label ("GPU:0", "CPU"); the one label with words in it,
# shown with QCoreApplication.translate("DeviceCard", title).
UNUSED_GPU = QT_TRANSLATE_NOOP("DeviceCard", "GPU (unused)")


def facts_grid(facts: Rows) -> QGridLayout:
    """Name on the left (small, grey), value on the right (wraps)."""
    grid = QGridLayout()
    grid.setHorizontalSpacing(12)
    grid.setVerticalSpacing(2)
    grid.setColumnStretch(1, 1)
    for row, (name, value) in enumerate(facts):
        grid.addWidget(secondary(QLabel(name)), row, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(wrapped_label(value), row, 1)
    return grid


class DeviceCard(QFrame):
    """A GPU, the TPU or the CPU, with the advisor's verdicts for it.

    ``unusable_reason`` (a GPU TensorFlow cannot use) replaces the three identical
    "not supported" rows with one line that says why. ``model``: the setup's model timed
    on this device (Measure), shown first as the evidence its verdicts follow, beside
    ``predicted`` (each precision's predicted speedup).
    """

    def __init__(self, title: str, name: str, facts: Rows, advice: DeviceAdvice,
                 measurement: DeviceMeasurement | None = None, *, run_device: bool = False,
                 unusable_reason: str = "", model: ModelMeasurement | None = None,
                 predicted: dict[str, float] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.device = advice.device
        self.facts = dict(facts)
        self.verdict_labels: dict[str, QLabel] = {}
        self.reason_labels: dict[str, QLabel] = {}
        self.ratio_labels: dict[str, QLabel] = {}
        self.unusable_label: QLabel | None = None
        self.measurement_label: QLabel | None = None
        self.timing_labels: list[list[QLabel]] = []  # header row, then one per kernel
        self.model_label: QLabel | None = None  # the setup's model timed here
        self.model_labels: list[list[QLabel]] = []  # header row, then one per precision
        self.setObjectName("deviceCard")
        border = f"2px solid {RUN_DEVICE_COLOR}" if run_device else "1px solid palette(mid)"
        self.setStyleSheet(f"QFrame#deviceCard {{ border: {border}; border-radius: 6px; }}")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 10)
        layout.setSpacing(6)
        layout.addLayout(self._header(title, name, run_device))
        layout.addLayout(facts_grid(facts))
        if unusable_reason:
            self.unusable_label = wrapped_label(QCoreApplication.translate(
                "DeviceCard", "TensorFlow cannot use this GPU: {reason}").format(
                    reason=render(unusable_reason)))
            set_role(self.unusable_label, "error")
            layout.addWidget(self.unusable_label)
        else:
            layout.addWidget(_rule())
            layout.addLayout(self._verdicts(advice, measured=model is not None or (
                measurement is not None and bool(measurement.results))))
        for note in advice.notes:
            layout.addWidget(secondary(wrapped_label(QCoreApplication.translate(
                "DeviceCard", "Note: {note}").format(note=render(note)))))
        if model is not None:
            self.model_label = secondary(wrapped_label(model_caption(model)))
            layout.addWidget(self.model_label)
            layout.addLayout(self._timings(model_rows(model, predicted or {}),
                                           self.model_labels))
            for line in model_failures(model):
                layout.addWidget(secondary(wrapped_label(line)))
        if measurement is not None and measurement.results:
            self.measurement_label = secondary(wrapped_label(measurement_caption(measurement)))
            layout.addWidget(self.measurement_label)
            layout.addLayout(self._timings(measurement_rows(measurement), self.timing_labels))

    def _header(self, title: str, name: str, run_device: bool) -> QHBoxLayout:
        row = QHBoxLayout()
        shown = QCoreApplication.translate("DeviceCard", title)
        heading = wrapped_label(f"<b>{html.escape(shown)}</b>&nbsp;&nbsp;{html.escape(name)}",
                                rich=True)
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.08)
        heading.setFont(font)
        row.addWidget(heading, 1)
        if run_device:
            tag = QLabel(QCoreApplication.translate("DeviceCard", "runs here"))
            tag.setToolTip(QCoreApplication.translate("DeviceCard",
                                                      "The device a run on this machine uses"))
            tag.setStyleSheet(f"color: white; background: {RUN_DEVICE_COLOR}; "
                              "border-radius: 4px; padding: 1px 6px;")
            row.addWidget(tag, 0, Qt.AlignmentFlag.AlignTop)
        return row

    def _verdicts(self, advice: DeviceAdvice, measured: bool) -> QGridLayout:
        """``measured``: the device was timed (its kernels or the setup's model), so
        each verdict shows the speed against float32 it follows."""
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(2)
        grid.setColumnStretch(1, 1)
        row = 0
        for verdict in advice.verdicts:
            default = verdict.policy == advice.default
            policy = QLabel(f"<b>{verdict.policy}</b>" + ("&nbsp;" + html.escape(
                QCoreApplication.translate("DeviceCard", "(default)")) if default else ""))
            policy.setTextFormat(Qt.TextFormat.RichText)
            if default:
                policy.setToolTip(QCoreApplication.translate(
                    "DeviceCard", "The policy a run on this device starts with"))
            mark = QLabel(mark_text(verdict.verdict.value))
            themed_sheet(mark, partial(_mark_sheet, verdict.verdict))
            grid.addWidget(policy, row, 0)
            grid.addWidget(mark, row, 1)
            if measured:
                ratio = QLabel(ratio_text(verdict.policy, verdict.measured))
                ratio.setToolTip(QCoreApplication.translate(
                    "DeviceCard", "{policy}'s speed against float32, measured here").format(
                        policy=verdict.policy))
                grid.addWidget(ratio, row, 2, Qt.AlignmentFlag.AlignRight)
                self.ratio_labels[verdict.policy] = ratio
            reason = wrapped_label(render(verdict.reason))
            reason.setContentsMargins(14, 0, 0, 6)
            grid.addWidget(reason, row + 1, 0, 1, 3)
            self.verdict_labels[verdict.policy] = mark
            self.reason_labels[verdict.policy] = reason
            row += 2
        return grid

    def _timings(self, rows: list[list[str]], kept: list[list[QLabel]]) -> QGridLayout:
        """Small figures in a grid (a header row first), each row's labels added to
        ``kept``: the evidence behind the ratios above (the kernels' TFLOP/s, the model's
        examples/s)."""
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(1)
        grid.setColumnStretch(0, 1)
        for r, cells in enumerate(rows):
            labels = []
            for c, text in enumerate(cells):
                label = secondary(QLabel(text))
                if r == 0:
                    label.setStyleSheet("font-weight: 600;")
                align = Qt.AlignmentFlag.AlignLeft if c == 0 else Qt.AlignmentFlag.AlignRight
                grid.addWidget(label, r, c, align | Qt.AlignmentFlag.AlignTop)
                labels.append(label)
            kept.append(labels)
        return grid


def _rule() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


def _mark_sheet(verdict: Verdict, c: ThemeColors) -> str:
    return f"color: {c.verdict[verdict]}; font-weight: 600;"
