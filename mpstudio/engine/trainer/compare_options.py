"""A comparison's own options, checked without importing TensorFlow (the CLI rejects
bad arguments before the slow import)."""

from __future__ import annotations

from dataclasses import dataclass

from mpstudio.engine.float8 import BASE_POLICY, FLOAT8
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec

# What the float32 side computes in: TensorFlow's default (TF32 on Ampere and newer
# GPUs), strict float32 (TF32 off for the baseline), or TF32 asked for explicitly.
BASELINE_MATHS = ("auto", "float32", "tf32")
MAX_REPEATS = 10


@dataclass(frozen=True)
class CompareOptions:
    """How a comparison runs: trials per side (alternating), the baseline's math, and
    whether the first trial of each side takes an op profile."""

    repeats: int = 1
    baseline: str = "auto"
    profile: bool = False
    # The baseline at a batch of its own, its learning rate scaled linearly from the
    # mixed run's: each side at the largest batch it fits (the batch-size finder).
    # None: both sides train the run's batch.
    baseline_batch_size: int | None = None
    # Lengthen (on a GPU also enlarge) a comparison too short to time its speed
    # (comparison/sizing.py). The window and the command line size what the user left
    # unset; a replay, a bundle and the batch finder's comparison train exactly as set.
    size: bool = False

    @property
    def runs(self) -> int:
        return 2 * self.repeats


def baseline_precision(precision: str) -> str:
    """The precision a comparison's baseline side runs in."""
    return BASE_POLICY if precision == FLOAT8 else "float32"


def comparison_problems(spec: RunSpec, repeats: int, math_mode: str) -> list[str]:
    problems = []
    if spec.precision == "float32":
        problems.append(_("compare needs a mixed precision to compare with the float32 "
                          "baseline; choose from: mixed_float16, mixed_bfloat16, float8 "
                          "(compared with mixed_bfloat16)"))
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not (
            1 <= repeats <= MAX_REPEATS):
        problems.append(_("repeats must be a whole number from 1 to {most}, got "
                          "{value!r}").format(most=MAX_REPEATS, value=repeats))
    if spec.precision == FLOAT8 and math_mode != "auto":
        problems.append(_("baseline {value!r} sets float32's math (TF32), but float8 is "
                          "compared with {base}: leave it auto").format(value=math_mode,
                                                                       base=BASE_POLICY))
    elif math_mode not in BASELINE_MATHS:
        problems.append(_("baseline must be one of: {choices}; got {value!r}").format(
            choices=", ".join(BASELINE_MATHS), value=math_mode))
    return problems
