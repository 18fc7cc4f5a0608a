"""The File menu: import a dataset, open and save run configs, export the trained
model, save the charts. Each action is a dialog (``ask_*``, replaced in tests) and
a method that does the work with a path, reporting problems in the window."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from mpstudio.engine.datasets.registry import dataset_problems
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.ui import engine_jobs
from mpstudio.ui.engine_thread import Job

if TYPE_CHECKING:
    from mpstudio.ui.main_window import MainWindow

DATA_FILTER = "Datasets (*.npz *.csv);;NumPy archives (*.npz);;CSV tables (*.csv)"
CONFIG_FILTER = "Run configs (*.toml)"
CHART_FILTER = "PNG image (*.png);;SVG image (*.svg)"
MODEL_FILTER = "Keras model (*.keras)"


class FileActions(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        a = window.actions
        a.import_dataset.triggered.connect(self._import_file_dialog)
        a.open_config.triggered.connect(self._open_dialog)
        a.save_config.triggered.connect(self._save_dialog)
        a.export_model.triggered.connect(self._export_dialog)
        a.save_charts.triggered.connect(self._charts_dialog)
        window.setup.dataset.import_file_requested.connect(self._import_file_dialog)
        window.setup.dataset.import_folder_requested.connect(self._import_folder_dialog)
        window.engine.job_finished.connect(self._job_finished)
        window.engine.job_failed.connect(self._job_failed)
        self.folder = str(Path.home())

    # ------------------------------------------------------------- dialogs
    def ask_open_path(self, title: str, file_filter: str) -> str:
        path, _ = QFileDialog.getOpenFileName(self.w, title, self.folder, file_filter)
        return path

    def ask_folder(self, title: str) -> str:
        return QFileDialog.getExistingDirectory(self.w, title, self.folder)

    def ask_save_path(self, title: str, file_filter: str, name: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self.w, title, str(Path(self.folder) / name),
                                              file_filter)
        return path

    def remember(self, path: str) -> str:
        if path:
            self.folder = str(Path(path).parent)
        return path

    def _import_file_dialog(self) -> None:
        path = self.remember(self.ask_open_path("Import a dataset file", DATA_FILTER))
        if path:
            self.import_dataset(path)

    def _import_folder_dialog(self) -> None:
        path = self.remember(self.ask_folder("Import an image folder (one sub-folder a class)"))
        if path:
            self.import_dataset(path)

    def _open_dialog(self) -> None:
        path = self.remember(self.ask_open_path("Open a run config", CONFIG_FILTER))
        if path:
            self.open_config(path)

    def _save_dialog(self) -> None:
        path = self.remember(self.ask_save_path("Save the run config", CONFIG_FILTER, "run.toml"))
        if path:
            self.save_config(path)

    def _export_dialog(self) -> None:
        name = f"{self.w.setup.spec().template}-{self.w.setup.spec().precision}.keras"
        path = self.remember(self.ask_save_path("Export the trained model", MODEL_FILTER, name))
        if path:
            self.export_model(path)

    def _charts_dialog(self) -> None:
        path = self.remember(self.ask_save_path("Save the charts", CHART_FILTER, "charts.png"))
        if path:
            self.save_charts(path)

    # ---------------------------------------------------------------- work
    def import_dataset(self, path: str) -> bool:
        path = str(Path(path).expanduser().resolve())
        problems = dataset_problems(path, {})
        if problems:
            self._problem(f"Cannot import {path}: " + "; ".join(problems))
            return False
        self.w.setup.dataset.add_path(path, {})
        self.w.log.add(f"imported {path}")
        return True

    def open_config(self, path: str) -> bool:
        try:
            spec = RunSpec.load(path)
            problems = spec.problems()
        except SpecError as exc:
            problems = exc.problems
        if problems:
            self._problem(f"Cannot open {path}: " + "; ".join(problems))
            return False
        self.w.load_spec(spec)
        self.w.log.add(f"opened run config {path}")
        return True

    def save_config(self, path: str) -> bool:
        path = _with_suffix(path, ".toml")
        try:
            self.w.setup.spec().save(path)
        except OSError as exc:
            self._problem(f"Cannot save {path}: {exc.strerror or exc}")
            return False
        self.w.log.add(f"saved run config {path} (mpstudio train --config {path} runs it)")
        return True

    def save_charts(self, path: str) -> bool:
        if Path(path).suffix.lower() not in (".png", ".svg"):
            path = _with_suffix(path, ".png")
        try:
            self.w.charts.save(path)
        except (OSError, ValueError) as exc:
            self._problem(f"Cannot save the charts to {path}: {exc}")
            return False
        self.w.log.add(f"saved the charts to {path}")
        return True

    def can_export(self) -> bool:
        outcome = self.w.last_outcome
        return (not self.w.runs.active and outcome is not None and outcome.last is not None
                and not self.w.engine.pending("export"))

    def export_model(self, path: str) -> None:
        """Save the last run's model as .keras on the engine thread (it is TensorFlow work)."""
        outcome = self.w.last_outcome
        if outcome is None or outcome.last is None:
            self._problem("There is no trained model yet: run first")
            return
        target = Path(_with_suffix(path, ".keras"))
        model = outcome.last.model
        run_id = outcome.run_id(outcome.last)

        def export(job: Job) -> int:
            size = engine_jobs.save_keras_model(model, target)
            if run_id is not None:  # History shows where the run's model went
                engine_jobs.record_model_path(run_id, target)
            return size

        job = Job("export", export, describe=f"exporting to {target.name}")
        job.target = target  # type: ignore[attr-defined]
        self.w.engine.submit(job)
        self.w.status_text.setText(f"exporting to {target}…")
        self.w._update_state()

    def _job_finished(self, job: Job, size: object) -> None:
        if job.kind == "export":
            self.w.log.add(f"exported {job.target} ({int(size) / 1e6:.1f} MB)",  # type: ignore
                           "success")
            self.w.status_text.setText(f"exported {job.target}")  # type: ignore[attr-defined]

    def _job_failed(self, job: Job, message: str) -> None:
        if job.kind == "export":
            self._problem(f"Export failed, nothing was written: {message}")

    def _problem(self, text: str) -> None:
        self.w.show_banner(text, "error")
        self.w.log.add(text, "error")


def _with_suffix(path: str, suffix: str) -> str:
    return path if Path(path).suffix.lower() == suffix else path + suffix
