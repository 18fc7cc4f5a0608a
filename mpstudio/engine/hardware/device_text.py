"""A run's device label as shown: ``device_info.RunDevices.label`` is kept in English
(the history compares labels, the card reads the kind from one), and shown in the
language in force. No TensorFlow here: the window and the card read labels too."""

from __future__ import annotations

import re
from functools import partial

from mpstudio.engine.i18n import N_, _

# A label's English parts, as device_text shows them: (pattern, message).
_LABEL_PARTS = (
    (re.compile(r"^this worker's (?P<count>\d+) x "), N_("this worker's {count} x ")),
    (re.compile(r" \(compute capability (?P<capability>[\w.]+)\)"),
     N_(" (compute capability {capability})")),
    (re.compile(r" \((?P<machine>[^(),]*), (?P<cores>\d+) cores\)"),
     N_(" ({machine}, {cores} cores)")),
    (re.compile(r" \((?P<cores>\d+) cores\)"), N_(" ({cores} cores)")),
    (re.compile(r" as (?P<count>\d+) logical devices$"), N_(" as {count} logical devices")),
)


def device_text(label: str) -> str:
    """A run's device label (``RunDevices.label``, as the history keeps it) in the
    language in force: "CPU (x86_64, 4 cores)" -> "CPU（x86_64，4 核）"."""
    text = str(label or "")
    for pattern, msgid in _LABEL_PARTS:
        text = pattern.sub(partial(_part, msgid), text)
    return text


def _part(msgid: str, match: re.Match[str]) -> str:
    return _(msgid).format(**match.groupdict())
