"""A training job in the window's words: the log's line as it starts, and how it reads
in the banner when it ends: status, a line per run (or a count for a repeated
comparison), and a comparison's verdict."""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from mpstudio.engine.comparison.verdict import tone_of
from mpstudio.engine.event_text import summary_line
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.engine.said import render
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare_options import CompareOptions

VERDICT = QT_TRANSLATE_NOOP("RunOutcome", "Verdict: ")  # shown translated: verdict_prefix()
BANNER_LEVEL = {"good": "success", "bad": "error", "warn": "warning"}
# A run's status in words (the keys stay English: run_ended, the history)
STATUS_TEXT = {"finished": QT_TRANSLATE_NOOP("RunOutcome", "finished"),
               "stopped": QT_TRANSLATE_NOOP("RunOutcome", "stopped"),
               "failed": QT_TRANSLATE_NOOP("RunOutcome", "failed"),
               "diverged": QT_TRANSLATE_NOOP("RunOutcome", "diverged")}


def tr(text: str) -> str:
    """A RunOutcome string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("RunOutcome", text)


def verdict_prefix() -> str:
    return tr(VERDICT)


def describe_outcome(outcome: TrainingOutcome) -> tuple[str, str, str]:
    """(status, text, level): status is finished | stopped | failed | diverged."""
    if not outcome.results:
        text = outcome.stopped_while_loading or QCoreApplication.translate(
            "RunOutcome", "stopped before the data had loaded")
        return "stopped", text, "info"
    lines = [summary_line(r.summary) for r in outcome.results]
    if len(lines) > 2:  # a repeated comparison: the card and the log have the details
        statuses = sorted({r.summary.status for r in outcome.results})
        lines = [QCoreApplication.translate(
            "RunOutcome", "{count} runs ({statuses}); the Comparison card has the medians, "
            "the Log each run").format(
                count=len(lines),
                statuses=QCoreApplication.translate("RunOutcome", ", ").join(
                    tr(STATUS_TEXT.get(s, s)) for s in statuses))]
    failure = next((r.failure for r in outcome.results if r.failure is not None), None)
    if failure is not None:
        status = "diverged" if failure.kind == "diverged" else "failed"
        if status == "diverged":
            head = QCoreApplication.translate("RunOutcome", "The run diverged: {reason}")
        else:
            head = QCoreApplication.translate("RunOutcome", "The run failed: {reason}")
        return status, "\n".join([head.format(reason=render(failure.reason)), *lines]), "error"
    statuses = [r.summary.status for r in outcome.results]
    status = "stopped" if "stopped" in statuses else "finished"
    level = "success" if status == "finished" else "info"
    if outcome.card is not None:
        # the card beside the charts has each side's figures, the Log each run's line:
        # the verdict alone (five lines of banner left the charts some 40 px at 1280x720)
        lines = [f"{verdict_prefix()}{outcome.card.verdict.sentence}"]
        # the banner takes the verdict's colour: green beside a red verdict misled
        level = BANNER_LEVEL[tone_of(outcome.card.verdict.kind)]
    return status, "\n".join(lines), level


def status_line(status: str, text: str) -> str:
    """The status bar's one line: the banner's last line, which names the run and its
    status already ("mixed_float16 finished: ..."); for a comparison, the verdict's
    headline (the whole sentence ran past the device label and was cut mid-word)."""
    last = text.splitlines()[-1]
    prefix = verdict_prefix()
    if not last.startswith(prefix):
        return last
    # up to the first colon, ASCII or the full-width one of a Chinese verdict
    headline = re.split("[:：]", last[len(prefix):], maxsplit=1)[0].rstrip(".。")
    if status == "stopped":
        text = QCoreApplication.translate(
            "RunOutcome", "Comparison stopped: {headline}. The Comparison card says why.")
    else:
        text = QCoreApplication.translate(
            "RunOutcome", "Comparison finished: {headline}. The Comparison card says why.")
    return text.format(headline=headline)


def starting_line(spec: RunSpec, comparison: CompareOptions | None) -> str:
    """The log's first line of a run: "starting mixed_float16 on digits / mlp with the
    mirrored strategy compared with float32, 3 trials each"."""
    line = QCoreApplication.translate(
        "RunOutcome", "starting {precision} on {dataset} / {template}").format(
        precision=spec.precision, dataset=spec.dataset, template=spec.template)
    clauses = []
    if spec.distribute.strategy != "default":
        clauses.append(QCoreApplication.translate(
            "RunOutcome", "with the {strategy} strategy").format(
                strategy=spec.distribute.strategy))
    if comparison is not None and comparison.repeats > 1:
        clauses.append(QCoreApplication.translate(
            "RunOutcome", "compared with float32, {trials} trials each").format(
                trials=comparison.repeats))
    elif comparison is not None:
        clauses.append(QCoreApplication.translate("RunOutcome", "compared with float32"))
    for clause in clauses:  # "a b" in English, "a，b" in Chinese
        line = QCoreApplication.translate("RunOutcome", "{line} {clause}").format(
            line=line, clause=clause)
    return line
