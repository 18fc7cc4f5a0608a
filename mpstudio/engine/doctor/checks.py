"""The doctor's result as data: one Check per line of the table, and the whole report.

Plain frozen dataclasses of plain values (no TensorFlow), so the CLI, the GUI, the
JSON and the HTML report all read the same lines.

A line's name and reason are sentences (``said.Said``: the text in the language in
force, which keeps its message and values), so the table, the console and the HTML
page show them in the reader's language, and the JSON in English (``to_dict``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.json_values import json_ready
from mpstudio.engine.said import Said, english, english_tree, items, message, render, said

Status = Literal["pass", "warn", "fail", "skipped"]
STATUSES: tuple[Status, ...] = ("pass", "warn", "fail", "skipped")
_SEVERITY = {"skipped": 0, "pass": 1, "warn": 2, "fail": 3}
# How the table shows each status (the window's dialog and the HTML report alike).
STATUS_COLOR = {"pass": "#1e8e3e", "warn": "#b06000", "fail": "#c5221f", "skipped": "#616e7c"}
NOT_RUN = N_("not run (stopped)")
# How each status reads in the table (the key stays English in the JSON).
STATUS_TEXT = {"pass": N_("pass"), "warn": N_("warn"), "fail": N_("fail"),
               "skipped": N_("skipped")}
_TALLY = {"pass": N_("{n} pass"), "warn": N_("{n} warn"), "fail": N_("{n} fail"),
          "skipped": N_("{n} skipped")}
# The table's columns (the console's and the HTML page's).
COLUMNS = (N_("section"), N_("check"), N_("status"), N_("why"))

# The sections of the table, in the order the doctor runs them (keys in the JSON,
# shown translated).
BUILD, MEMORY, TRAINING, TIMING, TF32, MIRRORED = (
    N_("build and driver"), N_("GPU memory"), N_("training"), N_("timing"), "TF32",
    N_("mirrored"))


SLOW_CHECK_SECONDS = 5.0  # a line that took this long is named in the summary


@dataclass(frozen=True)
class Check:
    """One line: what was checked, how it went, and why, in words. ``reason`` says
    what was found and, for a warn or a fail, what to do; ``details`` holds the
    numbers behind it (for the JSON report). ``name`` and ``reason`` are sentences (a
    ``Said`` where they read differently in another language; ``name_text`` and
    ``reason_text`` show them in the language in force, ``to_dict`` in English);
    ``section`` and ``status`` are keys."""

    section: str
    name: str
    status: Status
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0  # what the check took (the slowest is named in the summary)

    def to_dict(self) -> dict[str, Any]:
        """English, as the JSON keeps it."""
        return english_tree({**dataclasses.asdict(self), "name": english(self.name),
                             "reason": english(self.reason)})

    # How the table shows the line, in the language in force.
    @property
    def section_text(self) -> str:
        return _(self.section)

    @property
    def name_text(self) -> str:
        return render(self.name)

    @property
    def status_text(self) -> str:
        return _(STATUS_TEXT.get(self.status, self.status))

    @property
    def reason_text(self) -> str:
        return render(self.reason)


def worst(*statuses: Status) -> Status:
    """The status that matters most of several: fail > warn > pass > skipped."""
    return max(statuses, key=_SEVERITY.__getitem__, default="skipped")


def not_run(section: str, name: str) -> Check:
    """A line a stop left out."""
    return Check(section, name, "skipped", said(NOT_RUN), {"stopped": True})


@dataclass(frozen=True)
class DoctorReport:
    """Everything ``mpstudio doctor`` found, ready for a bug report: the lines, the
    versions, the devices, the plan it followed, how long it took."""

    checks: tuple[Check, ...]
    versions: dict[str, str]
    devices: tuple[dict[str, Any], ...]
    plan: dict[str, Any]
    seconds: float
    stopped: bool = False

    @property
    def failed(self) -> bool:
        return any(c.status == "fail" for c in self.checks)

    def counts(self) -> dict[str, int]:
        return {s: sum(c.status == s for c in self.checks) for s in STATUSES}

    def said_summary(self) -> Said:
        """One sentence: the verdict and the counts."""
        counts = self.counts()
        tally = items(message(_TALLY[s], n=n) for s, n in counts.items() if n)
        if counts["fail"]:
            head = N_("Something is wrong: see the failed lines")
        elif self.stopped:
            head = N_("Stopped early: nothing failed in the lines that ran")
        elif counts["warn"]:
            head = N_("Training works here, with warnings")
        else:
            head = N_("Training works here")
        slowest = max(self.checks, key=lambda c: c.seconds, default=None)
        if slowest is None or slowest.seconds < SLOW_CHECK_SECONDS:
            return said(N_("{head}: {tally}; {seconds:.0f} s."), head=message(head),
                        tally=tally, seconds=self.seconds)
        return said(N_("{head}: {tally}; {seconds:.0f} s (the slowest line: {name}, "
                       "{slowest:.0f} s)."), head=message(head), tally=tally,
                    seconds=self.seconds, name=slowest.name, slowest=slowest.seconds)

    def summary(self) -> str:
        """The summary in the language in force (the JSON keeps it in English)."""
        return str(self.said_summary())

    def to_dict(self) -> dict[str, Any]:
        """English, as the JSON keeps it."""
        return english_tree({
            "summary": english(self.said_summary()),
            "failed": self.failed,
            "stopped": self.stopped,
            "seconds": round(self.seconds, 2),
            "counts": self.counts(),
            "versions": dict(self.versions),
            "devices": [dict(d) for d in self.devices],
            "plan": dict(self.plan),
            "checks": [json_ready(c.to_dict()) for c in self.checks],
        })
