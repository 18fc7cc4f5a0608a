"""The File menu: import a dataset, open and save run configs, save the charts
(Export model… is export_actions.py's). Each action is a dialog (``ask_*``, replaced
in tests) and a method that does the work with a path, reporting problems in the window.

A dataset is the engine's to read: with the engine on a server, Import… browses the
server's folders (server_browser.py) and the path is not checked on this computer (the
server's engine reads it as soon as it is selected, and says what is wrong with it).
Run configs and charts are this computer's files, wherever the engine is."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject
from PySide6.QtWidgets import QFileDialog

from mpstudio.engine.datasets.registry import dataset_problems
from mpstudio.engine.datasets.user_sources import SUFFIXES
from mpstudio.engine.report.files import ReportError
from mpstudio.engine.spec import SpecError
from mpstudio.engine.spec_checks import load_spec, spec_problems
from mpstudio.ui.window.server_browser import ServerBrowser

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from mpstudio.ui.charts.live_charts import LiveCharts
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.setup.setup_panel import SetupPanel
    from mpstudio.ui.window.window_actions import WindowActions

# The file dialogs' filters, translated where shown (the patterns stay as they are)
DATA_FILTER = QT_TRANSLATE_NOOP(
    "FileActions", "Datasets (*.npz *.csv);;NumPy archives (*.npz);;CSV tables (*.csv)")
CONFIG_FILTER = QT_TRANSLATE_NOOP("FileActions", "Run configs (*.toml)")
CHART_FILTER = QT_TRANSLATE_NOOP("FileActions", "PNG image (*.png);;SVG image (*.svg)")
DATA_SUFFIXES = tuple(SUFFIXES)  # the dataset files the server's dialog lists


def tr(text: str) -> str:
    """A FileActions string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("FileActions", text)


class FileActions(QObject):
    def __init__(self, notices: Notices, setup: SetupPanel, charts: LiveCharts,
                 actions: WindowActions, window: QWidget, engine: EngineClient) -> None:
        super().__init__(window)
        self.notices, self.setup, self.charts = notices, setup, charts
        self.window = window  # the file dialogs' parent
        self.server = ServerBrowser(engine, window)  # the engine's files, on a server
        a = actions
        a.import_dataset.triggered.connect(self._import_file_dialog)
        a.open_config.triggered.connect(self._open_dialog)
        a.save_config.triggered.connect(self._save_dialog)
        a.save_charts.triggered.connect(self._charts_dialog)
        setup.dataset.import_file_requested.connect(self._import_file_dialog)
        setup.dataset.import_folder_requested.connect(self._import_folder_dialog)
        self.folder = str(Path.home())

    # ------------------------------------------------------------- dialogs
    def ask_open_path(self, title: str, file_filter: str) -> str:
        path, _ = QFileDialog.getOpenFileName(self.window, title, self.folder, file_filter)
        return path

    def ask_folder(self, title: str) -> str:
        return QFileDialog.getExistingDirectory(self.window, title, self.folder)

    def ask_save_path(self, title: str, file_filter: str, name: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self.window, title, str(Path(self.folder) / name),
                                              file_filter)
        return path

    def remember(self, path: str) -> str:
        if path:
            self.folder = str(Path(path).parent)
        return path

    def _import_file_dialog(self) -> None:
        title = QCoreApplication.translate("FileActions", "Import a dataset file")
        if self.server.open_file(title, DATA_SUFFIXES,
                                 lambda path: self.import_dataset(path, is_folder=False)):
            return  # the server's: its dialog imports what is picked
        path = self.remember(self.ask_open_path(title, tr(DATA_FILTER)))
        if path:
            self.import_dataset(path)

    def _import_folder_dialog(self) -> None:
        title = QCoreApplication.translate(
            "FileActions", "Import an image folder (one sub-folder a class)")
        if self.server.open_folder(title,
                                   lambda path: self.import_dataset(path, is_folder=True)):
            return
        path = self.remember(self.ask_folder(title))
        if path:
            self.import_dataset(path)

    def _open_dialog(self) -> None:
        path = self.remember(self.ask_open_path(
            QCoreApplication.translate("FileActions", "Open a run config"), tr(CONFIG_FILTER)))
        if path:
            self.open_config(path)

    def _save_dialog(self) -> None:
        path = self.remember(self.ask_save_path(
            QCoreApplication.translate("FileActions", "Save the run config"),
            tr(CONFIG_FILTER), "run.toml"))
        if path:
            self.save_config(path)

    def _charts_dialog(self) -> None:
        path = self.remember(self.ask_save_path(
            QCoreApplication.translate("FileActions", "Save the charts"), tr(CHART_FILTER),
            "charts.png"))
        if path:
            self.save_charts(path)

    # ---------------------------------------------------------------- work
    def import_dataset(self, path: str, is_folder: bool | None = None) -> bool:
        """Add ``path`` to the datasets and select it. With the engine on a server,
        ``path`` is the server's (``is_folder``: what its dialog said it is): neither
        resolved nor checked here, where it is not."""
        if not self.server.remote:
            path = str(Path(path).expanduser().resolve())
            problems = dataset_problems(path, {})
            if problems:
                self._problem(QCoreApplication.translate(
                    "FileActions", "Cannot import {path}: {problems}").format(
                        path=path, problems=_joined(problems)))
                return False
        self.setup.dataset.add_path(path, {}, is_folder=is_folder)
        self.notices.log(QCoreApplication.translate("FileActions", "imported {path}").format(
            path=path))
        return True

    def open_config(self, path: str) -> bool:
        try:
            spec = load_spec(path)
            problems = spec_problems(spec, files_here=not self.server.remote)
        except SpecError as exc:
            problems = exc.problems
        if problems:
            self._problem(QCoreApplication.translate(
                "FileActions", "Cannot open {path}: {problems}").format(
                    path=path, problems=_joined(problems)))
            return False
        self.setup.set_spec(spec)
        self.notices.log(QCoreApplication.translate(
            "FileActions", "opened run config {path}").format(path=path))
        return True

    def save_config(self, path: str) -> bool:
        path = _with_suffix(path, ".toml")
        try:
            self.setup.spec().save(path)
        except OSError as exc:
            self._problem(QCoreApplication.translate(
                "FileActions", "Cannot save {path}: {reason}").format(
                    path=path, reason=exc.strerror or exc))
            return False
        self.notices.log(QCoreApplication.translate(
            "FileActions", "saved run config {path} (mpstudio train --config {path} runs "
            "it)").format(path=path))
        return True

    def save_charts(self, path: str) -> bool:
        if Path(path).suffix.lower() not in (".png", ".svg"):
            path = _with_suffix(path, ".png")
        try:
            self.charts.save(path)
        except ReportError as exc:  # names the file and what to do
            self._problem(str(exc))
            return False
        except (OSError, ValueError) as exc:
            self._problem(QCoreApplication.translate(
                "FileActions", "Cannot save the charts to {path}: {reason}").format(
                    path=path, reason=exc))
            return False
        self.notices.log(QCoreApplication.translate(
            "FileActions", "saved the charts to {path}").format(path=path))
        return True

    def _problem(self, text: str) -> None:
        self.notices.banner(text, "error")
        self.notices.log(text, "error")


def _joined(problems: list[str]) -> str:
    return QCoreApplication.translate("FileActions", "; ").join(problems)


def _with_suffix(path: str, suffix: str) -> str:
    return path if Path(path).suffix.lower() == suffix else path + suffix
