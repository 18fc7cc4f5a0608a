"""The background QThread that owns one engine process: starts it, reads what it sends,
notices when it ends. Messages reach the GUI thread coalesced through an Inbox, so a
flood of events costs the event loop one wake-up.

The process is ``python -m mpstudio.engine.service`` with frames on its stdin
and stdout: a fresh interpreter that imports the engine and never Qt, the same on
every platform, and independent of how the window itself was started. The client
sends from the GUI thread; this thread only reads.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from typing import Any

from PySide6.QtCore import QThread, Signal

from mpstudio.engine.service.framing import FrameError, FrameWriter, read_frame
from mpstudio.engine.service.wire_codec import WireError
from mpstudio.ui.engine_client.inbox import Inbox


def engine_command() -> list[str]:
    return [sys.executable, "-m", "mpstudio.engine.service"]


class EngineLink(QThread):
    spawned = Signal(int)  # the engine's pid
    ended = Signal(int)  # the process's exit code (negative: the signal that ended it)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("mpstudio-engine-link")
        self._lock = threading.Lock()
        self.inbox = Inbox()  # created in the GUI thread: its signal is queued there
        self._outbox: list[Any] = []  # sent before the process was up
        self._writer: FrameWriter | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._closed = False

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

    def kill(self) -> None:
        """End the engine process now (Stop now, or it would not shut down)."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    # --------------------------------------------------------- link thread
    def run(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            process = subprocess.Popen(engine_command(), stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, env=env)
        except OSError as exc:  # no Python to start: reported as an end with code 127
            print(f"mpstudio: cannot start the engine process: {exc}", file=sys.stderr)
            with self._lock:
                self._closed = True
            self.ended.emit(127)
            return
        assert process.stdin is not None and process.stdout is not None
        writer = FrameWriter(process.stdin)
        with self._lock:
            self._process = process
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
            except FrameError as exc:  # not a message: the stream cannot be trusted
                print(f"mpstudio: ending the engine connection: {exc}", file=sys.stderr)
                process.kill()
                break
            except Exception:  # end of file: the process ended (or its output broke)
                break
            self.inbox.put(message)
        code = process.wait()
        with self._lock:
            self._closed = True
            self._writer = None
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self.ended.emit(code)

    @staticmethod
    def _send_early(writer: FrameWriter, message: Any) -> None:
        with contextlib.suppress(OSError, ValueError):
            writer.send(message)
