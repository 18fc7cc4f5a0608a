"""A tiny SVG line chart for the HTML report.

Hand-written on purpose: the report needs a few plain line charts, and matplotlib (or
any plotting library) would be a heavy dependency for that. The output is a
self-contained, well-formed ``<svg>`` element that can sit inline in an XHTML page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from mpstudio.engine.i18n import N_, _

BASELINE_COLOR = "#5b6b7f"  # blue-grey: float32, the reference
MIXED_COLOR = "#e07b00"  # orange: mixed precision, the candidate
_FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\""
_ATTR = {'"': "&quot;", "'": "&apos;"}


@dataclass(frozen=True)
class ChartSeries:
    name: str
    xs: Sequence[float]
    ys: Sequence[float]
    color: str
    dashed: bool = False
    markers: bool = False
    width: float = 2.0  # extra trials of a side are drawn thinner


def attr(text: str) -> str:
    """Text made safe inside a double-quoted attribute."""
    return escape(str(text), _ATTR)


def lighten(color: str, amount: float) -> str:
    """``#rrggbb`` mixed with white: 0 leaves it, 1 gives white (for extra trials)."""
    value = color.lstrip("#")
    if len(value) != 6:
        return color
    try:
        rgb = [int(value[i:i + 2], 16) for i in (0, 2, 4)]
    except ValueError:
        return color
    mixed = [round(c + (255 - c) * min(max(amount, 0.0), 1.0)) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def nice_step(span: float, max_ticks: int = 6) -> float:
    """The smallest 1, 2 or 5 x 10^n step that covers ``span`` in ``max_ticks`` steps."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(max_ticks - 1, 1)
    base = 10.0 ** math.floor(math.log10(raw))
    for mult in (1.0, 2.0, 5.0, 10.0):
        if mult * base >= raw * (1 - 1e-9):
            return mult * base
    return 10.0 * base


def nice_range(lo: float, hi: float, max_ticks: int = 6) -> tuple[float, float, float]:
    """Axis bounds widened to whole steps, and the step; a flat range gets some room."""
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi), 1.0):
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    step = nice_step(hi - lo, max_ticks)
    return math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step, step


def tick_text(value: float, step: float) -> str:
    if abs(value) < step * 1e-6:
        value = 0.0  # no "-0" or "1e-17" at the origin
    if step >= 1e6 or abs(value) >= 1e7:
        return f"{value / 1e6:g}M"
    if step >= 1:
        return f"{value:,.0f}"
    decimals = min(max(0, -math.floor(math.log10(step) + 1e-9)), 8)
    return f"{value:.{decimals}f}"


def _log2_ticks(lo: float, hi: float) -> tuple[float, float, list[float], list[str]]:
    """Whole powers of two around [lo, hi] (already log2), thinned to about six."""
    first, last = math.floor(lo), math.ceil(hi)
    if first == last:
        first, last = first - 1, last + 1
    every = 1
    for every in (1, 2, 3, 4, 5, 8, 10, 16, 20, 32):
        if (last - first) / every <= 6:
            break
    ticks = [float(k) for k in range(first, last + 1) if k % every == 0]
    labels = [f"{2.0 ** k:g}" if -10 <= k <= 20 else f"2^{int(k)}" for k in ticks]
    return first, last, ticks, labels


def _points(s: ChartSeries, log2_y: bool) -> list[tuple[float, float] | None]:
    """(x, y) per sample; None where the value cannot be drawn, which breaks the line."""
    out: list[tuple[float, float] | None] = []
    for x, y in zip(s.xs, s.ys, strict=False):
        try:
            xf, yf = float(x), float(y)
        except (TypeError, ValueError):
            out.append(None)
            continue
        if log2_y:
            yf = math.log2(yf) if yf > 0 and math.isfinite(yf) else math.nan
        out.append((xf, yf) if math.isfinite(xf) and math.isfinite(yf) else None)
    return out


def line_chart(
    title: str,
    series: list[ChartSeries],
    *,
    x_label: str = N_("step"),
    y_label: str = "",
    log2_y: bool = False,
    width: int = 460,
    height: int = 260,
    empty_text: str = N_("no data"),
) -> str:
    """An ``<svg>`` line chart. Non-finite values (and non-positive ones on a log axis)
    leave a gap in their line; no drawable value at all gives a chart saying so."""
    pts = [_points(s, log2_y) for s in series]
    finite = [p for ps in pts for p in ps if p is not None]
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{attr(title)}" {_FONT}>'
            f'<title>{escape(title)}</title>'
            f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="13" '
            f'font-weight="600" fill="#1f2933">{escape(title)}</text>')
    if not finite:
        return (head + f'<rect x="8" y="26" width="{width - 16}" height="{height - 34}" '
                f'fill="#f6f7f9" stroke="#d9dde3"/><text x="{width / 2:.1f}" '
                f'y="{height / 2 + 8:.1f}" text-anchor="middle" font-size="13" '
                f'fill="#7b8794">{escape(_(empty_text))}</text></svg>')

    legend_rows = _legend_layout(series, width)
    left, right, top = 60.0, 14.0, 28.0
    bottom = 40.0 + 16.0 * len(legend_rows)
    pw, ph = width - left - right, height - top - bottom
    x0, x1, xstep = nice_range(min(p[0] for p in finite), max(p[0] for p in finite))
    y_lo, y_hi = min(p[1] for p in finite), max(p[1] for p in finite)
    if log2_y:
        y0, y1, yticks, ylabels = _log2_ticks(y_lo, y_hi)
    else:
        y0, y1, ystep = nice_range(y_lo, y_hi)
        yticks = _ticks(y0, y1, ystep)
        ylabels = [tick_text(v, ystep) for v in yticks]

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        return top + ph - (y - y0) / (y1 - y0) * ph

    parts = [head]
    for v, label in zip(yticks, ylabels, strict=True):
        y = sy(v)
        parts.append(f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + pw:.1f}" y2="{y:.1f}" '
                     f'stroke="#e4e7eb" stroke-width="1"/>'
                     f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" '
                     f'font-size="11" fill="#52606d">{escape(label)}</text>')
    for v in _ticks(x0, x1, xstep):
        x = sx(v)
        parts.append(f'<line x1="{x:.1f}" y1="{top + ph:.1f}" x2="{x:.1f}" '
                     f'y2="{top + ph + 4:.1f}" stroke="#9aa5b1" stroke-width="1"/>'
                     f'<text x="{x:.1f}" y="{top + ph + 16:.1f}" text-anchor="middle" '
                     f'font-size="11" fill="#52606d">{escape(tick_text(v, xstep))}</text>')
    parts.append(f'<rect x="{left:.1f}" y="{top:.1f}" width="{pw:.1f}" height="{ph:.1f}" '
                 f'fill="none" stroke="#9aa5b1" stroke-width="1"/>')
    parts.append(f'<text x="{left + pw / 2:.1f}" y="{top + ph + 32:.1f}" '
                 f'text-anchor="middle" font-size="11" fill="#52606d">{escape(_(x_label))}</text>')
    if y_label:
        parts.append(f'<text transform="translate(14 {top + ph / 2:.1f}) rotate(-90)" '
                     f'text-anchor="middle" font-size="11" fill="#52606d">'
                     f'{escape(y_label)}</text>')
    for s, ps in zip(series, pts, strict=True):
        parts.append(_draw(s, [(sx(p[0]), sy(p[1])) if p else None for p in ps]))
    parts.append(_legend(series, legend_rows, height))
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: float, hi: float, step: float) -> list[float]:
    count = round((hi - lo) / step)
    return [lo + i * step for i in range(count + 1)]


def _draw(s: ChartSeries, screen: list[tuple[float, float] | None]) -> str:
    """One series: a path whose runs of drawable points are separate sub-paths."""
    color = attr(s.color)
    runs: list[list[tuple[float, float]]] = [[]]
    for p in screen:
        if p is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append(p)
    runs = [r for r in runs if r]
    d = " ".join("M" + " L".join(f"{x:.1f} {y:.1f}" for x, y in r) for r in runs if len(r) > 1)
    dash = ' stroke-dasharray="6 4"' if s.dashed else ""
    out = []
    if d:
        out.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{s.width:g}" '
                   f'stroke-linejoin="round" stroke-linecap="round"{dash}/>')
    # A lone point between gaps has no segment to show it: mark it, as with markers.
    dots = [p for r in runs for p in r] if s.markers else [r[0] for r in runs if len(r) == 1]
    radius = 3.0 if s.markers else max(s.width, 1.5)
    out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:g}" fill="{color}"/>'
            for x, y in dots]
    return "".join(out)


def _legend_layout(series: list[ChartSeries], width: int) -> list[list[tuple[int, float]]]:
    """Legend entries (index, x offset) per row, wrapped to the chart's width. Series
    sharing a name (the trials of one side) share one entry, the first one's."""
    rows: list[list[tuple[int, float]]] = [[]]
    x = 0.0
    seen: set[str] = set()
    for i, s in enumerate(series):
        if s.name in seen:
            continue
        seen.add(s.name)
        w = 30 + 6.2 * len(s.name) + 14  # swatch, text (estimated), gap
        if rows[-1] and x + w > width - 20:
            rows.append([])
            x = 0.0
        rows[-1].append((i, x))
        x += w
    return [r for r in rows if r]


def _legend(series: list[ChartSeries], rows: list[list[tuple[int, float]]], height: int) -> str:
    out = []
    for r, row in enumerate(rows):
        y = height - 8 - 16 * (len(rows) - 1 - r)
        for i, dx in row:
            s = series[i]
            x = 12 + dx
            dash = ' stroke-dasharray="6 4"' if s.dashed else ""
            out.append(f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 24:.1f}" '
                       f'y2="{y - 4:.1f}" stroke="{attr(s.color)}" '
                       f'stroke-width="{max(s.width, 1.5):g}"{dash}/>')
            if s.markers:
                out.append(f'<circle cx="{x + 12:.1f}" cy="{y - 4:.1f}" r="3" '
                           f'fill="{attr(s.color)}"/>')
            out.append(f'<text x="{x + 30:.1f}" y="{y:.1f}" font-size="11" '
                       f'fill="#323f4b">{escape(s.name)}</text>')
    return "".join(out)
