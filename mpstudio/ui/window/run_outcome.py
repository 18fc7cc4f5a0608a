"""How a finished training job reads in the window's banner: status, a line per run
(or a count for a repeated comparison), and a comparison's verdict."""

from __future__ import annotations

import re

from mpstudio.engine.comparison.verdict import tone_of
from mpstudio.engine.event_text import summary_line
from mpstudio.engine.run_session import TrainingOutcome

VERDICT = "Verdict: "
BANNER_LEVEL = {"good": "success", "bad": "error", "warn": "warning"}


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
    level = "success" if status == "finished" else "info"
    if outcome.card is not None:
        # the card beside the charts has each side's figures, the Log each run's line:
        # the verdict alone (five lines of banner left the charts some 40 px at 1280x720)
        lines = [f"{VERDICT}{outcome.card.verdict.sentence}"]
        # the banner takes the verdict's colour: green beside a red verdict misled
        level = BANNER_LEVEL[tone_of(outcome.card.verdict.kind)]
    return status, "\n".join(lines), level


def status_line(status: str, text: str) -> str:
    """The status bar's one line: the banner's last line, which names the run and its
    status already ("mixed_float16 finished: ..."); for a comparison, the verdict's
    headline (the whole sentence ran past the device label and was cut mid-word)."""
    last = text.splitlines()[-1]
    if not last.startswith(VERDICT):
        return last
    # up to the first colon, ASCII or the full-width one of a Chinese verdict
    headline = re.split("[:：]", last[len(VERDICT):], maxsplit=1)[0].rstrip(".。")
    return f"Comparison {status}: {headline}. The Comparison card says why."
