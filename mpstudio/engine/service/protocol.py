"""The messages between the window and its engine process (pickled over a pipe).

The window sends ``Submit``/``Cancel``/``Shutdown``; the engine answers with
``EngineReady`` once TensorFlow is loaded (or ``EngineLoadFailed``), after an
``EngineStarting`` where the start will be slow, then per job
``JobStarted``, any number of ``JobEvent``/``JobProgress`` and exactly one of
``JobResult`` or ``JobFailed``. Payloads are the engine's own plain dataclasses
(events, reports, outcomes): nothing that holds a tensor or a model crosses.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any

from mpstudio.engine.service.job_requests import JobRequest, UnreadableRequest


@dataclass(frozen=True)
class Submit:
    job_id: int
    request: JobRequest[Any]  # its type picks the job (service/job_table.py)

    def __reduce__(self) -> tuple[Any, ...]:
        # The request crosses as a pickle of its own, so one the engine cannot rebuild
        # (a window of another version) fails its job, not the whole pipe.
        data = pickle.dumps(self.request, protocol=pickle.HIGHEST_PROTOCOL)
        return _submitted, (self.job_id, type(self.request).__name__, data)


def _submitted(job_id: int, kind: str, data: bytes) -> Submit:
    try:
        request = pickle.loads(data)
    except Exception as exc:  # a class or field this side does not have
        request = UnreadableRequest(kind, f"{type(exc).__name__}: {exc}")
    return Submit(job_id, request)


@dataclass(frozen=True)
class Cancel:
    job_id: int


@dataclass(frozen=True)
class Shutdown:
    """Finish nothing more: cancel what runs and end the process."""


@dataclass(frozen=True)
class EngineStarting:
    """Before TensorFlow loads, where the start will be slow: why (a ``Said``: the
    driver compiles TensorFlow's kernels for this GPU), for the window's status line."""

    note: Any


@dataclass(frozen=True)
class EngineReady:
    versions: dict[str, str]  # TensorFlow and Keras versions, for About and the log
    memory: Any  # MemoryApplyResult: the saved GPU memory settings, applied first
    pid: int
    log_file: str = ""  # where the engine's stderr goes; "": the terminal's, as asked


@dataclass(frozen=True)
class EngineLoadFailed:
    message: str


@dataclass(frozen=True)
class JobStarted:
    job_id: int


@dataclass(frozen=True)
class JobEvent:
    job_id: int
    event: Any  # a run event, a doctor check row...


@dataclass(frozen=True)
class JobProgress:
    job_id: int
    done: int
    total: int
    text: str


@dataclass(frozen=True)
class JobResult:
    job_id: int
    value: Any


@dataclass(frozen=True)
class JobFailed:
    job_id: int
    message: str  # for people: names the problem and what to do
    cancelled: bool = False


ToEngine = Submit | Cancel | Shutdown
FromEngine = (EngineStarting | EngineReady | EngineLoadFailed | JobStarted | JobEvent
              | JobProgress | JobResult | JobFailed)
