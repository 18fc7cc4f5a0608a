"""What the run history hands back: a row per run for lists, the whole run for plots,
cards and reports. Plain frozen dataclasses (no SQLite, no Qt), built from the
same event classes the engine emits, so a stored run replays like a live one."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any

from mpstudio.engine.events import EpochMetrics, LossScaleChanged, RunSummary, StepMetrics
from mpstudio.engine.history.stored_text import from_values
from mpstudio.engine.said import Said, english

# running: being written now (or by a process that died: see RunStore.recover_interrupted)
STATUSES = ("running", "finished", "stopped", "diverged", "failed", "interrupted")
ROLES = ("single", "baseline", "mixed")


@dataclass(frozen=True)
class RunRow:
    """One line of the history list."""

    id: int
    created: float  # Unix time the run started
    label: str  # "mixed_float16", "float32 baseline", ...
    status: str
    dataset: str
    template: str
    precision: str
    examples_per_sec: float | None  # steady state
    val_accuracy: float | None  # final validation accuracy (0..1)
    comparison: str | None  # the id the runs of one comparison share
    role: str  # single | baseline | mixed
    trial: int
    trials: int
    damaged: tuple[str, ...] = ()  # columns that did not read (history/stored_columns.py)

    @property
    def started_text(self) -> str:
        """Local date and time, to the minute ("?" where it did not read)."""
        if "created" in self.damaged:
            return "?"
        return dt.datetime.fromtimestamp(self.created).strftime("%Y-%m-%d %H:%M")

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "started": self.started_text}


@dataclass(frozen=True)
class StoredRun:
    """A run as the history keeps it: what it was, what it measured, how it ended."""

    row: RunRow
    spec: dict[str, Any]  # RunSpec.to_dict() (a dict: a later release may add fields)
    hardware: dict[str, str]  # device, versions, the advisor's word on the precision
    model: dict[str, Any]  # name, policy, params, output dtype
    dataset_summary: str
    steps_per_epoch: int
    total_steps: int
    summary: RunSummary | None  # None while running, or when the process died first
    # the reason a failed or diverged run gave, in the reader's language (a Said; an
    # older record's plain English string)
    failure: str | None
    finished: float | None  # Unix time it ended
    model_paths: tuple[str, ...]  # where its trained model was saved (File > Export)
    steps: tuple[StepMetrics, ...]
    epochs: tuple[EpochMetrics, ...]
    scale_changes: tuple[LossScaleChanged, ...]
    # initial_weights.weights_hash as training started ("": recorded before it was kept)
    initial_weights_hash: str = ""

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def label(self) -> str:
        return self.row.label

    @property
    def status(self) -> str:
        return self.row.status

    def title(self) -> str:
        """"#12 mixed_float16 (digits / mlp)": how lists, cards and reports name it (the
        label carries the trial of a repeated comparison)."""
        return f"#{self.id} {self.label} ({self.row.dataset} / {self.row.template})"

    def to_dict(self, metrics: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            **self.row.to_dict(),
            "spec": self.spec,
            "hardware": self.hardware,
            "model": self.model,
            "dataset_summary": english(self.dataset_summary),
            "steps_per_epoch": self.steps_per_epoch,
            "total_steps": self.total_steps,
            "summary": _english_values(self.summary.to_dict()) if self.summary else None,
            "failure": english(self.failure) if self.failure is not None else None,
            "finished": self.finished,
            "model_paths": list(self.model_paths),
            "initial_weights_hash": self.initial_weights_hash,
        }
        if metrics:
            out["epochs"] = [dataclasses.asdict(e) for e in self.epochs]
            out["steps"] = [dataclasses.asdict(s) for s in self.steps]
            out["scale_changes"] = [dataclasses.asdict(c) for c in self.scale_changes]
        return out


def _english_values(data: dict[str, Any]) -> dict[str, Any]:
    """A summary's values for JSON: its sentences in English, as machines read them."""
    return {key: english(value) if isinstance(value, Said) else value
            for key, value in data.items()}


def summary_from_dict(data: dict[str, Any] | None) -> RunSummary | None:
    """A stored summary; fields a later release added are dropped, missing ones
    (an older release) take their defaults or None."""
    if not data:
        return None
    fields = {f.name: f for f in dataclasses.fields(RunSummary)}
    known = from_values({k: v for k, v in data.items() if k in fields})
    for name, f in fields.items():
        if name not in known and f.default is dataclasses.MISSING:
            known[name] = None
    return RunSummary(**known)
