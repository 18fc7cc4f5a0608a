"""One background thread for engine work, so the GUI thread never waits on TensorFlow.

Every TensorFlow job (the import, the hardware check, a model preview, a training
run, an export) runs on the same QThread, one after another. Keras' dtype policy is
process-global while a model is built, so two jobs building models at once could
give each other's layers the wrong policy; one serial queue rules that out.

The thread's ``run()`` is one long Python call that takes jobs from a queue. The
usual worker-object recipe (slots invoked by queued signals) is not safe here:
PySide creates and drops the thread's Python state around every slot call, and
TensorFlow's pybind11 code caches that state on first use; the next job then
frees it twice and the process aborts ("double free or corruption" from
pybind11::gil_scoped_acquire in TF 2.21). Results go back through signals of
the QThread object, which lives in the GUI thread, so Qt queues them there.
"""

from __future__ import annotations

import logging
import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

log = logging.getLogger(__name__)


class JobCancelled(Exception):
    """A job that was cancelled before it ran (the app is closing, or it was superseded)."""


class Job:
    """One piece of engine work. ``fn(job)`` runs on the engine thread; it may poll
    ``job.cancelled`` (set from any thread) to end early."""

    def __init__(self, kind: str, fn: Callable[[Job], Any], describe: str = "") -> None:
        self.kind = kind  # "tensorflow", "hardware", "preview", "run", "export"...
        self.fn = fn
        self.describe = describe or kind
        self._cancel = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def __repr__(self) -> str:
        return f"Job({self.describe!r})"


class _JobLoop(QThread):
    started_job = Signal(object)  # job
    finished_job = Signal(object, object)  # job, result
    failed_job = Signal(object, str)  # job, message for people

    def __init__(self) -> None:
        super().__init__()
        self.jobs: queue.Queue[Job | None] = queue.Queue()

    def run(self) -> None:
        while (job := self.jobs.get()) is not None:
            self._execute(job)

    def _execute(self, job: Job) -> None:
        if job.cancelled:
            self.failed_job.emit(job, "cancelled")
            return
        self.started_job.emit(job)
        try:
            result = job.fn(job)
        except JobCancelled:
            self.failed_job.emit(job, "cancelled")
        except Exception as exc:  # a job ends with a message, never takes the app down
            log.error("%s failed:\n%s", job.describe, traceback.format_exc())
            self.failed_job.emit(job, failure_message(job, exc))
        else:
            self.finished_job.emit(job, result)


def failure_message(job: Job, exc: BaseException) -> str:
    """A readable line: engine errors already say what to do; others get their type."""
    from mpstudio.engine.spec import SpecError

    if isinstance(exc, SpecError):
        return "; ".join(exc.problems)
    known = {"RunSetupError", "DataLoadStopped", "DataError", "DownloadError", "SettingsError",
             "ExportError"}
    if type(exc).__name__ in known:
        return str(exc)
    if isinstance(exc, MemoryError):
        return f"{job.describe} ran out of memory: close other programs or pick something smaller"
    return f"{job.describe} failed: {type(exc).__name__}: {exc}"


class EngineThread(QObject):
    """Owns the engine's QThread. ``submit`` queues a job; signals report back in the
    GUI thread. ``shutdown`` cancels what is queued and joins the thread."""

    job_started = Signal(object)
    job_finished = Signal(object, object)
    job_failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None, name: str = "mpstudio-engine") -> None:
        super().__init__(parent)
        self._thread = _JobLoop()
        self._thread.setObjectName(name)
        self._thread.started_job.connect(self._on_started)
        self._thread.finished_job.connect(self._on_finished)
        self._thread.failed_job.connect(self._on_failed)
        self._queued: list[Job] = []
        self._current: Job | None = None
        self._thread.start()

    # ------------------------------------------------------------------ API
    def submit(self, job: Job) -> Job:
        if not self._thread.isRunning():
            raise RuntimeError("the engine thread has been shut down")
        self._queued.append(job)
        self._thread.jobs.put(job)
        return job

    @property
    def current(self) -> Job | None:
        return self._current

    @property
    def busy(self) -> bool:
        return self._current is not None or bool(self._queued)

    def pending(self, kind: str) -> list[Job]:
        """Jobs of ``kind`` queued or running."""
        jobs = [*self._queued, *([self._current] if self._current else [])]
        return [j for j in jobs if j.kind == kind]

    def cancel_all(self) -> None:
        for job in [*self._queued, *([self._current] if self._current else [])]:
            job.cancel()

    def shutdown(self, wait_ms: int = -1) -> bool:
        """Cancel everything and stop the thread; True once it has ended. The running
        job must notice its cancel flag (a run stops within one batch)."""
        self.cancel_all()
        self._thread.jobs.put(None)  # ends the loop after the (cancelled) jobs before it
        finished = self._thread.wait() if wait_ms < 0 else self._thread.wait(wait_ms)
        return bool(finished)

    @property
    def running(self) -> bool:
        return self._thread.isRunning()

    # ------------------------------------------------------ worker signals
    def _on_started(self, job: Job) -> None:
        self._current = job
        if job in self._queued:
            self._queued.remove(job)
        self.job_started.emit(job)

    def _on_finished(self, job: Job, result: object) -> None:
        self._done(job)
        self.job_finished.emit(job, result)

    def _on_failed(self, job: Job, message: str) -> None:
        self._done(job)
        self.job_failed.emit(job, message)

    def _done(self, job: Job) -> None:
        if job in self._queued:
            self._queued.remove(job)
        if self._current is job:
            self._current = None
