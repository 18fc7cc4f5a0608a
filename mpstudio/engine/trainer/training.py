"""The second stage of a run attempt: train in the run's loop, and say how it ended.

Once training starts, nothing raises out of here: an error, out of memory, a lost
worker and a diverged loss each become a TrainingEnd that the conclusion turns into
a RunFailed event.
"""

from __future__ import annotations

from dataclasses import dataclass

import tensorflow as tf

from mpstudio.engine.distribute.cluster import lost_peer_message
from mpstudio.engine.events import NumericsDiagnosis
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said
from mpstudio.engine.trainer.aids.training_aid import AttachedAids
from mpstudio.engine.trainer.divergence import explain_divergence
from mpstudio.engine.trainer.fit_loop import run_fit
from mpstudio.engine.trainer.oom_retry import out_of_memory
from mpstudio.engine.trainer.run_setup import PreparedRun, run_log


@dataclass(frozen=True)
class Problem:
    """Why an attempt did not finish, as its RunFailed event says it."""

    reason: Said  # shown now, kept in the history as its message
    kind: str  # error | worker_lost | diverged | out_of_memory
    step: int


@dataclass(frozen=True)
class TrainingEnd:
    problem: Problem | None = None
    out_of_memory: tuple[str, str] | None = None  # (what ran out, TensorFlow's message)
    diagnosis: NumericsDiagnosis | None = None  # of a diverged run


def train(run: PreparedRun, aids: AttachedAids) -> TrainingEnd:
    monitor = run.monitor
    problem: Problem | None = None
    oom: tuple[str, str] | None = None
    try:
        if run.loop is not None:
            run.loop.run(run.bundle, monitor, run.epochs)
        else:
            run_fit(run.model, run.bundle, monitor, run.epochs, aids.callbacks)
    except tf.errors.OpError as exc:
        what = out_of_memory(exc)
        lost = lost_peer_message(str(exc), run.placement.cluster, monitor.steps)
        if what:
            oom = (what, str(exc))
            run_log.warning("%s: out of memory (%s) at step %d", run.label, what, monitor.steps)
        else:
            problem = Problem(lost or _training_failed(monitor.steps, exc),
                              "worker_lost" if lost else "error", monitor.steps)
            run_log.error("%s: TensorFlow error at step %d", run.label, monitor.steps,
                          exc_info=True)
    except Exception as exc:  # a run must end with a reason, never a crash
        problem = Problem(_training_failed(monitor.steps, exc), "error", monitor.steps)
        run_log.error("%s: training failed at step %d", run.label, monitor.steps,
                      exc_info=True)
    finally:
        aids.training_ended()  # a custom loop calls no on_train_end, a failed fit neither
    if problem is None and oom is None:
        monitor.check_weights()  # the run's end (a no-op when its last epoch's end checked)
    diagnosis = None
    if problem is None and monitor.divergence is not None:
        reason, diagnosis = explain_divergence(monitor.divergence, run.spec, run.model,
                                               run.bundle, run.reporter)
        problem = Problem(reason, "diverged", monitor.divergence.step)
    return TrainingEnd(problem, oom, diagnosis)


def _training_failed(step: int, exc: BaseException) -> Said:
    return said(N_("training failed at step {step}: {error}"), step=step,
                error=f"{type(exc).__name__}: {exc}")
