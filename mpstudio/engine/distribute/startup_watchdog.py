"""A bound on waits that hold the interpreter.

``MultiWorkerMirroredStrategy()`` blocks in TensorFlow's C++ until every worker
has joined, without releasing the GIL: no Python thread or signal handler runs
meanwhile (and TensorFlow's own handler swallows SIGTERM). A small child process
is the only clock left: unless told the wait is over, it prints the message and
kills this process after ``seconds``. Nothing has been written at that point.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

_WATCHDOG = r"""
import os, signal, sys
parent, seconds, message = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
import select
ready, _, _ = select.select([sys.stdin], [], [], seconds)
if not ready:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    os.kill(parent, signal.SIGKILL)
"""


@contextlib.contextmanager
def bounded_wait(seconds: float, message: str) -> Iterator[None]:
    """Run the body; if it has not finished after ``seconds``, print ``message`` on
    stderr and kill this process (exit status 137)."""
    watchdog = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(seconds), message],
        stdin=subprocess.PIPE)
    try:
        yield
    finally:
        assert watchdog.stdin is not None
        with contextlib.suppress(OSError):
            watchdog.stdin.write(b"done\n")
            watchdog.stdin.close()
        watchdog.wait()
