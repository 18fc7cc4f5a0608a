"""The last stage of a run attempt: its status, its RunSummary (the monitor's
measurements, the run's setup, then each aid's part) and its last event."""

from __future__ import annotations

import dataclasses

from mpstudio.engine.events import RunFailed, RunFinished, RunSummary
from mpstudio.engine.prediction.run_prediction import predict_run, run_device_rates
from mpstudio.engine.said import english
from mpstudio.engine.trainer.aids.training_aid import AttachedAids
from mpstudio.engine.trainer.oom_retry import oom_reason
from mpstudio.engine.trainer.run_setup import PreparedRun, run_log
from mpstudio.engine.trainer.training import Problem, TrainingEnd


def conclude(run: PreparedRun, aids: AttachedAids,
             trained: TrainingEnd) -> tuple[RunSummary, RunFailed | None]:
    """Sum the attempt up, emit its RunFinished or RunFailed, close the aids."""
    monitor, spec = run.monitor, run.spec
    peak = run.memory.finish()
    # after the peak is read: a CPU measured for its rates (once) is no part of the run.
    # A Stop is answered now: the measurement (10-20 s of CPU on a fresh install) waits
    # for a run that ends by itself.
    rates = run_device_rates(run.devices, measure=not monitor.stop_requested)
    predicted = predict_run(run.model, spec, rates)
    problem = trained.problem
    if trained.out_of_memory is not None:
        problem = Problem(oom_reason(spec, run.placement.replicas, run.model_summary.params,
                                     *trained.out_of_memory, peak.largest),
                          "out_of_memory", monitor.steps)
    if problem is not None:
        status = "diverged" if problem.kind == "diverged" else "failed"
    else:
        status = "stopped" if monitor.stop_requested else "finished"
    summary = monitor.summary(
        status, xla=run.xla.on, device=run.devices.label, params=run.model_summary.params,
        peak_memory=peak.largest, memory_note=peak.note,
    )
    retries = run.request.oom_retries
    summary = dataclasses.replace(
        summary, loop=run.loop_name, strategy=run.placement.name,
        replicas=run.placement.replicas, global_batch_size=run.bundle.batch_size,
        distribution=run.distribution, oom_retries=retries, xla_note=run.xla.note,
        peak_memory_total_bytes=peak.total,
        largest_batch_fit=spec.batch_size if retries and problem is None else None,
        memory_estimate=run.estimate.to_dict() if run.estimate is not None else None,
        predicted=predicted)
    summary = aids.conclude(summary, status)
    failure = None
    if problem is not None:
        failure = RunFailed(problem.reason, problem.kind, problem.step, summary=summary)
        run_log.warning("%s %s (%s) at step %s: %s", run.label, status, failure.kind,
                        failure.step, english(failure.reason))
    else:
        run_log.info("%s %s: %d steps in %.1f s", run.label, status, summary.steps_done,
                     summary.total_time)
    run.reporter.emit(failure or RunFinished(summary))
    aids.close()
    return summary, failure
