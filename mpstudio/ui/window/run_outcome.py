"""How a finished training job reads in the window's banner: status, a line per run
(or a count for a repeated comparison), and a comparison's verdict."""

from __future__ import annotations

from mpstudio.engine.event_text import summary_line
from mpstudio.engine.run_session import TrainingOutcome


def describe_outcome(outcome: TrainingOutcome) -> tuple[str, str, str]:
    """(status, text, level): status is finished | stopped | failed | diverged."""
    if not outcome.results:
        text = outcome.stopped_while_loading or "stopped before the data had loaded"
        return "stopped", text, "info"
    lines = [summary_line(r.summary) for r in outcome.results]
    if len(lines) > 2:  # a repeated comparison: the card and the log have the details
        statuses = sorted({r.summary.status for r in outcome.results})
        lines = [f"{len(lines)} runs ({', '.join(statuses)}); the Comparison card has the "
                 "medians, the Log each run"]
    failure = next((r.failure for r in outcome.results if r.failure is not None), None)
    if failure is not None:
        status = "diverged" if failure.kind == "diverged" else "failed"
        return status, f"The run {status}: {failure.reason}\n" + "\n".join(lines), "error"
    statuses = [r.summary.status for r in outcome.results]
    status = "stopped" if "stopped" in statuses else "finished"
    if outcome.card is not None:
        lines.append(f"Verdict: {outcome.card.verdict.sentence}")
    return status, "\n".join(lines), "success" if status == "finished" else "info"
