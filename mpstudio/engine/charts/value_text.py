"""How a chart value reads under the mouse, and loss scales written as powers of two.

Plain functions of a float (no Qt), named so the chart table reads as a sentence:
``readout=whole_number``."""

from __future__ import annotations

import math

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_two_label(exponent: int) -> str:
    return "2" + str(exponent).translate(_SUPERSCRIPT)


def scale_text(scale: float) -> str:
    """A loss scale for people: 32768 (2¹⁵); a scale that is no power of two as it is."""
    exponent = math.log2(scale) if scale > 0 and math.isfinite(scale) else math.nan
    if math.isfinite(exponent) and exponent == round(exponent):
        value = f"{scale:.0f}" if scale >= 1 else f"{scale:g}"
        return f"{value} ({power_of_two_label(int(exponent))})"
    return f"{scale:g}"


def general(value: float) -> str:
    """Four significant digits: a loss of 2.303 or 0.0004117."""
    return f"{value:.4g}"


def four_decimals(value: float) -> str:
    """A fraction read closely: accuracy 0.9731."""
    return f"{value:.4f}"


def whole_number(value: float) -> str:
    """A rate in thousands: 12,345 examples/s."""
    return f"{value:,.0f}"


def percent(value: float) -> str:
    """A value already in percent: 12.7%."""
    return f"{value:.1f}%"
