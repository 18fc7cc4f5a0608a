"""The dataset choice: the registry's sources, the user's imported files and folders,
and a short summary of what the selected one holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine import i18n
from mpstudio.engine.datasets.registry import (
    availability,
    dataset_entry,
    dataset_names,
    is_registered,
)
from mpstudio.engine.datasets.report import DataReport
from mpstudio.ui.themed import set_role

MAX_RECENT = 8
# The data's kind in words (context "DatasetPicker"); the keys stay English.
KIND_TEXT = {"image": QT_TRANSLATE_NOOP("DatasetPicker", "image"),
             "sequence": QT_TRANSLATE_NOOP("DatasetPicker", "sequence"),
             "flat": QT_TRANSLATE_NOOP("DatasetPicker", "flat")}


def describe_report(report: DataReport, validation_split: float) -> str:
    """Two short lines: how much data, what shape, how many classes, where from."""
    shape = "x".join(map(str, report.input_shape))
    val = int(report.train_samples * validation_split)
    test = QCoreApplication.translate("DatasetPicker", ", {count} test").format(
        count=f"{report.test_samples:,}") if report.test_samples else ""
    kind = KIND_TEXT.get(report.kind)
    return QCoreApplication.translate(
        "DatasetPicker",
        "{train} train / {validation} validation{test} · {kind} {shape} · {classes} classes"
    ).format(train=f"{report.train_samples - val:,}", validation=f"{val:,}", test=test,
             kind=QCoreApplication.translate("DatasetPicker", kind) if kind else report.kind,
             shape=shape, classes=report.num_classes) + f"\n{report.origin}"


class DatasetPicker(QWidget):
    changed = Signal()  # the selected dataset changed
    import_file_requested = Signal()
    import_folder_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setObjectName("dataset")
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        for name in dataset_names():
            self.combo.addItem(self._registered_text(name), name)
            self.combo.setItemData(  # the engine's words (N_ there), translated here
                self.combo.count() - 1, i18n._(dataset_entry(name).description),
                Qt.ItemDataRole.ToolTipRole)
        self.import_button = QPushButton(QCoreApplication.translate("DatasetPicker", "Import…"))
        self.import_button.setToolTip(QCoreApplication.translate(
            "DatasetPicker", "Train on your own data: an .npz or .csv file, "
            "or a folder of images with one sub-folder per class"))
        menu = QMenu(self.import_button)
        menu.addAction(QCoreApplication.translate("DatasetPicker", "Data file (.npz, .csv)…"),
                       self.import_file_requested.emit)
        menu.addAction(QCoreApplication.translate("DatasetPicker", "Image folder…"),
                       self.import_folder_requested.emit)
        self.import_button.setMenu(menu)
        self.summary = QLabel()
        self.summary.setObjectName("datasetSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_role(self.summary, "hint")

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(self.import_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        self._options: dict[str, dict[str, Any]] = {}  # a user path -> its reading options
        self.combo.currentIndexChanged.connect(lambda _i: self.changed.emit())

    @staticmethod
    def _registered_text(name: str) -> str:
        detail = QCoreApplication.translate("DatasetPicker", "bundled") \
            if availability(name).offline else QCoreApplication.translate("DatasetPicker",
                                                                          "download")
        origin = dataset_entry(name).origin
        if origin == "generated":
            detail = QCoreApplication.translate("DatasetPicker", "generated")
        elif origin == "download" and availability(name).offline:
            detail = QCoreApplication.translate("DatasetPicker", "downloaded")
        return f"{name}  ({detail})"

    # ------------------------------------------------------------------ API
    def dataset(self) -> str:
        return str(self.combo.currentData())

    def options(self) -> dict[str, Any]:
        return dict(self._options.get(self.dataset(), {}))

    def set_dataset(self, dataset: str, options: dict[str, Any] | None = None) -> None:
        """Select ``dataset`` (a registered name or a path), adding a path if new."""
        if not is_registered(dataset):
            self.add_path(dataset, options or {}, select=False)
        index = self.combo.findData(dataset)
        if index >= 0:
            self.combo.setCurrentIndex(index)

    def add_path(self, path: str, options: dict[str, Any], select: bool = True,
                 is_folder: bool | None = None) -> None:
        """``is_folder``: what ``path`` is, where it is not on this computer (a server's);
        None: looked at here."""
        self._options[path] = dict(options)
        if self.combo.findData(path) < 0:
            p = Path(path)
            folder = p.is_dir() if is_folder is None else is_folder
            kind = QCoreApplication.translate("DatasetPicker", "folder") if folder \
                else QCoreApplication.translate("DatasetPicker", "file")
            self.combo.addItem(f"{p.name}  ({kind})", path)
            self.combo.setItemData(self.combo.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
            self._forget_oldest()
        if select:
            self.combo.setCurrentIndex(self.combo.findData(path))

    def user_paths(self) -> list[str]:
        """The imported paths, oldest first (persisted between launches)."""
        items = (str(self.combo.itemData(i)) for i in range(self.combo.count()))
        return [d for d in items if not is_registered(d)]

    def path_options(self) -> dict[str, dict[str, Any]]:
        return {p: dict(self._options.get(p, {})) for p in self.user_paths()}

    def refresh_labels(self) -> None:
        """After a download the item says 'downloaded'."""
        for i in range(self.combo.count()):
            data = str(self.combo.itemData(i))
            if is_registered(data):
                self.combo.setItemText(i, self._registered_text(data))

    def set_summary(self, text: str, problem: bool = False) -> None:
        self.summary.setText(text)
        set_role(self.summary, "error" if problem else "hint")

    def _forget_oldest(self) -> None:
        paths = self.user_paths()
        current = self.dataset()
        for path in paths[: max(0, len(paths) - MAX_RECENT)]:
            if path != current:
                self.combo.removeItem(self.combo.findData(path))
                self._options.pop(path, None)
