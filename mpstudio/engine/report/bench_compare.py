"""A replayed benchmark beside the bundle it came from: the figures old and new with
the change, whether each run started from the same initial weights, and what differs
in the machine and the software (a different TensorFlow or Keras may initialise and
compute differently, so the figures are then not like for like).

Plain values for any front end (``mpstudio replay`` prints them, ``--json`` dumps them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from mpstudio.engine import i18n
from mpstudio.engine.event_text import fmt, fmt_pct
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.memory_estimate import mib
from mpstudio.engine.report.bench_bundle import software_versions
from mpstudio.engine.said import english

# (name, where in a card's dict, kind): kind says how it is shown and how it changed
CARD_FIGURES = (
    (N_("speedup (mixed / baseline)"), ("speedup", "median"), "speedup"),
    (N_("baseline examples/s"), ("baseline", "examples_per_sec", "median"), "rate"),
    (N_("mixed examples/s"), ("mixed", "examples_per_sec", "median"), "rate"),
    (N_("baseline final val accuracy"), ("baseline", "final_val_accuracy", "median"),
     "accuracy"),
    (N_("mixed final val accuracy"), ("mixed", "final_val_accuracy", "median"), "accuracy"),
    (N_("baseline final loss"), ("baseline", "final_loss", "median"), "loss"),
    (N_("mixed final loss"), ("mixed", "final_loss", "median"), "loss"),
    (N_("baseline peak memory"), ("baseline", "peak_memory_bytes", "median"), "bytes"),
    (N_("mixed peak memory"), ("mixed", "peak_memory_bytes", "median"), "bytes"),
    (N_("memory saved"), ("memory_saving",), "accuracy"),
    (N_("mixed overflow steps"), ("mixed", "overflow_steps", "median"), "count"),
)
# The same for one run, from its summary
RUN_FIGURES = (
    (N_("examples/s"), ("steady_examples_per_sec",), "rate"),
    (N_("final val accuracy"), ("final_val_accuracy",), "accuracy"),
    (N_("final loss"), ("final_loss",), "loss"),
    (N_("peak memory"), ("peak_memory_bytes",), "bytes"),
    (N_("time to first step"), ("time_to_first_step",), "seconds"),
)


@dataclass(frozen=True)
class Figure:
    key: str  # the English name (JSON)
    old: float | None
    new: float | None
    kind: str  # rate | speedup | accuracy | loss | bytes | count | seconds

    @property
    def name(self) -> str:
        return _(self.key)

    @property
    def change(self) -> float | None:
        """Accuracy-like fractions: the difference in percentage points; the rest:
        the relative change (0.05: 5% more)."""
        if self.old is None or self.new is None:
            return None
        if self.kind in ("accuracy", "count"):
            return (self.new - self.old) * (100.0 if self.kind == "accuracy" else 1.0)
        return self.new / self.old - 1.0 if self.old else None

    def text(self, value: float | None) -> str:
        if value is None:
            return _("n/a")
        return {"rate": lambda: fmt(value, ",.0f"), "speedup": lambda: fmt(value, ".2f", "x"),
                "accuracy": lambda: fmt_pct(value, 2), "loss": lambda: fmt(value, ".4f"),
                "bytes": lambda: mib(int(value)), "count": lambda: fmt(value, ",.0f"),
                "seconds": lambda: fmt(value, ".2f", " s")}[self.kind]()

    def change_text(self) -> str:
        change = self.change
        if change is None:
            return ""
        if self.kind == "accuracy":
            return _("{delta:+.2f} pp").format(delta=change)
        if self.kind == "count":
            return f"{change:+,.0f}"
        return f"{100 * change:+.1f}%"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "change": self.change}


def _at(data: Any, path: Sequence[str]) -> float | None:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return float(data) if isinstance(data, (int, float)) and not isinstance(data, bool) \
        and math.isfinite(data) else None


def card_figures(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Figure]:
    """Two comparison cards' figures (card.to_dict()), old and new."""
    return [Figure(name, _at(old, path), _at(new, path), kind)
            for name, path, kind in CARD_FIGURES]


def run_figures(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Figure]:
    """Two runs' figures (their summaries' to_dict())."""
    return [Figure(name, _at(old, path), _at(new, path), kind)
            for name, path, kind in RUN_FIGURES]


@dataclass(frozen=True)
class WeightsCheck:
    """Whether each replayed run started from the bundle's initial weights."""

    status: str  # match | differ | unknown (the bundle or the replay did not record them)
    runs: tuple[tuple[str, str, str], ...]  # (run label, bundle's hash, replay's hash)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "runs": [
            {"label": label, "bundle": old, "now": new} for label, old, new in self.runs]}


