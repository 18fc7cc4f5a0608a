"""The handle of one piece of work in the engine process, with its own signals.

``EngineClient.submit(request)`` makes it: an ``EngineJob[R]`` for a
``JobRequest[R]``, whose result is an ``R`` (``on_result`` takes a callback typed so).
The caller connects what it cares about: no broadcast filtered by kind, nothing
patched onto the job. Every job emits ``started`` (unless cancelled while queued), any
number of ``events`` (batches, in order) and ``progress``, then exactly one of
``result`` or ``errored``, then ``finished``. All in the GUI thread, from its event
loop, never inside ``submit``: connecting right after submitting misses nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import QObject, Signal

from mpstudio.engine.service.job_requests import JobRequest
from mpstudio.ui.engine_client.engine_end import EngineEnd

R = TypeVar("R")


class _Canceller(Protocol):
    def cancel(self, job: EngineJob[Any]) -> None: ...


class EngineJob(QObject, Generic[R]):
    started = Signal()
    events = Signal(list)  # engine events since the last batch, oldest first
    progress = Signal(int, int, str)  # done, total (0: unknown), what it is doing
    result = Signal(object)  # an R: the request's result (on_result connects typed)
    errored = Signal(str)  # a readable line; "cancelled" when cancelled before it ran
    finished = Signal()  # after result or errored

    def __init__(self, request: JobRequest[R], *, describe: str = "", shown: str = "",
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.describe = describe or request.what or type(request).__name__  # English
        self.shown = shown  # the same in the user's language ("": describe's, looked up)
        self.lane = request.lane
        self.job_id: int | None = None
        self.state = "new"  # new | queued | running | done
        self.cancelled = False
        self.engine_end: EngineEnd | None = None  # set when the engine process ended under it
        self._client: _Canceller | None = None  # the client it was submitted to

    def on_result(self, callback: Callable[[R], object]) -> None:
        """``callback(result)`` once the job has returned, typed by its request."""
        self.result.connect(callback)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def cancel(self) -> None:
        """Ask the job to stop: a queued job never starts; a running one polls its flag
        (a run stops before its next batch)."""
        if self.state == "done" or self.cancelled:
            return
        self.cancelled = True
        if self._client is not None and self.job_id is not None:
            self._client.cancel(self)

    def __repr__(self) -> str:
        return f"EngineJob({self.describe!r}, {self.state})"
