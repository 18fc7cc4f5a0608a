"""An opt-in callback that traces a few training steps with tf.profiler and reads the
trace back as an OpProfile (time per op type, input wait, casts).

Only batch *begin* is hooked: a Keras callback that overrides on_train_batch_end makes
fit dispatch callbacks synchronously and turn every step's logs into Python numbers,
which slows every step of the run, not just the profiled ones.

Batches are counted by the calls themselves, from 1 over the whole run (epochs go on
counting): Keras passes the index within the epoch, and a custom loop may pass anything.
Profiling never raises into training: a failure leaves .profile None and says why in
.problem.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import keras
import tensorflow as tf

from mpstudio.engine.i18n import _
from mpstudio.engine.profiling.op_profile import OpProfile
from mpstudio.engine.profiling.xplane_reader import find_xplanes, read_profile

_WAITING, _RUNNING, _DONE = "waiting", "running", "done"


class StepProfiler(keras.callbacks.Callback):
    def __init__(self, start_step: int, steps: int, logdir: Path) -> None:
        super().__init__()
        if start_step < 1 or steps < 1:
            raise ValueError(f"start_step and steps must be at least 1, not "
                             f"{start_step} and {steps}")
        self.start_step = start_step
        self.steps = steps
        self.logdir = Path(logdir)
        self.profile: OpProfile | None = None
        self.problem: str | None = None
        self.trace_path: Path | None = None
        self.wall_seconds = 0.0  # between the profiler's start and stop
        self.steps_profiled = 0
        self._batches = 0  # on_train_batch_begin calls so far
        self._state = _WAITING
        self._started_at = 0.0
        self._earlier_traces: dict[Path, int] = {}

    @property
    def finished(self) -> bool:
        return self._state == _DONE

    @property
    def step_time(self) -> float | None:
        return self.profile.step_time if self.profile else None

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._batches += 1
        if self._state == _WAITING and self._batches == self.start_step:
            self._start()
        elif self._state == _RUNNING and self._batches == self.start_step + self.steps:
            self._stop(self.steps)

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._stop_early()  # validation would land in the trace as training time

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._stop_early()  # so would other callbacks' epoch-end work (checkpoints)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._state == _WAITING:
            self._state = _DONE
            self.problem = _("the run ended after {steps} steps, before step {start} where "
                             "profiling was to start").format(steps=self._batches,
                                                              start=self.start_step)
        self._stop_early()

    def close(self) -> None:
        """Stop a running profile. For a `finally:` after training: a run that raised
        gets no on_train_end, and a profiler left running blocks every later one in
        this process."""
        self._stop_early()

    def _stop_early(self) -> None:
        if self._state == _RUNNING:
            # Every batch that began since the start has finished by now.
            self._stop(self._batches - self.start_step + 1)

    def _start(self) -> None:
        try:
            self._earlier_traces = _trace_times(self.logdir)
            _sync_devices()  # queued work from earlier steps stays out of the window
            tf.profiler.experimental.start(str(self.logdir))
        except Exception as error:  # never into training
            self._state = _DONE
            self.problem = _start_problem(error)
            return
        self._state = _RUNNING
        self._started_at = time.perf_counter()

    def _stop(self, batches: int) -> None:
        self._state = _DONE
        try:
            _sync_devices()  # the profiled steps' kernels finish inside the window
            self.wall_seconds = time.perf_counter() - self._started_at
            tf.profiler.experimental.stop()
        except Exception as error:
            self.problem = _("the profiler could not stop and save its trace: "
                             "{error}").format(error=_text(error))
            return
        self.steps_profiled = batches * self._steps_per_batch()
        try:
            self.trace_path = self._new_trace()
            if self.trace_path is None:
                self.problem = _("the profiler wrote no trace under {folder}").format(
                    folder=self.logdir)
                return
            self.profile = read_profile(self.trace_path, self.steps_profiled,
                                        self.wall_seconds)
        except Exception as error:
            self.problem = _("the trace could not be read: {error}").format(
                error=_text(error))

    def _new_trace(self) -> Path | None:
        """The trace this session wrote: new, or rewritten (two sessions in the same
        second share a run folder) since the start."""
        fresh = [path for path, mtime in _trace_times(self.logdir).items()
                 if self._earlier_traces.get(path) != mtime]
        return max(fresh, key=lambda p: p.stat().st_mtime_ns) if fresh else None

    def _steps_per_batch(self) -> int:
        """fit with steps_per_execution=N calls batch hooks once per N steps."""
        model = getattr(self, "_model", None)
        per_call = getattr(model, "steps_per_execution", 1)
        return per_call if isinstance(per_call, int) and per_call > 1 else 1


def _trace_times(logdir: Path) -> dict[Path, int]:
    return {path: path.stat().st_mtime_ns for path in find_xplanes(logdir)}


def _sync_devices() -> None:
    """Wait for queued accelerator work; a no-op on a CPU. Best effort: some setups
    (inside a tf.function, some strategies) refuse, and the window is then a little
    less exact rather than broken."""
    with contextlib.suppress(Exception):
        tf.test.experimental.sync_devices()


def _start_problem(error: Exception) -> str:
    if isinstance(error, tf.errors.AlreadyExistsError):
        return _("the profiler was already running (another profile in this process, or "
                 "TensorBoard's profile_batch), so these steps were not profiled")
    return _("the profiler could not start: {error}").format(error=_text(error))


def _text(error: Exception) -> str:
    return getattr(error, "message", None) or str(error) or type(error).__name__
