"""The doctor's result as data: one Check per line of the table, and the whole report.

Plain frozen dataclasses of plain values (no TensorFlow), so the CLI, the GUI, the
JSON and the HTML report all read the same lines.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from mpstudio.engine.json_values import json_ready

Status = Literal["pass", "warn", "fail", "skipped"]
STATUSES: tuple[Status, ...] = ("pass", "warn", "fail", "skipped")
_SEVERITY = {"skipped": 0, "pass": 1, "warn": 2, "fail": 3}
# How the table shows each status (the window's dialog and the HTML report alike).
STATUS_COLOR = {"pass": "#1e8e3e", "warn": "#b06000", "fail": "#c5221f", "skipped": "#616e7c"}
NOT_RUN = "not run (stopped)"

# The sections of the table, in the order the doctor runs them.
BUILD, MEMORY, TRAINING, TIMING, TF32, MIRRORED = (
    "build and driver", "GPU memory", "training", "timing", "TF32", "mirrored")


@dataclass(frozen=True)
class Check:
    """One line: what was checked, how it went, and why, in words. ``reason`` says
    what was found and, for a warn or a fail, what to do; ``details`` holds the
    numbers behind it (for the JSON report)."""

    section: str
    name: str
    status: Status
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def worst(*statuses: Status) -> Status:
    """The status that matters most of several: fail > warn > pass > skipped."""
    return max(statuses, key=_SEVERITY.__getitem__, default="skipped")


def not_run(section: str, name: str) -> Check:
    """A line a stop left out."""
    return Check(section, name, "skipped", NOT_RUN, {"stopped": True})


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

    def summary(self) -> str:
        """One sentence: the verdict and the counts."""
        counts = self.counts()
        tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        if counts["fail"]:
            head = "Something is wrong: see the failed lines"
        elif self.stopped:
            head = "Stopped early: nothing failed in the lines that ran"
        elif counts["warn"]:
            head = "Training works here, with warnings"
        else:
            head = "Training works here"
        return f"{head}: {tally}; {self.seconds:.0f} s."

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "failed": self.failed,
            "stopped": self.stopped,
            "seconds": round(self.seconds, 2),
            "counts": self.counts(),
            "versions": dict(self.versions),
            "devices": [dict(d) for d in self.devices],
            "plan": dict(self.plan),
            "checks": [json_ready(c.to_dict()) for c in self.checks],
        }
