"""Everything one hardware check found, top to bottom: the recommendation, a card
per device with its verdicts, the advice, and TensorFlow's build.

Built once per check and replaced whole by the next one, so nothing of an older
check can linger in a corner of the panel.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget

from mpstudio.engine.hardware.advisor import Advice
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.said import render
from mpstudio.engine.templates.user_model import model_name
from mpstudio.ui.hardware.device_card import DeviceCard, facts_grid
from mpstudio.ui.hardware.hardware_facts import build_facts, cpu_facts, gpu_facts, tpu_facts
from mpstudio.ui.theme import LIGHT, ThemeColors, colors
from mpstudio.ui.themed import follow_theme, themed_sheet
from mpstudio.ui.widgets.panel_labels import heading, secondary, wrapped_label

GREEN = LIGHT.verdict[Verdict.RECOMMENDED]  # the recommendation's bar: both themes


def recommendation_html(advice: Advice, palette: ThemeColors | None = None) -> str:
    """The recommendation, its policy in the colour of a recommended verdict (the
    theme's in force, or ``palette``'s)."""
    if not advice.run_policy:
        return "<b>{}</b>".format(html.escape(QCoreApplication.translate(
            "CheckView", "No precision policy runs on this machine.")))
    sentence = html.escape(QCoreApplication.translate(
        "CheckView", "Recommended here: {policy} on {device}"))
    green = (palette or colors()).verdict[Verdict.RECOMMENDED]
    return "<span style='font-size:large'>{}</span>".format(sentence.format(
        policy=f"<b style='color:{green}'>{html.escape(advice.run_policy)}</b>",
        device=f"<b>{html.escape(advice.run_device)}</b>"))


def measurement_summary(check: HardwareCheck) -> str:
    model = check.model_measurement
    if model is not None and not check.stopped:
        return QCoreApplication.translate(
            "CheckView", "Verdicts on {device} use your model as measured here ({model} at "
            "batch {batch}); ratios are the speed against float32.").format(
                device=model.device, model=model_name(model.template), batch=model.batch_size)
    if check.stopped:
        return QCoreApplication.translate(
            "CheckView", "The measurement was stopped early: the verdicts use what was "
            "measured and the hardware rules for the rest.")
    if check.measurements:
        return QCoreApplication.translate(
            "CheckView", "Verdicts use the measurement: ratios are the speed against float32 "
            "here.")
    return QCoreApplication.translate(
        "CheckView", "Verdicts come from what the hardware is. Measure times matmul and conv "
        "in each precision on every device, then your model on this machine (about 20-30 "
        "s).")


class CheckView(QWidget):
    """The result of one check; ``cards`` in the order the panel shows them."""

    def __init__(self, check: HardwareCheck, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        report, advice = check.report, check.advice
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)

        banner = QFrame()
        banner.setObjectName("recommendation")
        banner.setStyleSheet(f"QFrame#recommendation {{ border-left: 4px solid {GREEN}; }}")
        banner_layout = QVBoxLayout(banner)
        banner_layout.setContentsMargins(10, 2, 0, 2)
        self.recommendation_label = wrapped_label(rich=True)
        follow_theme(self.recommendation_label,
                     lambda label, c: label.setText(recommendation_html(advice, c)))
        self.reason_label = wrapped_label(QCoreApplication.translate(
            "CheckView", "{device} — {reason}").format(device=render(advice.run_description),
                                                      reason=render(advice.run_reason)))
        banner_layout.addWidget(self.recommendation_label)
        banner_layout.addWidget(self.reason_label)
        layout.addWidget(banner)

        self.measurement_label = secondary(wrapped_label(measurement_summary(check)))
        if check.stopped:
            themed_sheet(self.measurement_label,
                         lambda c: f"color: {c.verdict[Verdict.SLOWER]};")
        layout.addWidget(self.measurement_label)

        layout.addWidget(heading(QCoreApplication.translate("CheckView", "Devices")))
        self.cards = self._cards(check)
        for card in self.cards:
            layout.addWidget(card)

        layout.addWidget(heading(QCoreApplication.translate("CheckView", "Advice")))
        self.tip_labels = []
        tip_html = html.escape(QCoreApplication.translate("CheckView", "{title}. {text}"))
        for title, text in advice.tips:
            tip = wrapped_label(tip_html.replace("{title}", "<b>{title}</b>", 1).format(
                title=html.escape(render(title)), text=html.escape(render(text))), rich=True)
            self.tip_labels.append(tip)
            layout.addWidget(tip)

        layout.addWidget(heading("TensorFlow"))
        self.build_rows = build_facts(report)
        layout.addLayout(facts_grid(self.build_rows))

    @staticmethod
    def _cards(check: HardwareCheck) -> list[DeviceCard]:
        report, advice = check.report, check.advice
        measured = {m.device: m for m in check.measurements}
        timed = check.model_measurement

        def model(device: str, usable: bool = True) -> dict[str, Any]:
            """The setup's model timed on ``device`` (a card's keyword arguments)."""
            if timed is None or timed.device != device or not usable:
                return {}
            return {"model": timed, "predicted": check.predicted_speedups(device)}

        cards = []
        # The advice lists the GPUs first, in the report's order (two unused GPUs
        # share one label, so pair them by position, not by name).
        for gpu, device in zip(report.gpus, advice.devices, strict=False):
            cards.append(DeviceCard(
                gpu.label, gpu.name, gpu_facts(gpu), device, measured.get(device.device),
                run_device=device.device == advice.run_device,
                unusable_reason="" if gpu.visible_to_tensorflow else gpu.not_visible_reason,
                **model(device.device, gpu.visible_to_tensorflow)))
        if report.tpu.found:
            device = advice.device("TPU")
            cards.append(DeviceCard("TPU", report.tpu.accelerator_type or "", tpu_facts(
                report.tpu), device, measured.get("TPU"), run_device=advice.run_device == "TPU"))
        device = advice.device("CPU")
        cards.append(DeviceCard("CPU", report.cpu.model, cpu_facts(report.cpu), device,
                                measured.get("CPU"), run_device=advice.run_device == "CPU",
                                **model("CPU")))
        return cards
