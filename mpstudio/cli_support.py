"""What every ``mpstudio`` command shares: exit codes, error lines, quiet TensorFlow
start-up, Ctrl-C as a cooperative stop, and a console sized for logs."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator

from rich.console import Console

from mpstudio.engine.quiet_stderr import stderr_hidden

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # the shell's code for a process ended by SIGINT


def ended_early(command: str, exc: Exception) -> int:
    """One line for work that could not go on: a user's stop exits 0, a failure 1."""
    from mpstudio.engine.datasets.errors import DataLoadStopped

    if isinstance(exc, DataLoadStopped):
        print(f"mpstudio {command}: {exc}", file=sys.stderr)
        return EXIT_OK
    print(f"mpstudio {command}: error: {exc}", file=sys.stderr)
    return EXIT_FAILED


def make_console(stderr: bool) -> Console:
    plain = Console(stderr=stderr)  # a log file or pipe gets 80 columns: too narrow
    return plain if plain.is_terminal else Console(stderr=stderr, width=110)


def usage_error(command: str, problems: list[str]) -> int:
    for problem in problems:
        print(f"mpstudio {command}: error: {problem}", file=sys.stderr)
    return EXIT_USAGE


def tensorflow_logs_wanted() -> bool:
    """The user asked for TensorFlow's start-up logs: TF_CPP_MIN_LOG_LEVEL=0. Those lines
    are INFO (and a CUDA probe's ERROR on machines without a GPU), which levels 1-3 say
    the user does not want; absl just prints them before it reads the level."""
    return os.environ.get("TF_CPP_MIN_LOG_LEVEL", "").strip() == "0"


@contextlib.contextmanager
def tensorflow_logs_hidden() -> Iterator[None]:
    """Import TensorFlow without its C++ start-up chatter (absl's "All log messages
    before absl::InitializeLog()", oneDNN and CUDA probing notes). absl writes those
    pre-init lines straight to file descriptor 2 whatever TF_CPP_MIN_LOG_LEVEL says (twice
    in TF 2.21's `import tensorflow`), so only hiding fd 2 silences them. The one place
    that decides, for the CLI and the window alike; TF_CPP_MIN_LOG_LEVEL=0 shows them."""
    if tensorflow_logs_wanted():
        yield
        return
    # Once started, TensorFlow honours the level: a user's 1 or 2 stays theirs.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with stderr_hidden():
        yield


class StopFlag:
    """A stop request for work that polls ``should_stop`` (what ctrl_c_stops sets)."""

    def __init__(self) -> None:
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True

    def should_stop(self) -> bool:
        return self.stopped


@contextlib.contextmanager
def ctrl_c_stops(reporter) -> Iterator[None]:
    """First Ctrl-C stops cooperatively after the current step; a second one aborts."""

    def handler(signum, frame):
        print("\nstopping after this step (Ctrl-C again to abort)", file=sys.stderr)
        reporter.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
