"""What every ``mpstudio`` command shares: exit codes, error lines, quiet TensorFlow
start-up, Ctrl-C as a cooperative stop, and a console sized for logs."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator

from rich.console import Console

from mpstudio.engine.i18n import _

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # the shell's code for a process ended by SIGINT


def ended_early(command: str, exc: Exception) -> int:
    """One line for work that could not go on: a user's stop exits 0, a failure 1."""
    from mpstudio.engine.datasets.errors import DataLoadStopped

    if isinstance(exc, DataLoadStopped):
        print(_("mpstudio {command}: {message}").format(command=command, message=exc),
              file=sys.stderr)
        return EXIT_OK
    print(error_line(command, exc), file=sys.stderr)
    return EXIT_FAILED


def error_line(command: str, problem: object) -> str:
    """"mpstudio COMMAND: error: PROBLEM", the form of every error a command prints (a
    --json run finds its error by it: json_failure)."""
    return _("mpstudio {command}: error: {problem}").format(command=command, problem=problem)


def make_console(stderr: bool) -> Console:
    plain = Console(stderr=stderr)  # a log file or pipe gets 80 columns: too narrow
    return plain if plain.is_terminal else Console(stderr=stderr, width=110)


def usage_error(command: str, problems: list[str]) -> int:
    for problem in problems:
        print(error_line(command, problem), file=sys.stderr)
    return EXIT_USAGE


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
        # The abort handler first: a second Ctrl-C that arrives while this one still
        # runs (Python may run the handler again between its own lines) must abort,
        # not be taken for the first one again.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        reporter.stop()
        print("\n" + _("stopping after this step (Ctrl-C again to abort)"), file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
