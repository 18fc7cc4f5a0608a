"""EngineClient: the window's one way to get TensorFlow work done.

It starts the engine behind the window (through an EngineLink thread): its own child
process on this computer, or a server's engine reached through ssh (``target``).
It submits typed requests (``submit(request) -> EngineJob[R]``), routes what comes
back to each job's own signals, and notices when the engine ends. An end nobody asked
for (a segfault, an abort, the system killing it for memory) or a Stop now is reported
as an ``EngineEnd``: every job that was queued or running gets ``errored`` with the
reason (and ``job.engine_end`` set), ``ended`` tells the window, and a fresh engine
starts.

A server's engine outlives the connection: when it drops, jobs stay as they are
(the engine goes on with them), the client reconnects with backoff and asks for the
job messages it missed by number, and the jobs carry on where they were.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from mpstudio import __version__
from mpstudio.engine.i18n import language
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_bridge import ENGINE_ENDED
from mpstudio.engine.service.engine_target import (
    EngineTarget,
    connection_failure,
    lasting_failure,
)
from mpstudio.engine.service.job_requests import (
    MAIN_LANE,
    BatchFindRequest,
    JobRequest,
    TrainRequest,
)
from mpstudio.ui.engine_client.engine_end import EngineEnd
from mpstudio.ui.engine_client.engine_job import EngineJob
from mpstudio.ui.engine_client.engine_link import EngineLink

MAX_STARTS_WITHOUT_READY = 2  # then the window says TensorFlow could not load
RESTART_WAIT_MS = 1000  # restart(): how long an idle engine gets to end before it is killed
RECONNECT_MS = (1000, 2000, 4000, 8000, 15000, 30000)  # after a drop: then every 30 s
# Left running on a server as the window goes: work whose runs its History keeps
KEPT_BY_THE_SERVER = (TrainRequest, BatchFindRequest)
ACK_EVERY = 256  # job messages: the engine may let them go once the window has them
R = TypeVar("R")

# Connection states (``connection``): where a remote engine's connection stands
CONNECTING, CONNECTED, RECONNECTING, DISCONNECTED = (
    "connecting", "connected", "reconnecting", "disconnected")


class EngineClient(QObject):
    starting = Signal(object)  # why this start is slow (a Said), before ``ready``
    ready = Signal(object)  # protocol.EngineReady: TensorFlow loaded, settings applied
    load_failed = Signal(str)  # TensorFlow could not load: nothing can train
    ended = Signal(object)  # EngineEnd: the process ended under work; a new one starts
    jobs_changed = Signal()  # a job was queued, started or ended
    # connecting / connected / reconnecting / disconnected, and why (a sentence, or "")
    connection_changed = Signal(str, str)

    def __init__(self, parent: QObject | None = None,
                 target: EngineTarget | None = None) -> None:
        super().__init__(parent)
        self.target = target or EngineTarget()
        self.client_id = uuid.uuid4().hex  # this window, to the engines it attaches to
        self.welcome: p.Welcome | None = None  # the engine's, on the connection now
        self.connection = CONNECTING
        self.connection_problem = ""  # why the connection is not up (a sentence)
        self._engine_id = ""  # the engine the jobs in flight run in
        self._last_seq = 0  # the last numbered job message received from it
        self._acked = 0
        self._reconnects = 0  # tries since the connection dropped
        self._reconnect_timer = QTimer(self)
        self._reconnect_timer.setSingleShot(True)
        self._reconnect_timer.timeout.connect(self.start)
        self._ids = itertools.count(1)
        self._jobs: dict[int, EngineJob[Any]] = {}  # queued or running, in submission order
        self._link: EngineLink | None = None
        self._old_links: list[EngineLink] = []  # shut down: their end is no news
        self._retired: list[EngineLink] = []  # engines ended on purpose by restart()
        self._pending: EngineLink | None = None  # restart()'s new engine, not started yet
        self._shutting_down = False
        self._kill_requested = False
        self.engine_ready: p.EngineReady | None = None
        self.starts = 0  # engine processes started (1 + restarts)
        self.restart_on_end = True  # False while the window closes
        self._starts_without_ready = 0  # engines in a row that ended before ready

    # ------------------------------------------------------------------ API
    def start(self) -> None:
        """Start an engine process (the window calls this once it is shown)."""
        if self._link is not None or self._shutting_down:
            return
        self._reconnect_timer.stop()
        self.engine_ready = None
        self.welcome = None
        self._kill_requested = False
        hello = p.Hello(p.PROTOCOL, __version__, self.client_id, engine_id=self._engine_id,
                        resume_from=self._last_seq, language=language())
        link = EngineLink(self.target, hello)
        self._set_connection(RECONNECTING if self._reconnects else CONNECTING, "")
        link.inbox.arrived.connect(lambda: self._drain(link))
        link.ended.connect(lambda code: self._on_ended(link, code))
        self._link = link
        self.starts += 1
        if self._retired:  # restart(): its process starts once the old one has ended
            self._pending = link
            return
        link.start()

    def _start_pending(self, link: EngineLink) -> None:
        if self._pending is link and not self._shutting_down:
            self._pending = None
            link.start()

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    @property
    def ready_now(self) -> bool:
        return self.engine_ready is not None

    @property
    def pid(self) -> int | None:
        return self._link.pid if self._link is not None else None

    def submit(self, request: JobRequest[R], *, describe: str = "", shown: str = "",
               parent: QObject | None = None) -> EngineJob[R]:
        """Queue ``request`` in the engine; its job's handle, whose signals come from the
        event loop (connect them now). ``describe``: what it is doing, in English, for an
        engine's end under it ("the float32 run"); ``shown``: the same translated.
        ``parent``: the handle's owner, which then lets it go once it has finished."""
        if self._shutting_down:
            raise RuntimeError("the engine has been shut down")
        if not isinstance(request, JobRequest):
            raise TypeError(f"not an engine job request: {request!r}")
        job = EngineJob(request, describe=describe, shown=shown, parent=parent)
        if parent is not None:
            job.finished.connect(job.deleteLater)
        if self._link is None:
            self.start()
        job.job_id = next(self._ids)
        job._client = self
        job.state = "queued"
        self._jobs[job.job_id] = job
        assert self._link is not None
        job._link = self._link  # type: ignore[attr-defined]  # the connection it went on
        self._link.send(p.Submit(job.job_id, request))
        self.jobs_changed.emit()
        return job

    def switch_target(self, target: EngineTarget, leave_running: bool = False) -> None:
        """Drive the engine at ``target`` from now on (Engine > Connect to a server, This
        computer): the current engine's jobs are cancelled, or left running on its
        server (``leave_running``), and its connection ends first."""
        self.shutdown(leave_running=leave_running)
        self._shutting_down = False
        self.target = target
        self._engine_id = ""
        self._last_seq = self._acked = self._reconnects = 0
        self._starts_without_ready = 0
        self.start()

    def restart(self) -> None:
        """A fresh engine process for work that needs the device's memory whole (the
        batch-size finder: TensorFlow keeps a GPU's memory for as long as its process
        lives). Call when no job is queued (``busy`` is False): the current engine is
        asked to end and waited for, then a new one starts; its end is not reported as
        one nobody asked for."""
        link = self._link
        if link is None or self._shutting_down:
            self.start()
            return
        self._retired.append(link)
        link.send(p.Shutdown())
        self._link = None
        self.start()
        # The new engine's process starts once the old one has ended (it would hold a
        # GPU's memory while the new one's work starts), and the window never waits for
        # that: work submitted now queues in the new link. An engine that has not ended
        # within a second is killed.
        if self.target.is_local:  # a server's engine ends the connection once it has ended
            QTimer.singleShot(RESTART_WAIT_MS, self, link.kill)

    def cancel(self, job: EngineJob[Any]) -> None:
        if job.job_id in self._jobs and self._link is not None:
            self._link.send(p.Cancel(job.job_id))

    def cancel_all(self) -> None:
        for job in list(self._jobs.values()):
            job.cancel()

    def stop_now(self) -> None:
        """End the engine process at once; its jobs end with errored (engine_end set,
        requested=True) and a new engine starts."""
        if self._link is not None:
            self._kill_requested = True
            if self.target.is_local:
                self._link.kill()
            else:  # killing ssh would only drop the connection: the engine ends itself
                self._link.send(p.Shutdown(now=True))

    def active(self, kind: type[JobRequest[Any]] | None = None) -> list[EngineJob[Any]]:
        """Jobs queued or running (of requests of ``kind``), oldest first."""
        return [j for j in self._jobs.values() if kind is None or isinstance(j.request, kind)]

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def running_job(self) -> EngineJob[Any] | None:
        return next((j for j in self._jobs.values()
                     if j.state == "running" and j.lane == MAIN_LANE), None)

    def shutdown(self, wait_ms: int = 15000, leave_running: bool = False) -> bool:
        """Cancel everything, end the engine process and its thread; True once ended
        (a process that does not end in ``wait_ms`` is killed). ``leave_running``: a
        server's engine keeps its jobs and stays for the next window (its runs go to
        its History); only the connection ends."""
        self._shutting_down = True
        self._reconnect_timer.stop()
        link = self._link
        if link is not None:
            if leave_running and not self.target.is_local:
                for job in list(self._jobs.values()):  # what only this window would show
                    if not isinstance(job.request, KEPT_BY_THE_SERVER):
                        job.cancel()
                link.send(p.Detach())
            else:
                self.cancel_all()
                link.send(p.Shutdown())
            if not link.wait(wait_ms):
                link.kill()
                link.wait(5000)
            self._drain(link)
        for old in [*self._old_links, *self._retired]:
            old.wait(5000)
        if link is not None:
            self._old_links.append(link)  # its ended signal may still be queued
        done = link is None or link.isFinished()
        self._link = None
        self._fail_all(None, "cancelled")
        return done

    # -------------------------------------------------- what comes back
    def _drain(self, link: EngineLink) -> None:
        pending: dict[int, list[Any]] = {}

        def flush(job_id: int) -> None:
            batch = pending.pop(job_id, None)
            job = self._jobs.get(job_id)
            if batch and job is not None:
                job.events.emit(batch)

        finished_any = False
        for message in link.inbox.drain():
            if isinstance(message, p.Numbered):
                if message.client_id != self.client_id or message.seq <= self._last_seq:
                    continue  # another window's job, or a message already had
                self._last_seq = message.seq
                message = message.message
                finished_any = finished_any or isinstance(message, (p.JobResult, p.JobFailed))
            elif isinstance(message, p.Welcome):
                self._welcomed(link, message)
                continue
            elif isinstance(message, p.Refused):
                continue  # the link keeps the reason; its end says it
            if isinstance(message, p.EngineStarting):
                if not self._shutting_down:
                    self.starting.emit(message.note)
                continue
            if isinstance(message, p.EngineReady):
                self.engine_ready = message
                self._starts_without_ready = 0
                if not self._shutting_down:  # ready as the window closes: nothing to start
                    self.ready.emit(message)
                continue
            if isinstance(message, p.EngineLoadFailed):
                if not self._shutting_down:
                    self.load_failed.emit(message.message)
                continue
            job = self._jobs.get(message.job_id)
            if job is None:
                continue  # a job already failed by an engine end
            if isinstance(message, p.JobEvent):
                pending.setdefault(message.job_id, []).append(message.event)
                continue
            flush(message.job_id)
            if isinstance(message, p.JobStarted):
                job.state = "running"
                job.started.emit()
                self.jobs_changed.emit()
            elif isinstance(message, p.JobProgress):
                job.progress.emit(message.done, message.total, message.text)
            elif isinstance(message, p.JobResult):
                self._finish(job, result=message.value)
            elif isinstance(message, p.JobFailed):
                self._finish(job, error=message.message)
        for job_id in list(pending):
            flush(job_id)
        if link is self._link and (finished_any or self._last_seq - self._acked >= ACK_EVERY):
            self._acked = self._last_seq
            link.send(p.Ack(self._last_seq))

    def _welcomed(self, link: EngineLink, welcome: p.Welcome) -> None:
        if link is not self._link:
            return
        self.welcome = welcome
        if welcome.engine_id != self._engine_id:
            if self._engine_id and not self.target.is_local:
                # Reattached to another engine: the one the jobs ran in has ended (its
                # runs are in its History); the jobs sent on this connection are its.
                lost = [j for j in self._jobs.values() if getattr(j, "_link", None) is not link]
                self._fail_jobs(lost, None, QCoreApplication.translate(
                    "EngineClient", "the engine on {host} ended while this window was away; "
                    "its runs are in History").format(host=self.target.label))
            self._engine_id = welcome.engine_id
            self._last_seq = self._acked = 0
        self._reconnects = 0
        self._set_connection(CONNECTED, "")

    def _finish(self, job: EngineJob[Any], *, result: Any = None, error: str | None = None) -> None:
        self._jobs.pop(job.job_id, None)  # type: ignore[arg-type]
        job.state = "done"
        if error is None:
            job.result.emit(result)
        else:
            job.errored.emit(error)
        job.finished.emit()
        self.jobs_changed.emit()

    def _fail_all(self, end: EngineEnd | None, message: str) -> None:
        self._fail_jobs(list(self._jobs.values()), end, message)

    def _fail_jobs(self, jobs: list[EngineJob[Any]], end: EngineEnd | None,
                   message: str) -> None:
        for job in jobs:
            job.engine_end = end
            self._finish(job, error=message)

    def _set_connection(self, state: str, problem: str) -> None:
        if (state, problem) != (self.connection, self.connection_problem):
            self.connection, self.connection_problem = state, problem
            self.connection_changed.emit(state, problem)

    def _connection_ended(self, link: EngineLink, exit_code: int) -> bool:
        """A server's connection ended: True where that is not the engine's end (a drop:
        reconnect, the jobs go on; a refusal or a failure to connect: said)."""
        self.engine_ready = None
        if link.refused or link.frame_error:
            problem = link.refused or link.frame_error
            self._fail_all(None, problem)
            self._set_connection(DISCONNECTED, problem)
            return True
        if link.welcome is None and (not self._reconnects or lasting_failure(
                self.target, exit_code, link.stderr_text)):
            problem = connection_failure(self.target, exit_code, link.stderr_text)
            self._fail_all(None, problem)
            self._set_connection(DISCONNECTED, problem)
            return True
        if link.welcome is not None and exit_code == ENGINE_ENDED:
            return False  # the engine itself ended: as a local engine's end
        # A drop (ssh's 255, a killed ssh, a network gone): the engine goes on.
        delay = RECONNECT_MS[min(self._reconnects, len(RECONNECT_MS) - 1)]
        self._reconnects += 1
        problem = (connection_failure(self.target, exit_code, link.stderr_text)
                   if link.welcome is None else QCoreApplication.translate(
                       "EngineClient", "the connection to {host} dropped").format(
                           host=self.target.label))
        self._set_connection(RECONNECTING, problem)
        self._reconnect_timer.start(delay)
        return True

    def reconnect(self) -> None:
        """Engine > Reconnect: try now, with what was missed asked for by number."""
        if self._link is None and not self._shutting_down:
            self._reconnects = max(self._reconnects, 1)
            self.start()

    def _on_ended(self, link: EngineLink, exit_code: int) -> None:
        self._drain(link)  # what it said before it went
        link.wait()
        if link in self._old_links:  # shut down on purpose (a switch, the window closing)
            self._old_links.remove(link)
            return
        if link in self._retired:  # restart() ended it: the new one starts now
            self._retired.remove(link)
            if self._pending is not None and not self._retired:
                self._start_pending(self._pending)
            return
        if link is self._link:
            self._link = None
        if self._shutting_down:
            return
        if not self.target.is_local and self._connection_ended(link, exit_code):
            return
        running = self.running_job()
        end = EngineEnd(exit_code, running.describe if running else "", self._kill_requested,
                        running.shown if running else "",
                        "" if self.target.is_local else self.target.label)
        never_ready = self.engine_ready is None and not self._kill_requested
        self.engine_ready = None
        self._fail_all(end, end.message)
        self.ended.emit(end)
        self._starts_without_ready = self._starts_without_ready + 1 if never_ready else 0
        if self._starts_without_ready >= MAX_STARTS_WITHOUT_READY:
            # It cannot even start (a broken install, no Python): say so, stop trying.
            self.load_failed.emit(QCoreApplication.translate(
                "EngineClient", "the engine process {how} before it was ready, {count} times "
                "in a row").format(how=end.how, count=self._starts_without_ready))
        elif self.restart_on_end:
            self.start()  # a fresh engine: the window goes on
