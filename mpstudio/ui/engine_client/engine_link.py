"""The background QThread that owns one connection to an engine: starts its command,
reads what it sends, notices when it ends. Messages reach the GUI thread coalesced
through an Inbox, so a flood of events costs the event loop one wake-up.

The command is the engine itself on this computer (``python -m mpstudio.engine.service``:
a fresh interpreter that imports the engine and never Qt), or what reaches a server's
engine (``ssh HOST mpstudio engine connect``, or the user's own command). Either way
typed frames (service/wire_codec.py) cross its stdin and stdout, and the first the
window sends is its Hello. The client sends from the GUI thread; this thread only
reads.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
import sys
import threading
from typing import IO, Any

from PySide6.QtCore import QThread, Signal

from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_target import EngineTarget
from mpstudio.engine.service.framing import FrameError, FrameWriter, read_frame
from mpstudio.engine.service.wire_codec import WireError
from mpstudio.ui.engine_client.inbox import Inbox

STDERR_LINES_KEPT = 20  # ssh's last words, for the sentence when a connection fails


def engine_command() -> list[str]:
    return EngineTarget().argv()


class EngineLink(QThread):
    spawned = Signal(int)  # the command's pid (the engine's, on this computer)
    ended = Signal(int)  # the command's exit code (negative: the signal that ended it)

    def __init__(self, target: EngineTarget | None = None, hello: p.Hello | None = None) -> None:
        super().__init__()
        self.setObjectName("mpstudio-engine-link")
        self.target = target or EngineTarget()
        self._hello = hello
        self._lock = threading.Lock()
        self.inbox = Inbox()  # created in the GUI thread: its signal is queued there
        self._outbox: list[Any] = []  # sent before the process was up
        self._writer: FrameWriter | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._closed = False
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self.frame_error = ""  # a frame that did not decode ended the link: what it was
        self.welcome: p.Welcome | None = None  # the engine's answer to the Hello
        self.refused = ""  # the engine's reason, where it refused this window

    # ------------------------------------------------------------ GUI thread
    def send(self, message: Any) -> bool:
        """Send now, or once the process is up. False: the link has ended."""
        with self._lock:
            if self._closed:
                return False
            if self._writer is None:
                self._outbox.append(message)
                return True
            writer = self._writer
        try:
            writer.send(message)
        except WireError:  # a value that cannot cross: a bug, never a silent end
            raise
        except (OSError, ValueError):
            return False  # the process has ended; run() reports how
        return True

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None else None

    @property
    def stderr_text(self) -> str:
        """The command's last lines on stderr (a remote link's; a local engine logs)."""
        return "\n".join(self._stderr)

    def kill(self) -> None:
        """End the command now (on this computer: the engine; else the connection)."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    # --------------------------------------------------------- link thread
    def run(self) -> None:
        local = self.target.is_local
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            process = subprocess.Popen(
                engine_command() if local else self.target.argv(), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=None if local else subprocess.PIPE, env=env,
                start_new_session=not local)  # Ctrl-C in the window's terminal: not ssh's
        except OSError as exc:  # no Python, no ssh: reported as an end with code 127
            print(f"mpstudio: cannot start {self.target.label}'s engine: {exc}",
                  file=sys.stderr)
            self._stderr.append(str(exc))
            with self._lock:
                self._closed = True
            self.ended.emit(127)
            return
        assert process.stdin is not None and process.stdout is not None
        stderr_reader = None
        if process.stderr is not None:
            stderr_reader = threading.Thread(target=self._keep_stderr, args=(process.stderr,),
                                             name="engine-link-stderr", daemon=True)
            stderr_reader.start()
        writer = FrameWriter(process.stdin)
        with self._lock:
            self._process = process
        if self._hello is not None:
            self._send_early(writer, self._hello)
        while True:  # what was sent before the process was up, in order
            with self._lock:
                pending, self._outbox = self._outbox, []
                if not pending:
                    self._writer = writer
                    break
            for message in pending:
                self._send_early(writer, message)
        self.spawned.emit(process.pid)
        while True:
            try:
                message = read_frame(process.stdout)
            except EOFError:  # the process ended (or the connection dropped)
                break
            except FrameError as exc:  # not a message: the stream cannot be trusted
                self.frame_error = str(exc)
                print(f"mpstudio: {self.target.label}'s engine sent what this window cannot "
                      f"read, so the connection was closed: {exc}", file=sys.stderr)
                process.kill()
                break
            except (OSError, ValueError):  # its output broke as it ended
                break
            if isinstance(message, p.Welcome):
                self.welcome = message
            elif isinstance(message, p.Refused):
                self.refused = p.refusal_text(message)  # in the window's language
            self.inbox.put(message)
        code = process.wait()
        if stderr_reader is not None:
            stderr_reader.join(2.0)  # its last words, for the sentence the end gets
        with self._lock:
            self._closed = True
            self._writer = None
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self.ended.emit(code)

    def _keep_stderr(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                self._stderr.append(line.decode("utf-8", "replace").rstrip())

    @staticmethod
    def _send_early(writer: FrameWriter, message: Any) -> None:
        with contextlib.suppress(OSError, ValueError):
            writer.send(message)
