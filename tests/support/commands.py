"""The real ``mpstudio`` command in a process of its own, as a user runs it, and what
TensorFlow prints that the command must keep out of a user's terminal."""

from __future__ import annotations

import os
import subprocess
import sys

# What TensorFlow prints at import, straight to fd 2 and whatever TF_CPP_MIN_LOG_LEVEL says:
# absl's pre-init warning, then port.cc (oneDNN) and cudart_stub.cc (no GPU) notes, twice.
TENSORFLOW_NOISE = ("absl::InitializeLog", "I0000", "cudart_stub")


def mpstudio(*args: str, timeout: float = 300, log_level: str | None = None,
             env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A real ``mpstudio`` process, with TF_CPP_MIN_LOG_LEVEL as a user may have set it
    (None: not set; the CLI hides TensorFlow's chatter itself)."""
    env = dict(os.environ, **(env_extra or {}))
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    if log_level is not None:
        env["TF_CPP_MIN_LOG_LEVEL"] = log_level
    return subprocess.run([sys.executable, "-m", "mpstudio", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)
