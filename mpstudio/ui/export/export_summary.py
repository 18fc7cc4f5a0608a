"""What an export came to, in words: the status line's summary, the results banner's
sentence and level, and the note a file just written gets in the dialog. Words only
(Qt's translations, context "ExportSummary"), no widgets."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from mpstudio.engine.export.formats import FORMAT_IDS, export_format
from mpstudio.engine.export.results import ExportOutcome, human_size
from mpstudio.engine.i18n import _


def format_label(format_id: str) -> str:
    """The format's name as shown ("TFLite float16 weights", in the user's language)."""
    return _(export_format(format_id).label) if format_id in FORMAT_IDS else format_id


def summary_text(outcomes: list[ExportOutcome], cancelled: bool = False) -> str:
    """"3 of 4 exported and verified; 1 not exported" for the status line and the log."""
    written = sum(o.result is not None for o in outcomes)
    if cancelled:
        return QCoreApplication.translate(
            "ExportSummary", "Export cancelled: {written} of {total} written before the "
            "stop, nothing else").format(written=written, total=len(outcomes))
    ok = sum(o.ok for o in outcomes)
    below = sum(o.result is not None and not o.ok for o in outcomes)
    failed = sum(o.result is None for o in outcomes)
    parts = [QCoreApplication.translate(
        "ExportSummary", "{ok} of {total} exported and verified").format(ok=ok,
                                                                         total=len(outcomes))]
    if below:
        parts.append(QCoreApplication.translate(
            "ExportSummary", "{count} below the agreement threshold").format(count=below))
    if failed:
        parts.append(QCoreApplication.translate(
            "ExportSummary", "{count} not exported").format(count=failed))
    return QCoreApplication.translate("ExportSummary", "; ").join(parts)


def _names(labels: list[str]) -> str:
    if len(labels) == 1:
        return labels[0]
    return QCoreApplication.translate("ExportSummary", "{first} and {last}").format(
        first=QCoreApplication.translate("ExportSummary", ", ").join(labels[:-1]),
        last=labels[-1])


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
        if total == 1:
            return QCoreApplication.translate(
                "ExportSummary", "{format} exported and verified: each agrees with the "
                "trained model").format(format=format_label(outcomes[0].request.format_id)), \
                "success"
        return QCoreApplication.translate(
            "ExportSummary", "All {total} formats exported and verified: each agrees with "
            "the trained model").format(total=total), "success"
    parts = []
    if len(missing) == 1:
        parts.append(QCoreApplication.translate(
            "ExportSummary", "{formats} was not exported").format(formats=missing[0]))
    elif missing:
        parts.append(QCoreApplication.translate(
            "ExportSummary", "{formats} were not exported").format(formats=_names(missing)))
    if len(below) == 1:
        parts.append(QCoreApplication.translate(
            "ExportSummary", "{formats} disagrees with the trained model beyond the "
            "threshold: check its accuracy before using it").format(formats=below[0]))
    elif below:
        parts.append(QCoreApplication.translate(
            "ExportSummary", "{formats} disagree with the trained model beyond the "
            "threshold: check its accuracy before using it").format(formats=_names(below)))
    failed = len(missing) + len(below)
    if total > 1:
        head = QCoreApplication.translate(
            "ExportSummary", "{failed} of {total} formats failed").format(failed=failed,
                                                                          total=total)
    else:
        head = QCoreApplication.translate("ExportSummary", "The export failed")
    text = QCoreApplication.translate("ExportSummary", "{head}: {problems} (details "
                                      "below).").format(
        head=head, problems=QCoreApplication.translate("ExportSummary", "; ").join(parts))
    if ok:
        text = QCoreApplication.translate(
            "ExportSummary", "{text} {ok} exported and verified.").format(text=text, ok=ok)
    return text, "error"


def written_note(outcome: ExportOutcome, existed: bool) -> str:
    """What the dialog's file list says of a file this export wrote: "written just now,
    12.3 KB" ("replaced" when a file was there before); "" when nothing was written."""
    if outcome.result is None:
        return ""
    size = human_size(outcome.result.size_bytes)
    if existed:
        return QCoreApplication.translate("ExportSummary",
                                          "replaced just now, {size}").format(size=size)
    return QCoreApplication.translate("ExportSummary",
                                      "written just now, {size}").format(size=size)
