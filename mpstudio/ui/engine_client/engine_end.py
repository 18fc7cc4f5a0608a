"""How an engine process ended while it had work: by which signal or exit code, during
what, and whether Stop now asked for it; in words for the log, the banner and the
history."""

from __future__ import annotations

import signal
from dataclasses import dataclass

SIGNAL_MEANING = {  # how "the engine process ..." ended, and why, by its signal
    "SIGKILL": ("was killed", "by the system, often for running out of memory, or from "
                "outside"),
    "SIGSEGV": ("crashed", "a segmentation fault inside TensorFlow or a converter"),
    "SIGABRT": ("was aborted", "a failed check inside TensorFlow's C++ code"),
    "SIGBUS": ("crashed", "a bus error"),
    "SIGFPE": ("crashed", "a floating-point exception"),
    "SIGTERM": ("was terminated", "by a signal from outside mpstudio"),
}


@dataclass(frozen=True)
class EngineEnd:
    """How an engine process ended while it still had work."""

    exit_code: int  # negative: the signal number that ended it
    doing: str  # what it was doing ("the mixed_float16 run"), "" when idle
    requested: bool  # True: Stop now ended it

    @property
    def how(self) -> str:
        if self.exit_code < 0:
            try:
                name = signal.Signals(-self.exit_code).name
            except ValueError:
                name = f"signal {-self.exit_code}"
            if self.requested:
                return f"ended by Stop now ({name})"
            verb, why = SIGNAL_MEANING.get(name, ("was ended by a signal", ""))
            return f"{verb} ({name}: {why})" if why else f"{verb} ({name})"
        return f"exited with code {self.exit_code}"

    @property
    def message(self) -> str:
        doing = f" during {self.doing}" if self.doing else ""
        if self.requested:
            return f"stopped now: the engine was ended{doing}"
        return f"the engine process {self.how}{doing}"
