"""A command line's connection to a server's engine (no Qt): what `mpstudio --engine
gpu-box compare ...` and `mpstudio engine attach` speak through.

The same pipe as the window's (engine_target.EngineTarget.argv: the system's ssh
running `mpstudio engine connect`, or the user's own command), the same Hello and
numbered job messages. A connection that drops while a job runs is opened again with
backoff, asking for the messages after the last one read, so the terminal shows every
step; one that fails for a reason only the user can mend (a key, a host key, no
mpstudio there) or whose engine ended is an ``EngineUnreachable`` with one sentence.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import IO, Any

from mpstudio.engine.i18n import _
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_bridge import CANNOT_START, ENGINE_ENDED
from mpstudio.engine.service.engine_target import (
    EngineTarget,
    connection_failure,
    lasting_failure,
)
from mpstudio.engine.service.framing import FrameError, FrameWriter, read_frame

RECONNECT_SECONDS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)  # after a drop: then every 30 s
GIVE_UP_SECONDS = 15 * 60.0  # a server not reached for this long: the command ends
ACK_EVERY = 256  # job messages read between two Acks


class EngineUnreachable(Exception):
    """The engine cannot be reached, or went away; the message is one sentence."""


class _Lasting(EngineUnreachable):
    """Trying again cannot mend it: a refusal, a key, no mpstudio, the engine ended."""


class _Ended:
    """The reader's mark: the connection's command ended with ``code``."""

    def __init__(self, code: int, stderr: str, frame_error: str = "") -> None:
        self.code, self.stderr, self.frame_error = code, stderr, frame_error


class EngineConnection:
    """One front end's connection, reopened after a drop. ``mode``: protocol.COMMAND_LINE
    (jobs of its own, beside the window), protocol.WATCH, "status" or "stop"."""

    def __init__(self, target: EngineTarget, mode: str = p.COMMAND_LINE,
                 start: bool = True, say: Callable[[str], None] | None = None) -> None:
        self.target, self.mode, self.start = target, mode, start
        self.client_id = uuid.uuid4().hex
        self.say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        self.welcome: p.Welcome | None = None
        self.reconnects = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._writer: FrameWriter | None = None
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._last_seq = 0
        self._acked = 0
        self._jobs: list[int] = []  # the ids of the jobs this connection submitted

    # ------------------------------------------------------------ opening
    def open(self) -> p.Welcome:
        """Connect and read the Welcome (EngineUnreachable: why not, in one sentence)."""
        self._start_process()
        return self._read_welcome()

    def _hello(self) -> p.Hello:
        hello = p.hello(self.client_id, self.mode)
        if self.welcome is not None:  # the same engine again: what was missed, please
            from dataclasses import replace

            hello = replace(hello, engine_id=self.welcome.engine_id,
                            resume_from=self._last_seq)
        return hello

    def _start_process(self) -> None:
        argv = self.target.argv(start=self.start)
        try:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, start_new_session=True,
                                       env=dict(os.environ, PYTHONUNBUFFERED="1"))
        except OSError as exc:
            raise EngineUnreachable(_("cannot start {command}: {error}").format(
                command=argv[0], error=exc.strerror or exc)) from None
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._writer = FrameWriter(process.stdin)
        self._inbox = queue.Queue()
        threading.Thread(target=self._read, args=(process,), name="engine-connection",
                         daemon=True).start()
        self._send(self._hello())

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None and process.stderr is not None
        stderr: collections.deque[str] = collections.deque(maxlen=20)

        def keep(stream: IO[bytes]) -> None:
            with contextlib.suppress(OSError, ValueError):
                for line in stream:
                    stderr.append(line.decode("utf-8", "replace").rstrip())

        reader = threading.Thread(target=keep, args=(process.stderr,), daemon=True)
        reader.start()
        frame_error = ""
        while True:
            try:
                self._inbox.put(read_frame(process.stdout))
            except FrameError as exc:  # not a message: the stream cannot be trusted
                frame_error = str(exc)
                process.kill()
                break
            except (EOFError, OSError, ValueError):
                break
        code = process.wait()
        reader.join(2.0)
        self._inbox.put(_Ended(code, "\n".join(stderr), frame_error))

    def _read_welcome(self) -> p.Welcome:
        while True:
            message = self._inbox.get()
            if isinstance(message, p.Welcome):
                if self.welcome is not None and message.engine_id != self.welcome.engine_id:
                    raise _Lasting(_(
                        "the engine on {host} was started again meanwhile: the job it ran "
                        "is lost (see `mpstudio runs` there for what was recorded)").format(
                            host=self.target.label))
                self.welcome = message
                return message
            if isinstance(message, p.Refused):
                raise _Lasting(_("the engine on {host} refused: {reason}").format(
                    host=self.target.label, reason=p.refusal_text(message)))
            if isinstance(message, _Ended):
                lasting = message.frame_error or message.code in (ENGINE_ENDED, CANNOT_START) \
                    or lasting_failure(self.target, message.code, message.stderr)
                raise (_Lasting if lasting else EngineUnreachable)(self._failure(message))

    def _failure(self, ended: _Ended) -> str:
        if ended.frame_error:
            return _("the engine on {host} sent what this command cannot read, so the "
                     "connection was closed: {error}").format(host=self.target.label,
                                                                error=ended.frame_error)
        return connection_failure(self.target, ended.code, ended.stderr)

    # ------------------------------------------------------------ talking
    def _send(self, message: Any) -> None:
        writer = self._writer
        if writer is None:
            return
        with contextlib.suppress(OSError, ValueError):  # a drop: the reader says so
            writer.send(message)

    def submit(self, job_id: int, request: Any) -> None:
        self._jobs.append(job_id)
        self._send(p.Submit(job_id, request))

    def cancel(self, job_id: int) -> None:
        self._send(p.Cancel(job_id))

    def messages(self, timeout: float = 0.2) -> Iterator[Any]:
        """Every message the engine sends (a Numbered's job message unwrapped, each
        once), across reconnections; None every ``timeout`` seconds of quiet, so the
        caller can look at Ctrl-C. Ends with EngineUnreachable."""
        while True:
            try:
                message = self._inbox.get(timeout=timeout)
            except queue.Empty:
                yield None
                continue
            if isinstance(message, _Ended):
                self._reopen(message)
                continue
            if isinstance(message, p.Numbered):
                if 0 < message.seq <= self._last_seq:
                    continue  # replayed, already read
                if message.seq and self.mode != p.WATCH:  # a watcher keeps nothing back
                    self._last_seq = message.seq
                    if self._last_seq - self._acked >= ACK_EVERY or isinstance(
                            message.message, (p.JobResult, p.JobFailed)):
                        self._acked = self._last_seq
                        self._send(p.Ack(self._last_seq))
                if self.mode != p.WATCH and message.client_id != self.client_id:
                    continue
                yield message
            elif isinstance(message, p.Refused):
                raise EngineUnreachable(_("the engine on {host} refused: {reason}").format(
                    host=self.target.label, reason=p.refusal_text(message)))
            else:
                yield message

    def _reopen(self, ended: _Ended) -> None:
        """The connection ended: open it again (with backoff) unless only the user can
        mend why, or the engine itself ended."""
        if ended.code == ENGINE_ENDED:
            raise _Lasting(_("the engine on {host} ended (stopped, or started again): see "
                             "`mpstudio runs` there for what was recorded").format(
                                 host=self.target.label))
        if ended.frame_error or ended.code == CANNOT_START or self.target.kind != "ssh" \
                or lasting_failure(self.target, ended.code, ended.stderr):
            raise _Lasting(self._failure(ended))
        why = _("the connection to {host} dropped").format(host=self.target.label)
        given_up = time.monotonic() + GIVE_UP_SECONDS
        attempt = 0
        while time.monotonic() < given_up:
            delay = RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)]
            self.say(_("{why}; connecting again in {seconds:.0f} s (what runs there goes "
                       "on)").format(why=why, seconds=delay))
            time.sleep(delay)
            attempt += 1
            self._start_process()
            try:
                self._read_welcome()
            except _Lasting:
                raise
            except EngineUnreachable as exc:
                why = str(exc)
                continue
            self.reconnects += 1
            self.say(_("connected to {host} again").format(host=self.target.label))
            return
        raise _Lasting(_("{host} could not be reached for {minutes:.0f} minutes: "
                         "{why}").format(host=self.target.label,
                                         minutes=GIVE_UP_SECONDS / 60, why=why))

    def close(self, leave_running: bool = True) -> None:
        """End the connection: ``leave_running``, the engine goes on with this
        connection's jobs (a Detach); else they are cancelled first."""
        if self.mode == p.COMMAND_LINE and not leave_running:
            for job_id in self._jobs:
                self._send(p.Cancel(job_id))
        self._send(p.Detach())
        process = self._process
        if process is None:
            return
        for stream in (process.stdin,):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        try:
            process.wait(5.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
