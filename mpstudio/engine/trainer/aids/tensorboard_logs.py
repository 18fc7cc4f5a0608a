"""TensorBoard logs (``aids.tensorboard``): every later event of the run also goes
into TensorBoard event files in the recorded run's own folder (tensorboard_log)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mpstudio.engine.events import Reporter, RunSummary, RunWarning
from mpstudio.engine.i18n import _
from mpstudio.engine.tensorboard_log import LOGS_FOLDER, TensorBoardReporter
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.run_setup import PreparedRun


def run_folder_of(reporter: Reporter) -> Path | None:
    """The recorded run's own folder (RecordingReporter knows it), else None."""
    folder = getattr(reporter, "run_folder", None)
    return folder() if callable(folder) else None


class TensorBoardLogs(TrainingAid):
    def __init__(self, logs: TensorBoardReporter) -> None:
        self.logs = logs

    @classmethod
    def attach(cls, run: PreparedRun) -> TensorBoardLogs | None:
        if not run.spec.aids.tensorboard:
            return None
        folder = run_folder_of(run.reporter)
        if folder is None:
            run.reporter.emit(RunWarning(_("TensorBoard logs are written into the recorded "
                                           "run's folder, and this run is not recorded here "
                                           "(another worker records it, or the history is "
                                           "off)")))
            return None
        logs = TensorBoardReporter(run.reporter, folder / LOGS_FOLDER)
        run.route_events(logs)
        return cls(logs)

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        return dataclasses.replace(summary, tensorboard_dir=str(self.logs.logdir))

    def close(self) -> None:
        self.logs.close()  # after the last event, which flushes the files
