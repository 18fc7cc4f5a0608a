"""Did mixed precision cost accuracy? A paired test on the examples both sides predicted.

Both sides of a comparison classify the same validation (and test) examples, so the
question is decided by the examples where they disagree, not by two accuracies
each carrying its own sampling noise: on 359 examples one example is 0.28 points,
and two independent accuracies differ by several points by chance alone.

- McNemar's exact test: of the examples exactly one side got right, is the mixed
  side's share different from one half? (a two-sided binomial test).
- The 95% interval for the difference in accuracy (mixed minus float32) is
  Newcombe's hybrid score interval for paired proportions (Newcombe 1998, method 10):
  Wilson intervals of each side combined through the correlation of the pairs. It
  keeps its coverage where the Wald interval fails (few disagreements, accuracies
  near 0 or 1).
- Several trials per side: each example counts once, with its share of trials
  right on each side (trials repeat the seed, so pooling them as if they were new
  examples would shrink the interval falsely); the interval is then the paired mean
  difference's t interval, and McNemar's test runs on the examples' majority.

The outcome compares the interval with the tolerance (0.5 points by default):
below it entirely: a loss; inside +-tolerance: the same; above -tolerance but
reaching past +tolerance: no loss; straddling -tolerance: can't tell at this size,
with the number of examples that would decide it at this rate of disagreement.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpstudio.engine.i18n import _

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
LOSS, SAME, NO_LOSS, UNCLEAR = "loss", "same", "no_loss", "unclear"


def encode_hits(hits: np.ndarray) -> str:
    """Per-example right/wrong as "count:base64 of the packed bits" (a run's summary
    keeps it as text: 10,000 examples take 1.7 kB)."""
    flags = np.asarray(hits, dtype=bool).reshape(-1)
    return f"{flags.size}:{base64.b64encode(np.packbits(flags).tobytes()).decode('ascii')}"


def decode_hits(text: str) -> np.ndarray | None:
    """The flags ``encode_hits`` packed; None for "" or a damaged value."""
    count, _, packed = (text or "").partition(":")
    try:
        n = int(count)
        bits = np.unpackbits(np.frombuffer(base64.b64decode(packed, validate=True),
                                           dtype=np.uint8))
    except (ValueError, TypeError):
        return None
    return bits[:n].astype(bool) if 0 < n <= bits.size else None


@dataclass(frozen=True)
class PairedAccuracy:
    """Mixed against float32 on the same examples, in percentage points."""

    examples: int
    trials: int  # trial pairs that contributed
    float32_only: int  # examples only the float32 side got right (majority over trials)
    mixed_only: int  # examples only the mixed side got right
    delta_pp: float  # mixed minus float32 accuracy
    low_pp: float  # 95% interval of delta_pp
    high_pp: float
    p_value: float | None  # McNemar's exact test (None: unpaired)
    tolerance_pp: float
    outcome: str  # loss | same | no_loss | unclear
    paired: bool = True  # False: two accuracies of different examples (older runs)

    @property
    def disagreement(self) -> float:
        """Share of examples on which the two sides disagree."""
        return (self.float32_only + self.mixed_only) / self.examples

    @property
    def examples_to_decide(self) -> int | None:
        """Examples an interval of +-tolerance would need at this rate of disagreement
        (the variance of a paired difference near zero is the disagreement rate)."""
        if not self.paired:  # two independent binomials, at the accuracies seen
            return None
        rate = max(self.disagreement, 1.0 / self.examples)
        return math.ceil(rate * (Z95 / (self.tolerance_pp / 100.0)) ** 2)

    def interval_text(self) -> str:
        """"-1.39 pp (95% interval -3.90 to +1.11)"."""
        return _("{delta:+.2f} pp (95% interval {low:+.2f} to {high:+.2f})").format(
            delta=self.delta_pp, low=self.low_pp, high=self.high_pp)

    def evidence_text(self) -> str:
        """What the test saw, for the card's tip and the report."""
        if not self.paired:
            return _("{examples:,} examples a side, not paired: these runs kept no "
                     "per-example record (older runs), so the interval is the wider "
                     "unpaired one").format(examples=self.examples)
        values = {"examples": self.examples, "trials": self.trials,
                  "float32_only": self.float32_only, "mixed_only": self.mixed_only,
                  "p": self.p_value}
        if self.trials > 1:
            return _("{examples:,} examples over {trials} trial pairs: only float32 right on "
                     "{float32_only}, only mixed right on {mixed_only}; McNemar "
                     "p = {p:.3g}").format(**values)
        return _("{examples:,} examples: only float32 right on {float32_only}, only mixed "
                 "right on {mixed_only}; McNemar p = {p:.3g}").format(**values)

    def undecided_text(self) -> str:
        """Why it cannot be told, and what would tell it."""
        need = self.examples_to_decide
        if need is None:
            return _("{examples:,} examples a side, unpaired, cannot decide it; compare two "
                     "runs recorded by this version (they keep each example's "
                     "result)").format(examples=self.examples)
        return _("the sides disagree on {percent:.1f}% of the {examples:,} examples; an "
                 "interval within +-{tolerance:g} points needs about {need:,} examples at "
                 "that rate (a larger validation split), or a longer run whose two models "
                 "disagree less").format(percent=100 * self.disagreement,
                                         examples=self.examples,
                                         tolerance=self.tolerance_pp, need=need)


