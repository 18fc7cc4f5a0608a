"""A run's label and status as a reader sees them, in the language in force.

The engine names a run by what it computed in, its role and its trial: "float32
baseline", "float32 (TF32) baseline · trial 2/3", "#12 mixed_float16 (baseline)" (a run
from History on a card's reference side). The label is a key (the charts, the run
history and ``--json`` use it as it is); only its words are translated when shown, the
dtype names and run ids stay. One function for the window, the command line and the
report.
"""

from __future__ import annotations

import re

from mpstudio.engine.i18n import N_, _

BASELINE = N_("baseline")
BASELINE_MARK = N_(" (baseline)")
TRIAL = N_(" · trial {trial}/{trials}")
RUN = N_("run")  # the label of events replayed without a RunStarted
# A run's status: a key in the history and the events, shown translated (status_text).
STATUS_WORDS = (N_("running"), N_("finished"), N_("stopped"), N_("diverged"), N_("failed"),
                N_("interrupted"))

_TRIAL = re.compile(r" · trial (\d+)/(\d+)")
_BASELINE_WORD = re.compile(r"(?<=\S) baseline\b")


def shown_label(label: str) -> str:
    """``label`` in the language in force: "float32 baseline · trial 2/3" reads
    "float32 基线 · 试验 2/3" in Chinese, and itself in English."""
    if label == "run":
        return _(RUN)
    text = _TRIAL.sub(lambda m: _(TRIAL).format(trial=m[1], trials=m[2]), label)
    text = text.replace(" (baseline)", _(BASELINE_MARK))
    return _BASELINE_WORD.sub(lambda m: " " + _(BASELINE), text)


def status_text(status: str) -> str:
    """A run's status (finished, stopped, diverged, failed...) in the language in force."""
    return _(status)