def check_weights(old_runs: Sequence[dict[str, Any]], new_runs: Sequence[StoredRun]
                  ) -> WeightsCheck:
    """The hashes paired by role and trial (a run by itself: the first of each)."""
    old = {(r.get("role"), r.get("trial")): str(r.get("initial_weights_hash") or "")
           for r in old_runs}
    pairs = []
    for run in new_runs:
        before = old.get((run.row.role, run.row.trial), "")
        pairs.append((run.label, before, run.initial_weights_hash))
    if not pairs or any(not a or not b for _, a, b in pairs):
        status = "unknown"
    else:
        status = "match" if all(a == b for _, a, b in pairs) else "differ"
    return WeightsCheck(status, tuple(pairs))


def machine_text(machine: dict[str, Any] | None, device: str = "") -> str:
    """One line for a machine: its GPUs with compute capability and driver, else its
    CPU (the hardware check's report), or the run's device label without one."""
    if not machine:
        return english(device) or _("not described")
    parts = []
    for gpu in machine.get("gpus") or []:
        extra = [_("compute capability {cc}").format(cc=gpu.get("compute_capability") or "?")]
        if gpu.get("driver_version"):
            extra.append(_("driver {version}").format(version=gpu["driver_version"]))
        parts.append(f"{gpu.get('name', 'GPU')} ({', '.join(extra)})")
    cpu = machine.get("cpu") or {}
    if cpu.get("model"):
        parts.append(_("{model}, {cores} logical cores").format(
            model=cpu["model"], cores=cpu.get("logical_cores", "?")))
    return "; ".join(parts) or english(device) or _("not described")


def software_differences(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """"TensorFlow 2.21.0 → 2.20.0" for each package both sides know and that differs."""
    return [f"{name} {old[name]} → {new[name]}" for name in old
            if name in new and old[name] != new[name]]


@dataclass(frozen=True)
class ReplayOutcome:
    """The replay beside its bundle."""

    figures: tuple[Figure, ...]
    weights: WeightsCheck
    verdict_old: str  # the bundle's verdict in the reader's language ("": a single run)
    verdict_new: str
    machine_old: str
    machine_new: str
    software_old: dict[str, str]
    software_new: dict[str, str]
    trials: int = 1  # a side's trials in the bundle: one says nothing of the spread

    @property
    def machine_differs(self) -> bool:
        return self.machine_old != self.machine_new

    @property
    def software_changes(self) -> list[str]:
        return software_differences(self.software_old, self.software_new)

    def to_dict(self) -> dict[str, Any]:
        return {"figures": [f.to_dict() for f in self.figures],
                "initial_weights": self.weights.to_dict(),
                "verdict": {"bundle": self.verdict_old, "now": self.verdict_new},
                "machine": {"bundle": self.machine_old, "now": self.machine_new,
                            "differs": self.machine_differs},
                "software": {"bundle": self.software_old, "now": self.software_new,
                             "differences": self.software_changes},
                "trials": self.trials}

    def spread_note(self) -> str:
        """Why a single trial's change may be noise; "" with trials to measure it."""
        if self.trials > 1:
            return ""
        return _("one trial a side, in the bundle and now: how much two runs differ by "
                 "chance is unknown, so a change of some tens of percent in speed can be "
                 "noise (a comparison of 3 trials a side measures the spread)")


def replay_outcome(manifest: dict[str, Any], old_runs: Sequence[dict[str, Any]],
                   old_card: dict[str, Any] | None, new_runs: Sequence[StoredRun],
                   new_card: dict[str, Any] | None, machine_now: dict[str, Any] | None
                   ) -> ReplayOutcome:
    """Everything ``mpstudio replay`` shows, from the bundle and the runs it just made."""
    if manifest.get("kind") == "comparison":
        figures = card_figures(old_card, new_card)
        verdict = manifest.get("verdict") or {}
        sentences = verdict.get("sentence") or {}  # the bundle's, in its languages
        old_verdict = str(sentences.get(i18n.language()) or sentences.get("en", ""))
        new_verdict = str((new_card or {}).get("verdict", {}).get("sentence", ""))
    else:
        old_summary = old_runs[0].get("summary") if old_runs else None
        new_summary = new_runs[0].summary.to_dict() if new_runs and new_runs[0].summary \
            else None
        figures = run_figures(old_summary, new_summary)
        old_verdict = new_verdict = ""
    new_device = new_runs[0].hardware.get("device", "") if new_runs else ""
    return ReplayOutcome(
        tuple(figures), check_weights(old_runs, new_runs), old_verdict, new_verdict,
        machine_text(manifest.get("machine"), str(manifest.get("device", ""))),
        machine_text(machine_now, new_device),
        {str(k): str(v) for k, v in (manifest.get("software") or {}).items()},
        software_versions(new_runs),
        int(_at(old_card, ("speedup", "n")) or 1) if manifest.get("kind") == "comparison"
        else 1)
