"""Hiding what C++ code (absl, the TFLite converter, LiteRT) prints straight to file
descriptor 2, where Python's sys.stderr cannot catch it; and TensorFlow's start-up
chatter, decided in one place for the CLI and the engine process alike. The window's
engine process sends its file descriptor 2 to a log file instead (``engine_log``)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from mpstudio.engine.app_log import MAX_BYTES, log_path, rotate_if_large

LOG_KEEP_BYTES = MAX_BYTES  # a larger log is moved to engine.log.1 when an engine starts
_log_file: Path | None = None  # where file descriptor 2 goes in this process, if a file


@contextlib.contextmanager
def stderr_hidden() -> Iterator[None]:
    """The converter's MLIR passes print pages of diagnostics, and LiteRT announces
    its CPU delegate; the exceptions carry the part that matters."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


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
    that decides, for the CLI and the window alike; TF_CPP_MIN_LOG_LEVEL=0 shows them.
    In the engine process they go to its log file (engine_log) like all it prints."""
    if tensorflow_logs_wanted() or _log_file is not None:
        yield
        return
    # Once started, TensorFlow honours the level: a user's 1 or 2 stays theirs.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with stderr_hidden():
        yield


def engine_log_path() -> Path:
    """engine.log in the log folder (app_log.log_dir: $MPSTUDIO_LOG_DIR or the user's)."""
    return log_path("engine")


def engine_log() -> Path | None:
    """The window's engine process: send file descriptor 2 to the engine log for good.
    The terminal that launched the app then shows none of TensorFlow's C++ lines
    (absl's pre-init notes; "failed call to cuInit" on a machine without a GPU), in
    whichever job or thread they come, while its warnings and errors, and the engine's
    tracebacks, stay in the file for the user to read. None: stderr stays the
    terminal's, because the user asked for TensorFlow's logs (TF_CPP_MIN_LOG_LEVEL=0)
    or the log cannot be written. Call before TensorFlow is imported: it reads the
    level once."""
    global _log_file
    if tensorflow_logs_wanted():
        return None
    path = engine_log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        rotate_if_large(path)  # only here: see app_log.configure_engine
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:
        return None  # a read-only home: tensorflow_logs_hidden still keeps it quiet
    # In the file, INFO is noise; warnings and errors are what the user looks for.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    sys.stderr.flush()
    os.dup2(fd, 2)
    os.close(fd)
    _log_file = path
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"--- mpstudio engine process {os.getpid()} started {started}", file=sys.stderr,
          flush=True)
    return path