def wilson(successes: float, n: int) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_paired(both: int, float32_only: int, mixed_only: int, neither: int
                    ) -> tuple[float, float]:
    """95% interval of (mixed accuracy - float32 accuracy) from a paired 2x2 table
    (Newcombe 1998, method 10)."""
    n = both + float32_only + mixed_only + neither
    p_mixed, p_base = (both + mixed_only) / n, (both + float32_only) / n
    l1, u1 = wilson(both + mixed_only, n)
    l2, u2 = wilson(both + float32_only, n)
    rows = ((both + float32_only) * (mixed_only + neither)
            * (both + mixed_only) * (float32_only + neither))
    phi = (both * neither - float32_only * mixed_only) / math.sqrt(rows) if rows else 0.0
    delta = p_mixed - p_base
    down = math.sqrt(max(0.0, (p_mixed - l1) ** 2 - 2 * phi * (p_mixed - l1) * (u2 - p_base)
                         + (u2 - p_base) ** 2))
    up = math.sqrt(max(0.0, (u1 - p_mixed) ** 2 - 2 * phi * (u1 - p_mixed) * (p_base - l2)
                       + (p_base - l2) ** 2))
    return max(-1.0, delta - down), min(1.0, delta + up)


def mcnemar_exact(float32_only: int, mixed_only: int) -> float:
    """Two-sided exact p-value: the discordant pairs against a fair coin. The binomial
    tail is summed in log space (thousands of disagreements overflow 2**m)."""
    m = float32_only + mixed_only
    if m == 0:
        return 1.0
    k = min(float32_only, mixed_only)
    i = np.arange(k, dtype=float)
    steps = np.log((m - i) / (i + 1.0))  # log C(m, i+1) - log C(m, i)
    logs = -m * math.log(2.0) + np.concatenate(([0.0], np.cumsum(steps)))
    top = float(np.max(logs))
    tail = math.exp(top) * float(np.sum(np.exp(logs - top)))
    return min(1.0, 2.0 * tail)


def _t95(df: int) -> float:
    """Two-sided 95% Student t quantile (Cornish-Fisher expansion; exact enough for
    df >= 3, and the normal value for large df)."""
    if df <= 0:
        return math.inf
    z = Z95
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def outcome_of(low_pp: float, high_pp: float, tolerance_pp: float) -> str:
    eps = 1e-9  # accuracies are ratios of counts: -0.5 must not read as -0.5000000001
    if high_pp < -tolerance_pp - eps:
        return LOSS
    if low_pp >= -tolerance_pp - eps:
        return SAME if high_pp <= tolerance_pp + eps else NO_LOSS
    return UNCLEAR


def paired_accuracy(float32_hits: Sequence[np.ndarray], mixed_hits: Sequence[np.ndarray],
                    tolerance_pp: float = 0.5) -> PairedAccuracy | None:
    """The test over trial pairs (float32_hits[i] pairs with mixed_hits[i]); None when
    no pair covers the same examples."""
    pairs = [(np.asarray(b, bool), np.asarray(m, bool))
             for b, m in zip(float32_hits, mixed_hits, strict=False)
             if b is not None and m is not None and len(b) == len(m) and len(b)]
    sizes = {len(b) for b, _ in pairs}
    if not pairs or len(sizes) != 1:
        return None
    n = sizes.pop()
    base = np.mean([b for b, _ in pairs], axis=0)  # each example's share of trials right
    mixed = np.mean([m for _, m in pairs], axis=0)
    base_right, mixed_right = base > 0.5, mixed > 0.5
    float32_only = int(np.sum(base_right & ~mixed_right))
    mixed_only = int(np.sum(mixed_right & ~base_right))
    if len(pairs) == 1:
        both = int(np.sum(base_right & mixed_right))
        low, high = newcombe_paired(both, float32_only, mixed_only,
                                    n - both - float32_only - mixed_only)
        delta = (mixed_only - float32_only) / n
    else:
        diff = mixed - base
        delta = float(np.mean(diff))
        half = _t95(n - 1) * float(np.std(diff, ddof=1)) / math.sqrt(n) if n > 1 else 1.0
        low, high = max(-1.0, delta - half), min(1.0, delta + half)
    low_pp, high_pp = 100 * low, 100 * high
    return PairedAccuracy(
        examples=n, trials=len(pairs), float32_only=float32_only, mixed_only=mixed_only,
        delta_pp=100 * delta, low_pp=low_pp, high_pp=high_pp,
        p_value=mcnemar_exact(float32_only, mixed_only), tolerance_pp=tolerance_pp,
        outcome=outcome_of(low_pp, high_pp, tolerance_pp))


def unpaired_accuracy(float32_accuracy: float, float32_examples: int, mixed_accuracy: float,
                      mixed_examples: int, tolerance_pp: float = 0.5) -> PairedAccuracy:
    """Two accuracies on examples not known to be the same ones (runs recorded before
    per-example flags): Newcombe's hybrid score interval for independent proportions
    (method 10 of Newcombe 1998), wider than the paired one."""
    l1, u1 = wilson(mixed_accuracy * mixed_examples, mixed_examples)
    l2, u2 = wilson(float32_accuracy * float32_examples, float32_examples)
    delta = mixed_accuracy - float32_accuracy
    low = delta - math.sqrt((mixed_accuracy - l1) ** 2 + (u2 - float32_accuracy) ** 2)
    high = delta + math.sqrt((u1 - mixed_accuracy) ** 2 + (float32_accuracy - l2) ** 2)
    return PairedAccuracy(
        examples=min(float32_examples, mixed_examples), trials=1, float32_only=0,
        mixed_only=0, delta_pp=100 * delta, low_pp=100 * low, high_pp=100 * high,
        p_value=None, tolerance_pp=tolerance_pp,
        outcome=outcome_of(100 * low, 100 * high, tolerance_pp), paired=False)
