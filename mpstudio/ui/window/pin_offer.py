"""The diverged-run banner's offer: "Keep {layer} in float32 and run again", and after
the pinned run, what pinning cost.

It watches the run's events for the numerics diagnosis; when the run ends diverged and
the diagnosis names a float16 layer that overflowed (pin_advice decides), the button
appears under the banner. A click puts the layers in the setup's "Layers kept in
float32" field (where the user sees and can edit them) and starts the run again. When
a run with pinned layers finishes, the line under the banner sets its speed against
the all-mixed run and float32 from the history (pin_advice, as the command prints it)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from mpstudio.engine.events import NumericsDiagnosis
from mpstudio.engine.pin_advice import layers_to_pin, pin_cost_from_history
from mpstudio.engine.run_session import TrainingOutcome


class PinOffer(QWidget):
    pin_and_run = Signal(list)  # the layers to keep in float32

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.button = QPushButton()
        self.button.setObjectName("pinAndRun")
        self.button.setToolTip(QCoreApplication.translate(
            "PinOffer", "Rebuild the model with this layer computing in float32 (the others "
                        "stay in half precision) from the same initial weights, and train "
                        "again"))
        self.cost = QLabel()
        self.cost.setObjectName("pinCost")
        self.cost.setWordWrap(True)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addWidget(self.cost, 1)
        self._diagnosis: NumericsDiagnosis | None = None
        self._layers: list[str] = []
        self.button.clicked.connect(lambda: self.pin_and_run.emit(list(self._layers)))
        self.hide()

    def clear(self) -> None:
        self._diagnosis = None
        self._layers = []
        self.cost.clear()
        self.hide()

    def watch(self, event: object) -> None:
        if isinstance(event, NumericsDiagnosis):
            self._diagnosis = event

    def offer(self, outcome: TrainingOutcome) -> None:
        """Show the button when a diverged run's diagnosis calls for a pinned layer."""
        diverged = [r for r in outcome.results
                    if r.failure is not None and r.failure.kind == "diverged"]
        layers = layers_to_pin(diverged[-1].spec.float32_layers, self._diagnosis) \
            if diverged else None
        if not layers:
            self.clear()
            return
        self._layers = layers
        self.cost.hide()
        self.button.show()
        self.button.setText(QCoreApplication.translate(
            "PinOffer", "Keep {layer} in float32 and run again").format(layer=layers[-1]))
        self.show()

    def report_cost(self, outcome: TrainingOutcome, store: object | None) -> str | None:
        """After a finished run with pinned layers: its cost line from the history
        (``store``: the window's RunStore), shown here; None when there is none."""
        pinned = [r for r in outcome.results if r.ok and r.spec.float32_layers
                  and r.spec.precision != "float32" and outcome.run_id(r) is not None]
        if not pinned or store is None:
            return None
        try:
            run = store.run(outcome.run_id(pinned[-1]), metrics=False)  # type: ignore[attr-defined]
            line = pin_cost_from_history(store, run)
        except Exception:  # the cost line is extra: a history problem never fails the run
            return None
        if line:
            self.button.hide()
            self.cost.setText(line)
            self.cost.show()
            self.show()
        return line
