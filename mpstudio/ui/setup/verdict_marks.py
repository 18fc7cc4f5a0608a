"""Short marks for the advisor's verdicts, for places with room for a word or two
(the setup panel's precision choices, the hardware panel's verdict column).

No Qt here: colours are plain hex strings a widget puts into a style sheet.
"""

from __future__ import annotations

from mpstudio.engine.hardware.advisor import Advice
from mpstudio.engine.hardware.verdict_rules import Verdict

# The advisor's own words, so the Hardware card and the precision list agree ("works
# but slower" in one place and "slower here" in the other read as two verdicts).
VERDICT_MARK = {v: v.value for v in Verdict}
# Dark enough to read on a light background, light enough to read on a dark one.
VERDICT_COLOR = {
    Verdict.RECOMMENDED: "#2e8b3a",
    Verdict.NO_GAIN: "#7a7a7a",
    Verdict.SLOWER: "#c07a00",
    Verdict.MEASURE: "#2f6fd0",
    Verdict.UNSUPPORTED: "#c8322f",
}
_MARK_COLOR = {VERDICT_MARK[v]: c for v, c in VERDICT_COLOR.items()}


def verdict_marks(advice: Advice, device: str) -> dict[str, tuple[str, str]]:
    """Each policy -> (short mark, the advisor's one-sentence reason) on ``device``;
    an empty dict for a device the advice does not name."""
    found = [d for d in advice.devices if d.device == device]
    if not found:
        return {}
    return {v.policy: (VERDICT_MARK[v.verdict], v.reason) for v in found[0].verdicts}


def precision_choice_text(policy: str, mark: str) -> str:
    """``mixed_float16 — recommended``; just the policy without a mark."""
    return f"{policy} — {mark}" if mark else policy


def mark_color(mark: str) -> str:
    """The colour for a mark from ``verdict_marks`` ("" for an unknown mark)."""
    return _MARK_COLOR.get(mark, "")

