"""Values ready for strict JSON: the one place that maps what JSON cannot hold."""

from __future__ import annotations

import math
from typing import Any


def json_ready(value: Any) -> Any:
    """JSON has no NaN or infinity (a diverged loss has them): null instead, at any
    depth of dicts, lists and tuples (tuples become lists)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value
