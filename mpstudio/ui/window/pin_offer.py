"""The diverged-run banner's offer: "Keep {layer} in float32 and run again".

It watches the run's events for the numerics diagnosis; when the run ends diverged and
the diagnosis names a float16 layer that overflowed (pin_advice decides), the button
appears under the banner. A click puts the layers in the setup's "Layers kept in
float32" field (where the user sees and can edit them) and starts the run again."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from mpstudio.engine.events import NumericsDiagnosis
from mpstudio.engine.pin_advice import layers_to_pin
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
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addStretch(1)
        self._diagnosis: NumericsDiagnosis | None = None
        self._layers: list[str] = []
        self.button.clicked.connect(lambda: self.pin_and_run.emit(list(self._layers)))
        self.hide()

    def clear(self) -> None:
        self._diagnosis = None
        self._layers = []
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
        self.button.setText(QCoreApplication.translate(
            "PinOffer", "Keep {layer} in float32 and run again").format(layer=layers[-1]))
        self.show()
