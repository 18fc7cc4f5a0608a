"""``mpstudio engine serve``: the engine of a server, which outlives the connections of
the windows that drive it.

It listens on a Unix socket in the user's private runtime folder (private_socket.py)
and serves one window at a time; each window reaches it through ``mpstudio engine
connect`` (engine_bridge.py), which ssh, srun or kubectl exec runs for it. A window's
connection may drop at any moment (a laptop closed, Wi-Fi changed): jobs go on, their
messages are kept (replay_outbox.py), and the window that reattaches asks for what it
missed. With no window and no job for ``idle_minutes`` the engine ends itself.

Sends to a window never block a job: each connection has a queue drained by its own
thread, and a window that stops reading (a network that died without a word) is
dropped once its queue is long, to catch up from the outbox when it reattaches.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

from mpstudio.engine.service.engine_process import EngineLoop, run_engine
from mpstudio.engine.service.framing import FrameWriter, encode_frame
from mpstudio.engine.service.private_socket import (
    PrivateSocketError,
    check_peer,
    private_dir,
    socket_path,
)

log = logging.getLogger(__name__)
IDLE_MINUTES = 30.0  # no window and no job for this long: the engine ends itself
MOST_QUEUED = 50_000  # messages waiting for a window that does not read: then drop it
PID_NAME = "engine.pid"


class QueuedWriter:
    """A window's connection as the outbox sees it: ``send`` never waits on the network."""

    def __init__(self, conn: socket.socket) -> None:
        self._conn = conn
        self._frames = FrameWriter(conn.makefile("wb"))
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._broken = threading.Event()
        self._sender = threading.Thread(target=self._drain, name="engine-window-out",
                                        daemon=True)
        self._sender.start()

    def send(self, message: Any) -> None:
        self.send_frame(encode_frame(message))

    def send_frame(self, frame: bytes) -> None:
        if self._broken.is_set():
            raise OSError("the window's connection has ended")
        if self._queue.qsize() > MOST_QUEUED:
            self.close(flush=False)
            raise OSError(f"the window read nothing while {MOST_QUEUED:,} messages waited")
        self._queue.put(frame)

    def close(self, flush: bool = True) -> None:
        """End the connection once what is queued has gone (``flush``), or now."""
        if self._broken.is_set():
            return
        self._broken.set()
        self._queue.put(None)
        if not flush:
            with contextlib.suppress(OSError):
                self._conn.shutdown(socket.SHUT_RDWR)

    def wait_sent(self, seconds: float) -> None:
        """Until what was queued before close() has gone (an engine about to end)."""
        self._sender.join(seconds)

    def _drain(self) -> None:
        while (frame := self._queue.get()) is not None:
            try:
                self._frames.send_frame(frame)
            except (OSError, ValueError):
                break
        self._broken.set()
        with contextlib.suppress(OSError):
            self._conn.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._conn.close()


def _serve_window(loop: EngineLoop, conn: socket.socket) -> None:
    try:
        check_peer(conn)
    except PrivateSocketError as exc:
        log.warning("%s", exc)
        conn.close()
        return
    writer = QueuedWriter(conn)
    loop.serve_connection(conn.makefile("rb"), writer)


def _accept(loop: EngineLoop, listener: socket.socket) -> None:
    while not loop.ending.is_set():
        try:
            conn, _address = listener.accept()
        except OSError:
            return  # closed: the engine is ending
        threading.Thread(target=_serve_window, args=(loop, conn), name="engine-window",
                         daemon=True).start()


def _end_when_idle(loop: EngineLoop, idle_seconds: float) -> None:
    while not loop.ending.wait(min(5.0, max(idle_seconds / 4, 0.05))):
        if loop.idle and time.monotonic() - loop.idle_since > idle_seconds:
            log.info("no window and no job for %.0f s: ending", idle_seconds)
            loop._end(orphaned=False)
            loop.end_reason = "idle"
            return


def listen(path: Path | None = None) -> socket.socket:
    """The engine's socket, bound in the private folder. A socket file left by an
    engine that died is replaced; one that answers means an engine runs there already
    (EngineRunning)."""
    path = path or socket_path()
    private_dir(path.parent)
    if path.exists() or path.is_symlink():
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # nobody answers: a dead engine's
        else:
            raise EngineRunning(f"an engine already listens on {path}")
        finally:
            probe.close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)  # the socket itself 0600, beside the folder's 0700
    try:
        listener.bind(str(path))
    except OSError as exc:  # two connects started an engine at once: the other won
        listener.close()
        raise EngineRunning(f"cannot listen on {path}: {exc.strerror or exc}") from None
    finally:
        os.umask(old_mask)
    listener.listen(8)
    return listener


class EngineRunning(Exception):
    """Another engine of this user listens on the socket already."""


def serve_socket(idle_minutes: float = IDLE_MINUTES, path: Path | None = None,
                 log_file: Path | None = None) -> int:
    """Run a server's engine until it has been idle ``idle_minutes`` (or a window says
    Shutdown, or SIGTERM). Exit code 0; 3 where another engine already runs."""
    from mpstudio.engine.app_log import configure_engine

    configure_engine(log_file)
    path = path or socket_path()
    try:
        listener = listen(path)
    except EngineRunning as exc:
        log.info("%s", exc)
        return 3
    pid_file = path.parent / PID_NAME
    pid_file.write_text(f"{os.getpid()}\n")
    loop = EngineLoop(server=True)
    stopped = threading.Event()

    def stop_listening() -> None:
        # An engine that is ending takes no new window: the next connect starts a
        # fresh engine instead of attaching to this one as it goes.
        if not stopped.is_set():
            stopped.set()
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
            with contextlib.suppress(OSError):
                path.unlink()

    loop.on_ending.append(stop_listening)
    signal.signal(signal.SIGTERM, lambda *_: loop._end(orphaned=False))
    log.info("engine serving on %s (pid %d), ends after %.0f min idle", path, os.getpid(),
             idle_minutes)
    threading.Thread(target=_accept, args=(loop, listener), name="engine-accept",
                     daemon=True).start()
    threading.Thread(target=_end_when_idle, args=(loop, idle_minutes * 60),
                     name="engine-idle", daemon=True).start()
    try:
        run_engine(loop, log_file)
        loop.let_window_go(seconds=5.0)  # its jobs' last messages reach it first
    finally:
        stop_listening()
        with contextlib.suppress(OSError):
            pid_file.unlink()
    return 0
