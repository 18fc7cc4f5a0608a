"""Stop before a training job's first step: there is nothing to keep yet, so a Stop
then ends the job at once instead of waiting for the first step (building and tracing
a resnet's step takes seconds on a CPU, and TensorFlow cannot be interrupted inside it).

``FirstStepWatch`` follows a job's events and says when that is so; the window ends its
engine process then (ui/engine_client/run_controller.py), the command line raises
``StoppedBeforeFirstStep`` from its Ctrl-C handler (cli/support.py). Either way the run
the history opened is ended as stopped, with ``STOPPED_BEFORE_FIRST_STEP`` as why.

No Qt and no TensorFlow here: both front ends use it.
"""

from __future__ import annotations

from typing import Any

from mpstudio.engine.events import (
    EpochMetrics,
    Event,
    PassingReporter,
    Reporter,
    RunFailed,
    RunFinished,
    RunStarted,
    StepMetrics,
)
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said

# The history's reason for a run stopped this way (in the reader's language when shown)
STOPPED_BEFORE_FIRST_STEP = N_("stopped before its first step: nothing had trained yet")
# Events that mean a job has something to keep: a step's metrics (step 1 is always
# reported), an epoch, or a run that ended (a comparison's earlier run).
_KEPT = (StepMetrics, EpochMetrics, RunFinished, RunFailed)


def stopped_reason() -> Said:
    return said(STOPPED_BEFORE_FIRST_STEP)


class StoppedBeforeFirstStep(KeyboardInterrupt):
    """Raised where a Stop ends a run before its first step. A KeyboardInterrupt, so no
    ``except Exception`` inside Keras or TensorFlow (autograph falls back on those)
    takes it for an error of the code it interrupts."""


class FirstStepWatch:
    """Whether a training job is past the point where a Stop can end it at once: a run
    has started (its data is loaded and its model built; a data download stops on its
    own flag, and is better not cut off mid-file) and nothing has been kept yet."""

    def __init__(self) -> None:
        self.begun = False
        self.kept = False

    def see(self, event: Any) -> None:
        if type(event) is RunStarted:
            self.begun = True
        elif isinstance(event, _KEPT):
            self.kept = True

    @property
    def nothing_to_keep(self) -> bool:
        return self.begun and not self.kept


class WatchingReporter(PassingReporter):
    """Passes every event on to ``inner``, and shows it to ``watch`` first."""

    def __init__(self, inner: Reporter, watch: FirstStepWatch) -> None:
        super().__init__(inner)
        self.watch = watch

    def emit(self, event: Event) -> None:
        self.watch.see(event)
        self.inner.emit(event)
