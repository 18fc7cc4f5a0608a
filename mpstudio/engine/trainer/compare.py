"""A float32 baseline and a mixed-precision run of the same spec, side by side.

Same seed, same initial weights (copied from the baseline), same data order (the
pipeline is rebuilt from the seed): only the precision and its loss scaling differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mpstudio.engine import device_info
from mpstudio.engine.events import Reporter
from mpstudio.engine.spec import LossScaling, RunSpec, SpecError
from mpstudio.engine.trainer.runner import RunResult, run


@dataclass
class ComparisonResult:
    baseline: RunResult
    mixed: RunResult | None  # None when the user stopped during the baseline

    def _pair(self, name: str) -> tuple[Any, Any]:
        """The summary field ``name`` of (baseline, mixed); None for a run not made."""
        mixed = getattr(self.mixed.summary, name) if self.mixed else None
        return getattr(self.baseline.summary, name), mixed

    @property
    def speedup(self) -> float | None:
        """Mixed steady-state examples/s over the baseline's."""
        base, mixed = self._pair("steady_examples_per_sec")
        return mixed / base if base and mixed else None

    @property
    def accuracy_delta_pp(self) -> float | None:
        """Mixed minus baseline final validation accuracy, in percentage points."""
        base, mixed = self._pair("final_val_accuracy")
        return 100.0 * (mixed - base) if base is not None and mixed is not None else None

    @property
    def memory_saving(self) -> float | None:
        """Fraction of the baseline's peak device memory the mixed run saved."""
        base, mixed = self._pair("peak_memory_bytes")
        return 1.0 - mixed / base if base and mixed is not None else None


def baseline_spec(spec: RunSpec) -> RunSpec:
    return spec.replace(precision="float32", loss_scaling=LossScaling(mode="off"))


def compare(spec: RunSpec, reporter: Reporter) -> ComparisonResult:
    """Run the float32 baseline, then ``spec`` from the baseline's initial weights."""
    if spec.precision == "float32":
        raise SpecError(
            [
                "compare needs a mixed precision to compare with the float32 baseline; "
                "choose from: mixed_float16, mixed_bfloat16"
            ]
        )
    spec.validate()
    baseline = run(
        baseline_spec(spec), reporter, label=f"{device_info.float32_label()} baseline"
    )
    if reporter.should_stop():
        return ComparisonResult(baseline, None)
    mixed = run(spec, reporter, label=spec.precision, initial_weights=baseline.initial_weights)
    return ComparisonResult(baseline, mixed)
