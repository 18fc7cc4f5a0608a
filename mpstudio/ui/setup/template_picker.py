"""The Model group's template choice: the built-in templates, and the user's own models
saved as .keras files ("Open .keras…"), each listed by its file name with its path as
the tip; a run spec's template is then the file's path. With the engine on a server the
file is the server's: the window's ``browse_remote`` opens its dialog instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QComboBox, QFileDialog, QHBoxLayout, QPushButton, QWidget

from mpstudio.engine.templates.user_model import MODEL_SUFFIX, is_model_file

# (title, suffixes, then): opens the server's file dialog, which calls then(path), and
# says True, while the engine is on a server; False: this computer's dialog is the one
BrowseRemote = Callable[[str, tuple[str, ...], Callable[[str], object]], bool]


class TemplatePicker(QWidget):
    def __init__(self, combo: QComboBox, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = combo
        self.browse_remote: BrowseRemote | None = None  # set by the window
        self.open_button = QPushButton(QCoreApplication.translate(
            "TemplatePicker", "Open .&keras…"))
        self.open_button.setObjectName("openModelFile")
        self.open_button.setToolTip(QCoreApplication.translate(
            "TemplatePicker", "Train your own model saved with `model.save(\"name.keras\")`: "
            "its layers and weights under the precision chosen, its last layer in float32 "
            "(also `--template name.keras`)"))
        self.open_button.clicked.connect(self.choose_file)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(combo, 1)
        layout.addWidget(self.open_button)

    def current(self) -> str:
        return str(self.combo.currentData())

    def select(self, template: str) -> None:
        """Show ``template``: a built-in one by name, a model file by its path (listed
        first if it is new)."""
        index = self.combo.findData(template)
        if index < 0 and is_model_file(template):
            self.combo.addItem(Path(template).name, template)
            index = self.combo.count() - 1
            self.combo.setItemData(index, template, Qt.ItemDataRole.ToolTipRole)
        if index >= 0:
            self.combo.setCurrentIndex(index)

    def choose_file(self) -> str | None:
        """This computer's model file, picked and shown; None when none was, or when the
        server's dialog opened instead (it shows the server's file once picked)."""
        title = QCoreApplication.translate("TemplatePicker", "Open a Keras model")
        if self.browse_remote is not None and self.browse_remote(
                title, (MODEL_SUFFIX,), self.select):
            return None  # the server's path as it names it: not resolved here
        path, _filter = QFileDialog.getOpenFileName(
            self, title, "",
            QCoreApplication.translate("TemplatePicker", "Keras model (*{suffix})").format(
                suffix=MODEL_SUFFIX))
        if not path:
            return None
        self.select(str(Path(path).resolve()))
        return path
