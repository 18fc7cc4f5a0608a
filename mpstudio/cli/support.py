"""What every ``mpstudio`` command shares: exit codes, error lines, quiet TensorFlow
start-up, Ctrl-C as a cooperative stop, and a console sized for logs."""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.console import Console

from mpstudio.cli.trimmed_lines import TrimmedLines
from mpstudio.engine.i18n import _

if TYPE_CHECKING:
    from mpstudio.engine.first_step import FirstStepWatch

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # the shell's code for a process ended by SIGINT
log = logging.getLogger(__name__)
# The commands that import TensorFlow (CUDA's JIT cache is sized for each), and those of
# them that set the GPUs up for work, and hw --measure (these also say why their start
# is slow).
TENSORFLOW_COMMANDS = frozenset({"train", "compare", "replay", "find-batch", "doctor",
                                 "export", "hw", "data"})
GPU_WORK_COMMANDS = frozenset({"train", "compare", "replay", "find-batch", "doctor",
                               "export"})


def prepare_gpu_start(args: argparse.Namespace, command: str) -> None:
    """Before a command imports TensorFlow: on a GPU it has no machine code for (an
    H100, a B200), CUDA's JIT cache large enough to keep the kernels the driver compiles
    (engine/hardware/first_start.py; it reaches the processes the command starts too),
    and one line on stderr, before the first CUDA use, saying why the start is slow.
    Never in the way of the command."""
    if args.command not in TENSORFLOW_COMMANDS:
        return
    from mpstudio.engine.hardware.first_start import prepare_first_start

    try:
        plan = prepare_first_start()
    except Exception:  # a driver that answers oddly: the command goes on as before
        log.warning("could not tell whether the driver compiles TensorFlow's kernels",
                    exc_info=True)
        return
    works = args.command in GPU_WORK_COMMANDS or (args.command == "hw" and args.measure)
    if plan.message and works:
        print(_("mpstudio {command}: {message}").format(command=command,
                                                        message=plan.message),
              file=sys.stderr, flush=True)


def ended_early(command: str, exc: Exception) -> int:
    """One line for work that could not go on: a user's stop exits 0, a failure 1. A
    failure caused by an unexpected error (a model that would not build) leaves that
    error's traceback in the log, and a second line says where."""
    from mpstudio.engine.datasets.errors import DataLoadStopped

    if isinstance(exc, DataLoadStopped):
        print(_("mpstudio {command}: {message}").format(command=command, message=exc),
              file=sys.stderr)
        return EXIT_OK
    log.warning("mpstudio %s could not go on: %s", command, exc,
                exc_info=exc if exc.__cause__ is not None else None)
    print(error_line(command, exc), file=sys.stderr)
    if exc.__cause__ is not None:
        print_log_hint(command)
    return EXIT_FAILED


def print_log_hint(command: str) -> None:
    """Where the details of a failure are: this process's log (nothing if it has none).
    Not an error line: a --json failure keeps the error itself (json_failure)."""
    from mpstudio.engine.app_log import this_process_log

    where = this_process_log()
    if where is not None:
        print(_("mpstudio {command}: the details are in {log}").format(command=command,
                                                                       log=where),
              file=sys.stderr)


def unexpected_error(command: str, exc: BaseException) -> int:
    """An error no command expected (a bug, or a broken install): its traceback goes to
    the log and the terminal gets one line naming the log; the traceback too with
    --log-level debug, or when there is no log to keep it."""
    log.critical("mpstudio %s failed unexpectedly", command, exc_info=exc)
    say_unexpected(command, exc)
    return EXIT_FAILED


def say_unexpected(command: str, exc: BaseException) -> None:
    """The terminal's side of an unexpected error (already logged): one line naming the
    log, the traceback too at --log-level debug or with no log file."""
    import traceback

    from mpstudio.engine.app_log import debugging, this_process_log

    where = this_process_log()
    if where is None or debugging():
        traceback.print_exception(exc, file=sys.stderr)
    error = f"{type(exc).__name__}: {exc}"
    problem = _("unexpected {error}").format(error=error) if where is None else _(
        "unexpected {error} (its traceback is in {log})").format(error=error, log=where)
    print(error_line(command, problem), file=sys.stderr)


def error_line(command: str, problem: object) -> str:
    """"mpstudio COMMAND: error: PROBLEM", the form of every error a command prints (a
    --json run finds its error by it: json_failure)."""
    return _("mpstudio {command}: error: {problem}").format(command=command, problem=problem)


def make_console(stderr: bool) -> Console:
    plain = Console(stderr=stderr)  # a log file or pipe gets 80 columns: too narrow
    if plain.is_terminal:
        return plain
    # (without rich's padding to those 110 columns at each line's end)
    return Console(file=TrimmedLines(stderr), width=110)  # type: ignore[arg-type]


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
def ctrl_c_held() -> Iterator[None]:
    """A Ctrl-C while TensorFlow is imported is held until the import has finished, then
    raised: interrupted part-way, TensorFlow's half-initialised modules made the
    process die by the signal at exit (exit -2 instead of 130), after the message."""
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_stops(reporter, watch: FirstStepWatch | None = None) -> Iterator[None]:
    """First Ctrl-C stops cooperatively after the current step; a second one aborts.
    ``watch``: a run that has not finished its first step (tracing it can take seconds)
    has nothing to keep, and the first Ctrl-C ends it at once (StoppedBeforeFirstStep)."""

    def handler(signum, frame):
        # The abort handler first: a second Ctrl-C that arrives while this one still
        # runs (Python may run the handler again between its own lines) must abort,
        # not be taken for the first one again.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        reporter.stop()
        if watch is not None and watch.nothing_to_keep:
            from mpstudio.engine.first_step import StoppedBeforeFirstStep

            raise StoppedBeforeFirstStep
        print("\n" + _("stopping after this step (Ctrl-C again to abort)"), file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
