"""A run's opt-in op profile: which steady steps to trace, and the result into its summary.

The traced steps stay in the run's timing: profiling a handful of steps out of
hundreds moves the measured speed by a percent or two, on both sides of a
comparison alike. The trace goes to a scratch folder removed afterwards; only the
aggregated table (OpProfile) is kept, in the run's summary and history.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import keras

from mpstudio.engine.events import Reporter, RunSummary, RunWarning
from mpstudio.engine.i18n import _
from mpstudio.engine.profiling.step_profiler import StepProfiler
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.monitor import WARMUP_STEPS
from mpstudio.engine.trainer.run_setup import PreparedRun

PROFILE_STEPS = 5  # enough to average the profiler's own start-up over
SETTLE_STEPS = 2  # after the warm-up, before tracing: tf.data and the allocator settle


class RunProfile(TrainingAid):
    def __init__(self, start_step: int, steps: int, reporter: Reporter):
        self.folder = Path(tempfile.mkdtemp(prefix="mpstudio-profile-"))
        self.callback = StepProfiler(start_step, steps, self.folder)
        self.reporter = reporter

    @classmethod
    def attach(cls, run: PreparedRun) -> RunProfile | None:
        """Trace the steady steps run() was asked for (``profile_steps``; fewer in a
        short run); None when none is asked or the run has no step after its warm-up."""
        steps, total_steps = run.request.profile_steps, run.total_steps
        if steps <= 0 or total_steps <= WARMUP_STEPS:
            return None
        start = min(WARMUP_STEPS + SETTLE_STEPS + 1, total_steps)
        return cls(start, max(1, min(steps, total_steps - start + 1)), run.reporter)

    def callbacks(self) -> Sequence[keras.callbacks.Callback]:
        return (self.callback,)

    def training_ended(self) -> None:
        self.callback.close()

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        """The summary with the profile; a profile that failed is a warning, not a
        failed run. The trace files are removed either way."""
        shutil.rmtree(self.folder, ignore_errors=True)
        profile = self.callback.profile
        if profile is None:
            self.reporter.emit(RunWarning(_("no op profile: {reason}").format(
                reason=self.callback.problem or _("not taken"))))
            return summary
        return dataclasses.replace(summary, op_profile=profile.to_dict())
