"""How a finished training job reads in the window's banner: status, a line per run,
and for a float32 baseline pair the speed and accuracy side by side."""

from __future__ import annotations

from mpstudio.ui.engine_jobs import TrainingOutcome
from mpstudio.ui.run_progress import summary_line


def describe_outcome(outcome: TrainingOutcome) -> tuple[str, str, str]:
    """(status, text, level): status is finished | stopped | failed | diverged."""
    if not outcome.results:
        text = outcome.stopped_while_loading or "stopped before the data had loaded"
        return "stopped", text, "info"
    lines = [summary_line(r.summary) for r in outcome.results]
    failure = next((r.failure for r in outcome.results if r.failure is not None), None)
    if failure is not None:
        status = "diverged" if failure.kind == "diverged" else "failed"
        return status, f"The run {status}: {failure.reason}\n" + "\n".join(lines), "error"
    statuses = [r.summary.status for r in outcome.results]
    status = "stopped" if "stopped" in statuses else "finished"
    if len(outcome.results) == 2 and status == "finished":
        lines.append(pair_line(outcome))
    return status, "\n".join(lines), "success" if status == "finished" else "info"


def pair_line(outcome: TrainingOutcome) -> str:
    """Speed and validation accuracy of the mixed run against its float32 baseline."""
    base, mixed = (r.summary for r in outcome.results)
    parts = []
    if base.steady_examples_per_sec and mixed.steady_examples_per_sec:
        ratio = mixed.steady_examples_per_sec / base.steady_examples_per_sec
        parts.append(f"{mixed.precision} ran at {ratio:.2f}x the speed of the {base.label}")
    else:
        parts.append("too few steady steps to compare speeds: train longer")
    if base.final_val_accuracy is not None and mixed.final_val_accuracy is not None:
        delta = 100 * (mixed.final_val_accuracy - base.final_val_accuracy)
        parts.append(f"validation accuracy {delta:+.1f} percentage points")
    return "Compared: " + ", ".join(parts)
