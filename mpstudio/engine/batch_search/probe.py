"""One try of the batch-size finder: ``python -m mpstudio.engine.batch_search.probe``
reads a request (JSON on stdin: the try's run spec, at its batch and a few steps, and
the cap), trains
that many steps through the run path every run takes (runner.run), and prints one
``TRY_MARK`` line of JSON saying whether the batch fit.

It runs in a fresh process for every try, so each starts with clean device memory
(TensorFlow never gives a GPU's memory back to the device) and a crash past a CPU cap
(an unchecked allocation) ends this process only; the finder counts it as "did not fit".
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

TRY_MARK = "mpstudio-try: "
# Outcomes of a try. fits: trained its steps; out_of_memory: TensorFlow (or Python)
# ran out; crashed: the process died (a signal, an abort) before saying; too_large:
# the batch is more than the training data holds; error: anything else (the search
# stops: it would fail at every batch).
FITS, OUT_OF_MEMORY, CRASHED, TOO_LARGE, ERROR = (
    "fits", "out_of_memory", "crashed", "too_large", "error")
_MEMORY_ERRORS = ("MemoryError", "bad_alloc", "Cannot allocate memory")


@dataclass(frozen=True)
class TryRequest:
    spec: dict[str, Any]  # RunSpec.to_dict(): the try's run (its batch, a few steps)
    cap_mib: float | None = None  # None: no cap (the device's whole memory)


@dataclass(frozen=True)
class TryOutcome:
    batch_size: int
    outcome: str
    detail: str = ""  # for people: TensorFlow's message, the error, the signal
    batch_limit: int | None = None  # too_large: the largest batch the data allows
    seconds: float = 0.0
    peak_memory_bytes: int | None = None
    examples_per_sec: float | None = None
    device: str = ""

    @property
    def fits(self) -> bool:
        return self.outcome == FITS

    def to_json(self) -> str:
        return TRY_MARK + json.dumps(asdict(self), allow_nan=False)

    @classmethod
    def from_line(cls, line: str) -> TryOutcome | None:
        if not line.startswith(TRY_MARK):
            return None
        try:
            return cls(**json.loads(line[len(TRY_MARK):]))
        except (ValueError, TypeError):
            return None


class _Quiet:
    """The run's events go nowhere: the finder reports tries, not steps."""

    def emit(self, event: Any) -> None:
        pass

    def should_stop(self) -> bool:
        return False


def _limit_memory(cap_mib: float | None) -> str:
    """Apply the cap (or the saved GPU memory settings, as a run would); where it went:
    "gpu", "cpu" or "" (no cap). Before any tensor exists: TensorFlow makes its CPU
    allocator, and starts a GPU, on the first one."""
    import os

    import tensorflow as tf

    from mpstudio.engine.batch_search.memory_cap import cap_gpu_memory, cap_target
    from mpstudio.engine.cpu_allocator import capped_environment
    from mpstudio.engine.hardware.gpu_memory import apply_saved_gpu_memory

    if cap_mib is None:
        apply_saved_gpu_memory()
        return ""
    target = cap_target([d.name for d in tf.config.list_physical_devices("GPU")])
    if target == "gpu":
        cap_gpu_memory(cap_mib)  # replaces the saved settings: a limit is the question
    else:
        os.environ.update(capped_environment(cap_mib))
    return target


def try_batch(request: TryRequest) -> TryOutcome:
    """Train ``request.steps`` steps at the spec's batch; what happened. Call in a
    process of its own (the cap and the device memory are the process's)."""
    from mpstudio.engine.batch_search.memory_cap import MemoryCapError, cap_problem
    from mpstudio.engine.said import render
    from mpstudio.engine.spec import RunSpec, SpecError

    spec = RunSpec.from_dict(request.spec)
    batch = spec.batch_size
    problem = cap_problem(request.cap_mib)  # a NaN cap would fail every try alike
    if problem:
        return TryOutcome(batch, ERROR, problem)
    started = time.perf_counter()
    try:
        _limit_memory(request.cap_mib)
    except MemoryCapError as exc:
        return TryOutcome(batch, ERROR, str(exc))
    # Imported once the cap is set (it imports TensorFlow), and outside the try below,
    # whose except clause names RunSetupError: an error before the import made that
    # clause itself fail with an UnboundLocalError.
    from mpstudio.engine.trainer.runner import RunSetupError, run

    try:
        result = run(spec, _Quiet(), oom_retry=False)
    except SpecError as exc:
        if exc.batch_limit is not None:
            return TryOutcome(batch, TOO_LARGE, str(exc), batch_limit=exc.batch_limit)
        return TryOutcome(batch, ERROR, str(exc))
    except MemoryError as exc:
        return TryOutcome(batch, OUT_OF_MEMORY, f"MemoryError: {exc}",
                          seconds=time.perf_counter() - started)
    except RunSetupError as exc:  # data or model could not be set up: out of memory too?
        kind = OUT_OF_MEMORY if _memory_words(str(exc)) else ERROR
        return TryOutcome(batch, kind, str(exc), seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    summary = result.summary
    failure = result.failure
    if failure is None or failure.kind == "diverged":  # memory held: the loss is not asked
        outcome, detail = FITS, ""
    elif failure.kind == "out_of_memory" or _memory_words(render(failure.reason)):
        outcome, detail = OUT_OF_MEMORY, render(failure.reason)
    else:
        outcome, detail = ERROR, render(failure.reason)
    # the capped CPU allocator counts what it hands out: the run measured its peak
    return TryOutcome(batch, outcome, detail, seconds=seconds,
                      peak_memory_bytes=summary.peak_memory_bytes,
                      examples_per_sec=summary.steady_examples_per_sec, device=summary.device)


def _memory_words(text: str) -> bool:
    """Whether a failure's words are running out of memory: TensorFlow's own families
    (oom_retry) inside a setup error's text, or Python's and C++'s."""
    from mpstudio.engine.trainer.oom_retry import OOM_MESSAGES

    lowered = text.lower()
    return any(word.lower() in lowered
               for word in (*_MEMORY_ERRORS, *(marker for marker, _ in OOM_MESSAGES)))


PARENT_ENV = "MPSTUDIO_TRY_PARENT"  # the pid of the process that started the try


def _end_with_parent() -> None:
    """On Linux, die when the process that started the try does (an engine killed in the
    middle of a search must not leave a try holding the device's memory)."""
    import os

    parent = os.environ.get(PARENT_ENV)
    if not sys.platform.startswith("linux") or not parent:
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1  # linux/prctl.h
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, int(signal.SIGKILL))
    if os.getppid() != int(parent):  # it ended before the line above
        os._exit(1)


def main() -> int:
    import os

    _end_with_parent()

    from mpstudio.engine.i18n import ENV, set_language

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    set_language(os.environ.get(ENV))  # the details are said in the finder's language
    request = TryRequest(**json.loads(sys.stdin.read()))
    print(try_batch(request).to_json(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
