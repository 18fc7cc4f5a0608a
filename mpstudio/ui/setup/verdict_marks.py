"""Short marks for the advisor's verdicts, for places with room for a word or two
(the setup panel's precision choices, the hardware panel's verdict column).

A mark is the verdict's English value (a key: ``mark_color`` finds its colour in the
theme by it) and is shown translated with ``mark_text`` (context "VerdictMarks").
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from mpstudio.engine.hardware.advisor import Advice
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.ui.theme import ThemeColors, colors

# The advisor's own words, so the Hardware card and the precision list agree ("works
# but slower" in one place and "slower here" in the other read as two verdicts).
VERDICT_MARK = {v: v.value for v in Verdict}
# The marks as shown, one per Verdict value.
MARK_TEXT = {
    Verdict.RECOMMENDED.value: QT_TRANSLATE_NOOP("VerdictMarks", "recommended"),
    Verdict.NO_GAIN.value: QT_TRANSLATE_NOOP("VerdictMarks", "works, no faster"),
    Verdict.SLOWER.value: QT_TRANSLATE_NOOP("VerdictMarks", "works but slower"),
    Verdict.MEASURE.value: QT_TRANSLATE_NOOP("VerdictMarks", "measure to know"),
    Verdict.UNSUPPORTED.value: QT_TRANSLATE_NOOP("VerdictMarks", "not supported"),
}
_VERDICT_OF_MARK = {mark: v for v, mark in VERDICT_MARK.items()}


def verdict_marks(advice: Advice, device: str) -> dict[str, tuple[str, str]]:
    """Each policy -> (short mark, the advisor's one-sentence reason) on ``device``;
    an empty dict for a device the advice does not name."""
    found = [d for d in advice.devices if d.device == device]
    if not found:
        return {}
    return {v.policy: (VERDICT_MARK[v.verdict], v.reason) for v in found[0].verdicts}


def mark_text(mark: str) -> str:
    """A mark from ``verdict_marks`` (or a Verdict's value) in the window's language."""
    return QCoreApplication.translate("VerdictMarks", MARK_TEXT[mark]) if mark in MARK_TEXT \
        else mark


def precision_choice_text(policy: str, mark: str) -> str:
    """``mixed_float16 — recommended``; just the policy without a mark."""
    return f"{policy} — {mark_text(mark)}" if mark else policy


def mark_color(mark: str, palette: ThemeColors | None = None) -> str:
    """The colour for a mark from ``verdict_marks`` in the theme in force (or
    ``palette``); "" for an unknown mark."""
    verdict = _VERDICT_OF_MARK.get(mark)
    return (palette or colors()).verdict[verdict] if verdict is not None else ""

