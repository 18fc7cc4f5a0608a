"""Python logging for each mpstudio process, in the user's log folder: window.log for
the window, cli.log for a command, engine.log for the window's engine process.

One place decides the folder (``log_dir``: also where quiet_stderr sends the engine's
file descriptor 2), the format (time, pid, level, logger), the level (``mpstudio
--log-level``, carried to every process started from here by $MPSTUDIO_LOG_LEVEL) and
what an uncaught exception leaves: its traceback in the log. A log that cannot be
written (a read-only home) costs the file, never the program: the caller says so once.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import platform
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import platformdirs

from mpstudio.engine.i18n import _

LOG_DIR_ENV = "MPSTUDIO_LOG_DIR"  # the folder for every log instead of the user log folder
LEVEL_ENV = "MPSTUDIO_LOG_LEVEL"  # debug | info | warning | error; inherited by children
LEVELS = ("debug", "info", "warning", "error")
DEFAULT_LEVEL = "info"
MAX_BYTES = 1_000_000  # a log past this is moved to <name>.1 ...
BACKUPS = 3  # ... and <name>.1 to <name>.2, up to this many old logs kept
KINDS = ("window", "cli", "engine")
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

log = logging.getLogger(__name__)
_this_log: Path | None = None  # the file this process logs to, once configured


@dataclass(frozen=True)
class LogSetup:
    """What ``configure`` did: the file (None: no file, ``reason`` says why)."""

    path: Path | None
    folder: Path | None = None
    reason: str = ""

    @property
    def problem(self) -> str:
        """Why there is no log file, in words (in the language in force when asked: the
        window sets its language after logging has started)."""
        if self.path is not None:
            return ""
        return _("cannot write the log in {folder} ({reason}): this session keeps no log "
                 "file").format(folder=self.folder, reason=self.reason)


def log_dir() -> Path:
    """$MPSTUDIO_LOG_DIR, else the user log folder (~/.local/state/mpstudio/log on
    Linux, ~/Library/Logs/mpstudio on macOS, %LOCALAPPDATA%\\mpstudio\\Logs on Windows)."""
    folder = os.environ.get(LOG_DIR_ENV) or platformdirs.user_log_dir("mpstudio",
                                                                      appauthor=False)
    return Path(folder).expanduser()


def log_path(kind: str) -> Path:
    """The log of a process ``kind`` (window, cli or engine)."""
    return log_dir() / f"{kind}.log"


def this_process_log() -> Path | None:
    """The file this process logs to (None: not configured, or it could not be written)."""
    return _this_log


def level_name() -> str:
    """The level in force: $MPSTUDIO_LOG_LEVEL when it names one, else info."""
    value = os.environ.get(LEVEL_ENV, "").strip().lower()
    return value if value in LEVELS else DEFAULT_LEVEL


def set_level(name: str) -> None:
    """This process's level from now on, and that of every process it starts."""
    os.environ[LEVEL_ENV] = name


def debugging() -> bool:
    return level_name() == "debug"


