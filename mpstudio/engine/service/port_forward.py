"""A port of a server's loopback, reached from this computer: ``ssh -N -L`` with the
same ssh, options and host as the engine's connection (engine_target.py), so the user's
keys, config, jump hosts and ControlMaster apply to it too.

What listens on the server (its TensorBoard) stays on the server's loopback; the
forward listens on this computer's loopback only. ``ExitOnForwardFailure``: a forward
that cannot be set up ends ssh with its reason, said in one sentence, instead of a
connection that forwards nothing.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mpstudio.engine.i18n import _
from mpstudio.engine.service.engine_target import (
    SSH_ENV,
    SSH_OPTIONS,
    EngineTarget,
    connection_failure,
)

LOOPBACK = "127.0.0.1"


class ForwardError(RuntimeError):
    """The forward could not be set up; the message is one sentence."""


@dataclass
class PortForward:
    local_port: int
    remote_port: int
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.local_port}/"

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()


def forward_argv(target: EngineTarget, local_port: int, remote_port: int) -> list[str]:
    ssh = shlex.split(os.environ.get(SSH_ENV, "ssh"))
    port = ["-p", str(target.port)] if target.port else []
    return [*ssh, *SSH_OPTIONS, "-o", "ExitOnForwardFailure=yes", "-N",
            "-L", f"{LOOPBACK}:{local_port}:{LOOPBACK}:{remote_port}", *port, target.host]


def open_forward(target: EngineTarget, remote_port: int, timeout: float = 30.0,
                 should_stop: Callable[[], bool] | None = None) -> PortForward:
    """Forward a free local port to ``remote_port`` on the server's loopback; returns
    once the local end accepts connections (ForwardError: why not)."""
    if target.kind != "ssh":
        raise ForwardError(_(
            "the engine is reached through {command}, which cannot forward a port: run "
            "`mpstudio tensorboard RUN_ID` there and forward its port yourself").format(
                command=target.label))
    local_port = _free_port()
    process = subprocess.Popen(forward_argv(target, local_port, remote_port),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
    forward = PortForward(local_port, remote_port, process)
    deadline = time.monotonic() + timeout
    while not _accepts(local_port):
        code = process.poll()
        if code is not None:
            said = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
            forward.stop()
            raise ForwardError(connection_failure(target, code, said))
        if time.monotonic() > deadline or (should_stop is not None and should_stop()):
            forward.stop()
            raise ForwardError(_("ssh did not forward a port from {host} within {seconds:g} "
                                 "s").format(host=target.label, seconds=timeout))
        time.sleep(0.1)
    return forward


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def _accepts(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, port), 0.5):
        return True
    return False
