"""Hiding what C++ code (absl, the TFLite converter, LiteRT) prints straight to file
descriptor 2, where Python's sys.stderr cannot catch it; and TensorFlow's start-up
chatter, decided in one place for the CLI and the engine process alike."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


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
    that decides, for the CLI and the window alike; TF_CPP_MIN_LOG_LEVEL=0 shows them."""
    if tensorflow_logs_wanted():
        yield
        return
    # Once started, TensorFlow honours the level: a user's 1 or 2 stays theirs.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with stderr_hidden():
        yield
