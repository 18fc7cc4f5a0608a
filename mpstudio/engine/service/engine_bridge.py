"""``mpstudio engine connect``: a window's way in to a server's engine.

ssh (or srun, or kubectl exec) runs this on the server with the window's frames on
its stdin and stdout; it starts the user's engine there if none runs (``mpstudio
engine serve``, in a session of its own so that no hang-up of the connection reaches
it), then copies bytes both ways between its stdin/stdout and the engine's socket. It
reads no frame itself: the window and the engine speak to each other.

Its exit code tells the window how the connection ended, through ssh, which passes it
on: 0 the window closed its side; ENGINE_ENDED the engine closed the connection (it
ended, or let another window in); ssh's own failures are 255.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from mpstudio.engine.service.private_socket import PrivateSocketError, private_dir, socket_path

ENGINE_ENDED = 3
CANNOT_START = 4  # engine_target.CANNOT_START: no engine answers, or none could start
START_SECONDS = 60.0  # a slow shared filesystem imports Python packages slowly


class BridgeError(Exception):
    """No engine could be reached or started (the message says why and what to do)."""


def start_engine(idle_minutes: float | None = None) -> subprocess.Popen[bytes]:
    """``mpstudio engine serve`` detached: its own session (a dropped connection's
    SIGHUP does not reach it), no terminal, its messages in its log. It inherits this
    environment, so it listens where this process looks (private_socket.socket_path)."""
    command = [sys.executable, "-m", "mpstudio", "engine", "serve"]
    if idle_minutes is not None:
        command += ["--idle-minutes", f"{idle_minutes:g}"]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            close_fds=True)


def reach_engine(path: Path | None = None, start: bool = True,
                 idle_minutes: float | None = None) -> socket.socket:
    """A connection to this user's engine, started first where none answers."""
    try:
        path = path or socket_path()
        private_dir(path.parent)
    except PrivateSocketError as exc:
        raise BridgeError(str(exc)) from None
    conn = _try_connect(path)
    if conn is not None or not start:
        if conn is None:
            raise BridgeError(f"no engine runs here ({path} does not answer)")
        return conn
    engine = start_engine(idle_minutes)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        conn = _try_connect(path)
        if conn is not None:
            return conn
        code = engine.poll()
        if code is not None and code != 3:  # 3: another one started meanwhile: it answers
            from mpstudio.engine.quiet_stderr import engine_log_path

            raise BridgeError(f"the engine could not start (exit code {code}); its log on "
                              f"this machine: {engine_log_path()}")
        time.sleep(0.05)
    raise BridgeError(f"the engine did not answer on {path} within {START_SECONDS:.0f} s")


def _try_connect(path: Path) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    return conn


def bridge(conn: socket.socket, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Copy bytes between the window's streams and the engine's socket until either
    side closes; the exit code (module docstring)."""
    window_gone = threading.Event()

    def window_to_engine() -> None:
        while True:
            try:
                data = os.read(stdin_fd, 1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            try:
                conn.sendall(data)
            except OSError:
                return
        window_gone.set()  # the window's side closed (a drop, or it went away)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)

    threading.Thread(target=window_to_engine, name="bridge-in", daemon=True).start()
    while True:
        try:
            data = conn.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            break
        try:
            _write_all(stdout_fd, data)
        except OSError:  # the window's side is gone (ssh ended)
            return 0
    conn.close()
    return 0 if window_gone.is_set() else ENGINE_ENDED


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def connect(idle_minutes: float | None = None, start: bool = True) -> int:
    """The command: reach (or start, unless not ``start``) the engine and bridge to it."""
    try:
        conn = reach_engine(start=start, idle_minutes=idle_minutes)
    except BridgeError as exc:
        print(f"mpstudio engine connect: {exc}", file=sys.stderr, flush=True)
        return CANNOT_START
    return bridge(conn)
