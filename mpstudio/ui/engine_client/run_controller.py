"""One training job at a time in the engine process: start, stop, Stop now, events, the end.

Exactly one of ``finished`` or ``failed`` follows every successful ``start``. Stop
asks the engine to end the run before its next batch; when the run is still going
``STUCK_AFTER_SECONDS`` later (tracing, compiling, one long op) the state says
"stuck" and ``stop_now`` ends the engine process. A Stop before the run's first step
ends the engine process at once: nothing is kept yet, and tracing that step can take
seconds that TensorFlow will not cut short (engine/first_step.py). A run the engine
could not finish (Stop now, a crash) is ended in the history by this side, with the
metrics it recorded up to then, because its own process no longer can.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from mpstudio.engine.events import RunFailed, RunFinished, RunStarted
from mpstudio.engine.first_step import FirstStepWatch, stopped_reason
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.engine.service.job_requests import TrainRequest
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.engine.trainer.compare_options import CompareOptions, comparison_problems
from mpstudio.ui.engine_client.engine_client import EngineClient
from mpstudio.ui.engine_client.engine_job import EngineJob
from mpstudio.ui.models.run_progress import RunProgress
from mpstudio.ui.models.workbench_state import STUCK_AFTER_SECONDS, WorkbenchState


class RunController(QObject):
    events = Signal(list)  # a batch of engine events, in order
    finished = Signal(object)  # TrainingOutcome
    failed = Signal(str)  # never trained, stopped before it began, or the engine ended

    def __init__(self, engine: EngineClient, state: WorkbenchState,
                 open_history: Callable[[], RunStore] = RunStore,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.state = state
        self._open_history = open_history
        self.progress = RunProgress()
        self.job: EngineJob[TrainingOutcome] | None = None
        self.open_run_id: int | None = None  # the history row of the run in progress
        self.failure_kind = ""  # the last ``failed``: stopped | crashed | failed
        self._watch = FirstStepWatch()  # the job's: can a Stop end it at once?
        self._ended_at_once = False  # this job's engine was ended by a Stop before step 1
        self._multiworker = False  # its worker process stops with the others, after a step
        self._stuck_timer = QTimer(self)
        self._stuck_timer.setObjectName("stopNowOffer")
        self._stuck_timer.setSingleShot(True)
        self._stuck_timer.setInterval(int(STUCK_AFTER_SECONDS * 1000))
        self._stuck_timer.timeout.connect(self._offer_stop_now)

    @property
    def active(self) -> bool:
        return self.job is not None

    @property
    def stopping(self) -> bool:
        return self.state.run in ("stopping", "stuck")

    def start(self, spec: RunSpec, comparison: CompareOptions | None = None) -> list[str]:
        """Queue the run (or the comparison); returns the problems instead when it
        cannot run."""
        if self.active:
            return [QCoreApplication.translate("RunController",
                                               "a run is already in progress: stop it first")]
        # a server's engine: the data and model files are the server's, checked there
        problems = spec_problems(spec, files_here=self.engine.target.is_local)
        if comparison is not None:
            problems += comparison_problems(spec, comparison.repeats, comparison.baseline)
        if problems:
            return problems
        self.progress = RunProgress(runs_planned=comparison.runs if comparison else 1)
        self.open_run_id = None
        self._watch = FirstStepWatch()
        self._ended_at_once = False
        self._multiworker = spec.distribute.strategy == "multiworker"
        job = self.engine.submit(
            TrainRequest(spec, comparison), describe=f"the {spec.precision} run",
            shown=QCoreApplication.translate("RunController", "the {precision} run")
            .format(precision=spec.precision), parent=self)
        job.events.connect(self._on_events)
        job.on_result(self._on_result)
        job.errored.connect(self._on_error)
        self.job = job
        self.state.update(run="running")
        return []

    def stop(self) -> bool:
        """Before the next batch (and during a download); Stop now after a while. True:
        the run has not finished its first step, and ends now (its engine process is
        ended, as by Stop now)."""
        if self.job is None or self.state.run != "running":
            return False
        self.job.cancel()
        self.state.update(run="stopping")
        if self._can_end_at_once():
            self._end_at_once()
            return True
        self._stuck_timer.start()
        return False

    def _can_end_at_once(self) -> bool:
        return self._watch.nothing_to_keep and not self._multiworker

    def _end_at_once(self) -> None:
        self._ended_at_once = True
        self._stuck_timer.stop()
        self.engine.stop_now()

    def stop_now(self) -> None:
        """End the engine process: the run is recorded as stopped with what it measured."""
        if self.job is not None:
            self.engine.stop_now()

    def _offer_stop_now(self) -> None:
        if self.job is not None and self.state.run == "stopping":
            self.state.update(run="stuck")

    def _on_events(self, batch: list) -> None:
        for event in batch:
            self._watch.see(event)
            kind = type(event)
            if kind is RunStarted:
                self.open_run_id = event.run_id
            elif kind is RunFinished or kind is RunFailed:
                self.open_run_id = None
        self.events.emit(batch)
        # Stop pressed while the data loaded or the model was built (Stop now may be on
        # offer by now): the run has begun tracing its first step, which the stop flag
        # would wait for.
        if (self.job is not None and self.stopping and not self._ended_at_once
                and self._can_end_at_once()):
            self._end_at_once()

    def _on_result(self, outcome: TrainingOutcome) -> None:
        self._ended()
        self.finished.emit(outcome)

    def _on_error(self, message: str) -> None:
        job = self.job
        end = job.engine_end if job is not None else None
        self._ended()
        self.failure_kind = "failed"
        if end is not None and end.requested and self._ended_at_once:
            self.failure_kind = "stopped"
            self._end_open_run("stopped", stopped_reason())
            message = QCoreApplication.translate(
                "RunController", "stopped before the first step: nothing had trained yet, "
                "so the run ended at once; the History lists it as stopped")
        elif end is not None:
            status = "stopped" if end.requested else "failed"
            self._end_open_run(status, end.reason)  # the history keeps English
            if end.requested:
                self.failure_kind = "stopped"
                message = QCoreApplication.translate(
                    "RunController", "stopped now: the engine process was ended; the run is "
                    "kept as stopped with what it measured")
            else:
                self.failure_kind = "crashed"
                message = QCoreApplication.translate(
                    "RunController", "{reason}. The run is marked failed in the history with "
                    "its metrics up to then; a fresh engine is starting and your setup is "
                    "unchanged.").format(reason=end.message)
        elif message == "cancelled":
            self.failure_kind = "stopped"
            message = QCoreApplication.translate("RunController",
                                                 "stopped before the run started")
        self.failed.emit(message)

    def _ended(self) -> None:
        self._stuck_timer.stop()
        self.job = None
        self.state.update(run="idle")

    def _end_open_run(self, status: str, reason: str) -> None:
        run_id, self.open_run_id = self.open_run_id, None
        if run_id is None:
            return
        try:
            with self._open_history() as store:
                store.end_unfinished_run(run_id, status, reason)
        except (HistoryError, sqlite3.Error, OSError):
            pass  # the next start marks it interrupted (its owner process is gone)
