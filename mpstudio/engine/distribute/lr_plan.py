"""The learning rate a run really uses: the linear scaling rule for the global batch
and an optional linear warmup, in words the user sees before training starts."""

from __future__ import annotations

from dataclasses import dataclass

from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said


@dataclass(frozen=True)
class LearningRatePlan:
    base: float  # the spec's learning rate, for one replica's batch
    replicas: int
    rule: str  # "linear" (x replicas) or "none"
    warmup_steps: int

    @property
    def target(self) -> float:
        """The rate after warmup."""
        return self.base * self.replicas if self.rule == "linear" else self.base

    @property
    def scaled(self) -> bool:
        return self.target != self.base

    def rate_at(self, step: int) -> float:
        """The rate in force for optimizer step ``step`` (0-based), as the optimizer's
        schedule computes it: linear from 0 to the target over the warmup."""
        if self.warmup_steps and step < self.warmup_steps:
            return self.target * step / self.warmup_steps
        return self.target

    def describe(self) -> Said:
        """In the language in force; a run's summary keeps it as its message."""
        if self.scaled:
            text = said(N_("learning rate {base} -> {target} (linear scaling rule: "
                           "x{replicas} replicas)"), base=f"{self.base:g}",
                        target=f"{self.target:g}", replicas=self.replicas)
        elif self.replicas > 1:
            text = said(N_("learning rate {base}, not scaled for {replicas} replicas "
                           "(lr_scaling none)"), base=f"{self.base:g}", replicas=self.replicas)
        else:
            text = said(N_("learning rate {base}"), base=f"{self.base:g}")
        if self.warmup_steps:
            text = said(N_("{rate}, warmed up linearly from 0 over {steps} steps"), rate=text,
                        steps=f"{self.warmup_steps:,}")
        return text


def describe_batch(per_replica: int, replicas: int) -> Said:
    if replicas == 1:
        return said(N_("batch {batch} on 1 replica"), batch=f"{per_replica:,}")
    return said(N_("global batch {total} = {batch} per replica x {replicas} replicas"),
                total=f"{per_replica * replicas:,}", batch=f"{per_replica:,}",
                replicas=replicas)


def scaled_learning_rate(rate: float, old_batch: int, new_batch: int) -> float:
    """The linear scaling rule (Goyal et al. 2017): the learning rate that keeps the
    per-example step size when the batch goes from ``old_batch`` to ``new_batch`` (say,
    doubled into the memory mixed precision freed)."""
    if old_batch <= 0 or new_batch <= 0:
        raise ValueError(f"batch sizes must be positive, got {old_batch} and {new_batch}")
    return rate * new_batch / old_batch
