"""What an export came to, in words: the status line's summary, the results banner's
sentence and level, and the note a file just written gets in the dialog. No Qt here."""

from __future__ import annotations

from mpstudio.engine.export.formats import FORMAT_IDS, export_format
from mpstudio.engine.export.results import ExportOutcome, human_size


def format_label(format_id: str) -> str:
    return export_format(format_id).label if format_id in FORMAT_IDS else format_id


def summary_text(outcomes: list[ExportOutcome], cancelled: bool = False) -> str:
    """"3 of 4 exported and verified; 1 not exported" for the status line and the log."""
    written = sum(o.result is not None for o in outcomes)
    if cancelled:
        return (f"Export cancelled: {written} of {len(outcomes)} written before the stop, "
                "nothing else")
    ok = sum(o.ok for o in outcomes)
    below = sum(o.result is not None and not o.ok for o in outcomes)
    failed = sum(o.result is None for o in outcomes)
    text = f"{ok} of {len(outcomes)} exported and verified"
    if below:
        text += f"; {below} below the agreement threshold"
    if failed:
        text += f"; {failed} not exported"
    return text


def _names(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


def banner_text(outcomes: list[ExportOutcome], cancelled: bool = False) -> tuple[str, str]:
    """(sentence, level) for the banner above the results: the failures by name first,
    since they are what the user must act on; level is error | warning | success."""
    if cancelled:
        return summary_text(outcomes, cancelled), "warning"
    total = len(outcomes)
    missing = [format_label(o.request.format_id) for o in outcomes if o.result is None]
    below = [format_label(o.request.format_id) for o in outcomes
             if o.result is not None and not o.ok]
    ok = total - len(missing) - len(below)
    if not missing and not below:
        what = (format_label(outcomes[0].request.format_id) if total == 1
                else f"All {total} formats")
        return f"{what} exported and verified: each agrees with the trained model", "success"
    parts = []
    if missing:
        verb = "was" if len(missing) == 1 else "were"
        parts.append(f"{_names(missing)} {verb} not exported")
    if below:
        verb = "disagrees" if len(below) == 1 else "disagree"
        parts.append(f"{_names(below)} {verb} with the trained model beyond the threshold: "
                     "check its accuracy before using it")
    failed = len(missing) + len(below)
    head = f"{failed} of {total} formats failed" if total > 1 else "The export failed"
    tail = f" {ok} exported and verified." if ok else ""
    return f"{head}: {'; '.join(parts)} (details below).{tail}", "error"


def written_note(outcome: ExportOutcome, existed: bool) -> str:
    """What the dialog's file list says of a file this export wrote: "written just now,
    12.3 KB" ("replaced" when a file was there before); "" when nothing was written."""
    if outcome.result is None:
        return ""
    verb = "replaced" if existed else "written"
    return f"{verb} just now, {human_size(outcome.result.size_bytes)}"
