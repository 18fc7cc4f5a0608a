"""How a child process of the engine ended, in words: the signal that ended it, and its
own last words on stderr without TensorFlow's log noise. One reading for the TFLite
converter, a multi-worker worker and a batch-size finder try."""

from __future__ import annotations

import signal
from collections.abc import Iterable

# TensorFlow's C++ log lines and gRPC's, which end up on a child's stderr
TF_NOISE = ("WARNING:", "W0000", "I0000", "E0000", "Additional GRPC", ":UNKNOWN:")


def signal_name(returncode: int | None) -> str | None:
    """"SIGSEGV" for a process a signal ended (a negative return code); None otherwise."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def last_words(stderr: Iterable[str], lines: int = 3) -> str:
    """The child's own message: its last ``lines`` lines that are not TensorFlow's noise."""
    useful = [line.strip() for line in stderr if line.strip() and not line.startswith(TF_NOISE)]
    return " ".join(useful[-lines:])
