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
    """Finish nothing more: cancel what runs and end the process (``now``: at once,
    whatever the running job does: Stop now on a server's engine)."""

    now: bool = False


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


# ------------------------------------------------------------------ connection
# Hello and Welcome open every connection, pipe or socket; their fields only ever grow
# (with defaults), so two versions can always read each other's and say which they are.
PROTOCOL = 1  # bump on any change a reader of the previous version cannot decode
COMMAND_LINE = "command-line"
WATCH = "watch"


@dataclass(frozen=True)
class Hello:
    """The window's first message. ``engine_id``/``resume_from``: reattaching to the
    engine it was connected to, send the job messages numbered after ``resume_from``."""

    protocol: int
    version: str  # mpstudio's, for the sentence when the protocols differ
    client_id: str = ""  # one per window: its own stale connection is replaced quietly
    # "window" (one at a time: the newest wins), COMMAND_LINE (its own jobs, beside the
    # window), WATCH (every job's messages live; runs nothing), "status" (only the
    # Welcome, then close), "stop" (end the engine)
    mode: str = "window"
    engine_id: str = ""
    resume_from: int = 0
    # what the front end speaks ("zh_CN"): a server's engine then words its sentences
    # in it, whatever the server's locale ("": as it was)
    language: str = ""


def hello(client_id: str = "", mode: str = "window") -> Hello:
    """This version's Hello (for a front end other than the window's client)."""
    from mpstudio import __version__
    from mpstudio.engine.i18n import language

    return Hello(PROTOCOL, __version__, client_id, mode=mode, language=language())


@dataclass(frozen=True)
class RunningJob:
    job_id: int
    kind: str  # the request's class name
    what: str  # in English: "the run"
    client_id: str = ""  # the window that submitted it


@dataclass(frozen=True)
class Welcome:
    """The engine's answer to Hello. ``resumed``: what was missed since ``resume_from``
    follows (False where the engine is another one, or has dropped those messages)."""

    protocol: int
    version: str
    engine_id: str  # one per engine process: a reattaching window knows it is the same
    host: str  # the machine's name, for the status bar and the run records
    resumed: bool = False
    jobs: tuple[RunningJob, ...] = ()  # queued or running now


@dataclass(frozen=True)
class Refused:
    """The engine will not serve this connection (another protocol, a second window):
    the reason is one sentence, in English, with what to do; ``why`` names it, so that
    the reader says it in its own language (refusal_text)."""

    reason: str
    why: str = ""  # ANOTHER_WINDOW, OTHER_PROTOCOL, NO_HELLO ("": read ``reason``)
    engine_version: str = ""
    engine_protocol: int = 0


ANOTHER_WINDOW, OTHER_PROTOCOL, NO_HELLO = "another_window", "other_protocol", "no_hello"


def refusal_text(refused: Refused) -> str:
    """A refusal as this reader says it (an older engine's: its English reason)."""
    from mpstudio import __version__
    from mpstudio.engine.i18n import _

    if refused.why == ANOTHER_WINDOW:
        return _("another window attached to this engine")
    if refused.why == OTHER_PROTOCOL:
        return _("the engine runs mpstudio {engine} (protocol {engine_protocol}) and this one "
                 "mpstudio {mine} (protocol {protocol}): install the same version on both "
                 "machines").format(engine=refused.engine_version,
                                    engine_protocol=refused.engine_protocol, mine=__version__,
                                    protocol=PROTOCOL)
    if refused.why == NO_HELLO:
        return _("the engine was not greeted as this version greets it: another version of "
                 "mpstudio? Install the same version on both machines")
    return refused.reason


@dataclass(frozen=True)
class Numbered:
    """A job message with its number in the engine's outbox, so that a window that
    reattaches asks for what it missed (Hello.resume_from), and the window whose job it
    is (job ids are each window's own; a window ignores another's)."""

    seq: int
    message: JobStarted | JobEvent | JobProgress | JobResult | JobFailed
    client_id: str = ""


@dataclass(frozen=True)
class Ack:
    """The window has every job message up to ``seq``: the engine may drop them."""

    seq: int


@dataclass(frozen=True)
class Detach:
    """The window goes away but leaves the engine's jobs running (a server's engine)."""


JobMessage = JobStarted | JobEvent | JobProgress | JobResult | JobFailed
ToEngine = Hello | Submit | Cancel | Ack | Detach | Shutdown
FromEngine = (Welcome | Refused | EngineStarting | EngineReady | EngineLoadFailed | Numbered)
