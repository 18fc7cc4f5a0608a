"""The messages between the window and its engine process (over a pipe, each frame
encoded by the wire codec: service/framing.py, service/wire_codec.py).

The window sends ``Submit``/``Cancel``/``Shutdown``; the engine answers with
``EngineReady`` once TensorFlow is loaded (or ``EngineLoadFailed``), after an
``EngineStarting`` where the start will be slow, then per job
``JobStarted``, any number of ``JobEvent``/``JobProgress`` and exactly one of
``JobResult`` or ``JobFailed``. Payloads are the engine's own plain dataclasses
(events, reports, outcomes): nothing that holds a tensor or a model crosses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mpstudio.engine.service.job_requests import JobRequest, UnreadableRequest
from mpstudio.engine.service.wire_codec import UNREADABLE


@dataclass(frozen=True)
class Submit:
    job_id: int
    # Its type picks the job (service/job_table.py). A request the engine cannot read (a
    # class or field this side does not have: a window of another version) arrives as
    # an UnreadableRequest(its tag, why), which fails its job, not the whole pipe.
    request: JobRequest[Any] = field(metadata={UNREADABLE: UnreadableRequest})


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
