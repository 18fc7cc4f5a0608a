"""The precision group's "Layers kept in float32" field: layer names, comma-separated,
that compute in float32 under a mixed policy (the fix for a layer that overflows
float16). The diverged-run banner's button fills it; the user can edit it too."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QFormLayout, QLineEdit, QWidget


class PinnedLayersField(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit()
        self.edit.setObjectName("float32Layers")
        self.edit.setPlaceholderText(QCoreApplication.translate("PinnedLayers", "none"))
        self.edit.setToolTip(QCoreApplication.translate(
            "PinnedLayers", "Layer names, separated by commas, that compute in float32 while "
                            "the rest of the model uses the mixed policy: the fix for a layer "
                            "whose values overflow float16 (the Model table lists the names)"))
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(QCoreApplication.translate("PinnedLayers", "Layers kept in float32"),
                    self.edit)
        self.edit.editingFinished.connect(self.changed.emit)

    def layers(self) -> list[str]:
        return [name.strip() for name in self.edit.text().split(",") if name.strip()]

    def set_layers(self, names: list[str]) -> None:
        self.edit.setText(", ".join(names))

    def set_precision(self, precision: str) -> None:
        """Pinning means something only under a mixed policy."""
        self.setEnabled(precision != "float32")
