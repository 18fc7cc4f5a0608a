"""What a hardware check changes outside the Hardware panel: the setup's verdict marks
and its pick of precision, its payoff line once its model is measured, the strategies
it offers, the status bar's device, and on a first launch a word on the comparison the
first run makes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from mpstudio.engine.distribute.options import strategy_options
from mpstudio.engine.hardware.advisor import best_half_policy
from mpstudio.ui.setup.verdict_marks import verdict_marks

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.setup.setup_panel import SetupPanel


class CheckAdvice:
    def __init__(self, setup: SetupPanel, device_label: QLabel, notices: Notices) -> None:
        self.setup, self.device_label, self.notices = setup, device_label, notices
        self._first_told = False  # a first launch's comparison was explained
        # only the default strategy until a check says what else there is
        setup.set_strategy_options(strategy_options(None, os.environ), os.environ)

    def show(self, check: HardwareCheck) -> None:
        advice = check.advice
        setup = self.setup
        first = setup.first_comparison and not setup.precision_picked
        selected = (first and best_half_policy(advice)) or advice.run_policy
        setup.set_verdicts(verdict_marks(advice, advice.run_device), advice.run_device,
                           selected)
        setup.set_strategy_options(strategy_options(check.report, os.environ), os.environ)
        timed = check.model_measurement
        setup.layers.set_measurement(timed, check.predicted_speedups(timed.device)
                                     if timed is not None else None)
        self.device_label.setText(QCoreApplication.translate("MainWindow", "device: {device}")
                                  .format(device=advice.run_description or advice.run_device))
        if first and selected != "float32" and not self._first_told:
            self._first_told = True
            text = QCoreApplication.translate(
                "CheckAdvice", "Your first run compares {policy} with float32 on {device}: "
                "speed, memory and accuracy side by side, with a verdict on whether mixed "
                "precision pays here ({recommended} is recommended). Untick Compare with "
                "float32 for a single run.").format(
                    policy=selected, device=advice.run_description or advice.run_device,
                    recommended=advice.run_policy)
            self.notices.banner(text, "info")
            self.notices.log(text, "note")
