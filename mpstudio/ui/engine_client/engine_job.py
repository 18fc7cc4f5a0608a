"""One piece of work for the engine process, with its own typed signals.

The caller makes the job, connects the signals it cares about and submits it: no
broadcast filtered by kind, nothing patched onto the job. Every job emits
``started`` (unless cancelled while queued), any number of ``events`` (batches, in
order) and ``progress``, then exactly one of ``result`` or ``errored``, then
``finished``. All in the GUI thread.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from mpstudio.engine.service.protocol import DATA_LANE, MAIN_LANE
from mpstudio.ui.engine_client.engine_end import EngineEnd


class _Canceller(Protocol):
    def cancel(self, job: EngineJob) -> None: ...


class EngineJob(QObject):
    started = Signal()
    events = Signal(list)  # engine events since the last batch, oldest first
    progress = Signal(int, int, str)  # done, total (0: unknown), what it is doing
    result = Signal(object)  # the call's return value
    errored = Signal(str)  # a readable line; "cancelled" when cancelled before it ran
    finished = Signal()  # after result or errored

    def __init__(self, call: str, args: dict[str, Any] | None = None, *, describe: str = "",
                 shown: str = "", data_lane: bool = False,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.call = call
        self.args = args or {}
        self.describe = describe or call  # English: "the mixed_float16 run"
        self.shown = shown  # the same in the user's language ("": describe's, looked up)
        self.lane = DATA_LANE if data_lane else MAIN_LANE
        self.job_id: int | None = None
        self.state = "new"  # new | queued | running | done
        self.cancelled = False
        self.engine_end: EngineEnd | None = None  # set when the engine process ended under it
        self._client: _Canceller | None = None  # the client it was submitted to

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
