"""An opt-in, op-by-op profile of a few training steps: why mixed precision was slower.

StepProfiler (step_profiler.py) imports TensorFlow; what this package exports here does
not, so the window can read stored profiles and compare them without it.
"""

from mpstudio.engine.profiling.op_profile import OpProfile, OpRow
from mpstudio.engine.profiling.profile_comparison import (
    ROW_HEADERS,
    ComparisonRow,
    ProfileComparison,
    compare_profiles,
    slower_reason,
)

__all__ = ["ROW_HEADERS", "ComparisonRow", "OpProfile", "OpRow", "ProfileComparison",
           "compare_profiles", "slower_reason"]