class _SharedRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Two commands may log to cli.log at once. On Windows a file another process holds
    open cannot be renamed: then this process keeps appending and stops rotating,
    instead of failing (and complaining on stderr) at every line."""

    def doRollover(self) -> None:
        try:
            super().doRollover()
        except OSError:
            self.maxBytes = 0
            if self.stream is None:
                self.stream = self._open()


def _rotating_handler(path: Path, delay: bool) -> logging.handlers.RotatingFileHandler:
    # backslashreplace: an argument whose bytes are not UTF-8 (a surrogate escape in
    # sys.argv) is logged as \udcff, never a "--- Logging error ---" on stderr
    return _SharedRotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                      encoding="utf-8", errors="backslashreplace",
                                      delay=delay)


def rotate_if_large(path: Path) -> None:
    """Move a log past MAX_BYTES aside as the handlers do (<name>.1, .2 ...), for a file
    that is opened once and then only appended to (the engine's stderr)."""
    if path.is_file() and path.stat().st_size > MAX_BYTES:
        handler = _rotating_handler(path, delay=True)  # delay: it opens nothing
        try:
            handler.doRollover()
        finally:
            handler.close()


def configure(kind: str, versions: dict[str, str] | None = None,
              command: list[str] | None = None) -> LogSetup:
    """Send this process's logging to ``<kind>.log`` (window or cli) at the level in
    force, capture Python's warnings there, and log the start with ``versions`` and
    ``command`` (default: sys.argv). Called again (a test calling the CLI twice), it
    replaces what it set up before."""
    global _this_log
    path = log_path(kind)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = _rotating_handler(path, delay=False)
    except OSError as exc:
        # No file: warnings and errors reach stderr at least, as with no logging set up.
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        _install(handler)
        _this_log = None
        return LogSetup(None, path.parent, str(exc.strerror or exc))
    _install(handler)
    _this_log = path
    _log_start(kind, versions, command)
    return LogSetup(path)


def configure_engine(stderr_file: Path | None, versions: dict[str, str] | None = None) -> None:
    """The engine process logs to its stderr, which quiet_stderr.engine_log has sent to
    engine.log (``stderr_file``; None: the terminal, as the user asked for TensorFlow's
    logs or the file could not be written).

    Why not a RotatingFileHandler of its own: file descriptor 2 (C++ code, absl,
    faulthandler) holds engine.log open for the life of the process. A handler that
    rotated it would rename the file under that descriptor, and the C++ lines would go
    on into engine.log.1 while Python's went to a new engine.log. So one writer: one
    open file (O_APPEND), rotated once as the engine starts, before it is opened
    (rotate_if_large); Python's records reach it through sys.stderr, in order with
    what the C++ code prints."""
    global _this_log
    handler = logging.StreamHandler(sys.stderr)
    if stderr_file is None:  # the terminal: its warnings and errors, not every job's line
        handler.setLevel(logging.WARNING)
    _install(handler)
    _this_log = stderr_file
    _log_start("engine", versions)


def _install(handler: logging.Handler) -> None:
    handler.setFormatter(logging.Formatter(FORMAT))
    handler._mpstudio = True  # type: ignore[attr-defined]  # replaced by the next configure
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_mpstudio", False)]:
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    level = getattr(logging, level_name().upper())
    # --log-level debug is for mpstudio's own records: other libraries' debug chatter
    # (PIL's chunks, matplotlib's fonts) would bury them, so the root stays at info.
    root.setLevel(max(level, logging.INFO))
    logging.getLogger("mpstudio").setLevel(level)
    logging.captureWarnings(True)


def _log_start(kind: str, versions: dict[str, str] | None,
               command: list[str] | None = None) -> None:
    from mpstudio import __version__

    listed = {"Python": platform.python_version(),
              **{name: value for name, value in (versions or {}).items() if name != "mpstudio"}}
    log.info("mpstudio %s %s process started (pid %d, log level %s): %s; %s; %s",
             __version__, kind, os.getpid(), level_name(),
             ", ".join(f"{name} {value}" for name, value in listed.items()),
             platform.platform(), " ".join(sys.argv if command is None else command))


ExceptionCallback = Callable[[type[BaseException], BaseException, TracebackType | None, str],
                             None]


def log_uncaught(then: ExceptionCallback | None = None) -> Callable[[], None]:
    """Log every uncaught exception, of the main thread (sys.excepthook) or another
    (threading.excepthook), with its traceback; then call ``then(type, value,
    traceback, thread name)`` (the window shows it). Ctrl-C keeps its usual ending.
    Returns what puts the previous hooks back."""
    previous, previous_thread = sys.excepthook, threading.excepthook

    def report(kind: type[BaseException], value: BaseException,
               tb: TracebackType | None, thread: str) -> None:
        log.critical("uncaught %s in thread %s", kind.__name__, thread,
                     exc_info=(kind, value, tb))
        if then is not None:
            then(kind, value, tb, thread)

    def main_hook(kind: type[BaseException], value: BaseException,
                  tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
            return
        report(kind, value, tb, threading.current_thread().name)

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return  # the default hook ignores SystemExit too
        name = args.thread.name if args.thread is not None else "?"
        report(args.exc_type, args.exc_value, args.exc_traceback, name)

    sys.excepthook, threading.excepthook = main_hook, thread_hook

    def restore() -> None:
        sys.excepthook, threading.excepthook = previous, previous_thread

    return restore
