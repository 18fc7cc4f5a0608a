"""One training job at a time on the engine thread: start, stop, events, the end.

The engine's events arrive through an EventRelay (coalesced, queued to the GUI
thread); ``events`` hands them on in batches. Exactly one of ``finished`` or
``failed`` follows every successful ``start``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare_options import CompareOptions, comparison_problems
from mpstudio.ui import engine_jobs
from mpstudio.ui.engine_jobs import TrainingOutcome
from mpstudio.ui.engine_thread import EngineThread, Job
from mpstudio.ui.event_relay import EventRelay
from mpstudio.ui.run_progress import RunProgress


class RunController(QObject):
    events = Signal(list)  # a batch of engine events, in order
    finished = Signal(object)  # TrainingOutcome
    failed = Signal(str)  # the run never trained: a spec problem, a data or setup error

    def __init__(self, engine: EngineThread, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.relay = EventRelay(self)
        self.relay.ready.connect(self._drain)
        self.progress = RunProgress()
        self.job: Job | None = None
        self.stopping = False
        engine.job_finished.connect(self._job_finished)
        engine.job_failed.connect(self._job_failed)

    @property
    def active(self) -> bool:
        return self.job is not None

    def start(self, spec: RunSpec, comparison: CompareOptions | None = None) -> list[str]:
        """Queue the run (or the comparison); returns the problems instead when it
        cannot run."""
        if self.active:
            return ["a run is already in progress: stop it first"]
        problems = spec.problems()
        if comparison is not None:
            problems += comparison_problems(spec, comparison.repeats, comparison.baseline)
        if problems:
            return problems
        self.relay.reset()
        self.stopping = False
        self.progress = RunProgress(runs_planned=comparison.runs if comparison else 1)
        relay = self.relay
        self.job = self.engine.submit(
            Job("run", lambda job: engine_jobs.train(spec, comparison, relay),
                describe=f"the {spec.precision} run")
        )
        return []

    def stop(self) -> None:
        """The engine polls the stop flag once per batch (and during a download)."""
        if self.job is not None:
            self.stopping = True
            self.relay.stop()
            self.job.cancel()

    def _drain(self) -> None:
        batch = self.relay.drain()
        if batch:
            self.events.emit(batch)

    def _job_finished(self, job: Job, outcome: object) -> None:
        if job is not self.job:
            return
        self._drain()  # the last events (RunFinished) before the end
        self.job = None
        assert isinstance(outcome, TrainingOutcome)
        self.finished.emit(outcome)

    def _job_failed(self, job: Job, message: str) -> None:
        if job is not self.job:
            return
        self._drain()
        self.job = None
        self.failed.emit("stopped before the run started" if message == "cancelled" else message)
