"""Hiding what C++ code (absl, the TFLite converter, LiteRT) prints straight to file
descriptor 2, where Python's sys.stderr cannot catch it."""

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
