"""float32 against mixed precision, op type by op type: where the mixed step lost time.

Rows are ranked by time lost per step (mixed minus float32), so the first row is the
op type that explains most of a slowdown; slower_reason() says it in one sentence.

Fused kernels are compared under the op they fuse onto: on a CPU, oneDNN runs float32
Conv2D+BiasAdd+Relu as one FusedConv2D (and the filter gradient as
Conv2DBackpropFilterWithBias) but may not fuse float16, so "Conv2D" rows line up
across precisions; the ops fused away show up as mixed-only rows (BiasAdd, Relu).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.profiling.device_kernels import UNATTRIBUTED
from mpstudio.engine.profiling.op_profile import OpProfile, OpRow

# ms per step; marked with N_(): shown as _(header)
ROW_HEADERS = (N_("op type"), "float32", N_("mixed"), N_("ratio"), N_("lost"),
               N_("Tensor Cores"))
SECOND_OP_SHARE = 0.25  # a second op is named when it lost this much of the first's loss
INPUT_WAIT_RISE = 0.05  # input wait is named when its share of the step rose this much
_FUSED = re.compile(r"^(?:PadWith)?Fused(?P<base>Conv2D|Conv3D|MatMul|BatchMatMulV[23]|"
                    r"DepthwiseConv2dNative)$")


@dataclass(frozen=True)
class ComparisonRow:
    op_type: str
    float32_seconds: float  # per step; 0 when float32 did not run this op type
    mixed_seconds: float  # per step; 0 when mixed precision did not run it
    mixed_share: float  # of the mixed step
    tensor_core: bool | None = None  # the mixed side's kernels (GPU only)
    dtype: str | None = None  # the mixed side's

    @property
    def ratio(self) -> float | None:
        """mixed / float32 time; None for an op type only the mixed step ran."""
        return self.mixed_seconds / self.float32_seconds if self.float32_seconds > 0 else None

    @property
    def lost_seconds(self) -> float:
        return self.mixed_seconds - self.float32_seconds


@dataclass(frozen=True)
class ProfileComparison:
    device_kind: str
    rows: tuple[ComparisonRow, ...]  # most time lost per step first
    float32_step_time: float
    mixed_step_time: float
    casts_added_count: float  # per step, mixed minus float32
    casts_added_seconds: float
    float32_input_wait: float  # fractions of each side's step
    mixed_input_wait: float

    def rows_text(self, limit: int | None = None) -> list[tuple[str, ...]]:
        """Table cells (see ROW_HEADERS), most time lost first."""
        return [_row_text(row) for row in self.rows[:limit]]


def compare_profiles(baseline: OpProfile, mixed: OpProfile) -> ProfileComparison:
    """baseline: the float32 run's profile; mixed: the mixed-precision run's."""
    before, after = _by_family(baseline.rows), _by_family(mixed.rows)
    rows = [_compare(op_type, before.get(op_type), after.get(op_type), mixed.step_time)
            for op_type in before.keys() | after.keys()]
    rows.sort(key=lambda r: (-r.lost_seconds, -r.mixed_seconds, r.op_type))
    return ProfileComparison(
        device_kind=mixed.device_kind,
        rows=tuple(rows),
        float32_step_time=baseline.step_time,
        mixed_step_time=mixed.step_time,
        casts_added_count=mixed.cast_count_per_step - baseline.cast_count_per_step,
        casts_added_seconds=mixed.cast_seconds_per_step - baseline.cast_seconds_per_step,
        float32_input_wait=baseline.input_wait_fraction,
        mixed_input_wait=mixed.input_wait_fraction,
    )


def slower_reason(comparison: ProfileComparison, precision: str, device_phrase: str) -> str:
    """One plain sentence naming what made the mixed step slower, e.g. "Conv2DBackpropFilter
    in float16 took 3.1x longer on this CPU, 61% of the step; casts added 0.4 ms per
    step (8%)." precision: "mixed_float16" or "float16"; device_phrase: "this CPU" (in
    the language in force, as the sentence is)."""
    dtype = precision.removeprefix("mixed_")
    lost = [r for r in comparison.rows if r.lost_seconds > 0]
    if lost:
        clause = _op_clause(lost[0], dtype, device_phrase)
        if len(lost) > 1 and lost[1].lost_seconds >= SECOND_OP_SHARE * lost[0].lost_seconds:
            clause = _("{clause}, and {op} {ratio}").format(
                clause=clause, op=_op_name(lost[1].op_type), ratio=_ratio_words(lost[1]))
        parts = [clause]
    else:
        parts = [_("no op type took longer in {dtype} on {device}").format(
            dtype=dtype, device=device_phrase)]
    if comparison.casts_added_seconds > 0 and comparison.casts_added_count > 0:
        parts.append(_("casts added {ms} ms per step ({percent})").format(
            ms=_ms(comparison.casts_added_seconds),
            percent=_percent(comparison.casts_added_seconds, comparison.mixed_step_time)))
    if comparison.mixed_input_wait - comparison.float32_input_wait >= INPUT_WAIT_RISE:
        parts.append(_("waiting for input rose from {before:.0%} to {after:.0%} of the "
                       "step").format(before=comparison.float32_input_wait,
                                      after=comparison.mixed_input_wait))
    sentence = parts[0]
    for part in parts[1:]:
        sentence = _("{first}; {then}").format(first=sentence, then=part)
    return _("{sentence}.").format(sentence=sentence[0].upper() + sentence[1:])


def op_family(op_type: str) -> str:
    """The op a fused kernel stands for: FusedConv2D -> Conv2D,
    Conv2DBackpropFilterWithBias -> Conv2DBackpropFilter; others are themselves."""
    match = _FUSED.match(op_type)
    if match:
        return match["base"]
    if op_type == "FusedBatchNormEx":
        return "FusedBatchNormV3"
    return op_type.removesuffix("WithBias") or op_type


def _by_family(rows: tuple[OpRow, ...]) -> dict[str, OpRow]:
    families: dict[str, OpRow] = {}
    for row in rows:
        family = op_family(row.op_type)
        known = families.get(family)
        families[family] = row if known is None else _sum_rows(family, known, row)
    return families


def _sum_rows(op_type: str, a: OpRow, b: OpRow) -> OpRow:
    tensor_core = None if a.tensor_core is None and b.tensor_core is None else bool(
        a.tensor_core or b.tensor_core)
    return OpRow(op_type=op_type, seconds_per_step=a.seconds_per_step + b.seconds_per_step,
                 count_per_step=a.count_per_step + b.count_per_step, share=a.share + b.share,
                 tensor_core=tensor_core, dtype=a.dtype or b.dtype)


def _compare(op_type: str, before: OpRow | None, after: OpRow | None,
             mixed_step_time: float) -> ComparisonRow:
    mixed_seconds = after.seconds_per_step if after else 0.0
    return ComparisonRow(
        op_type=op_type,
        float32_seconds=before.seconds_per_step if before else 0.0,
        mixed_seconds=mixed_seconds,
        mixed_share=mixed_seconds / mixed_step_time if mixed_step_time > 0 else 0.0,
        tensor_core=after.tensor_core if after else None,
        dtype=after.dtype if after else None,
    )


def _op_name(op_type: str) -> str:
    return _(UNATTRIBUTED) if op_type == UNATTRIBUTED else op_type


def _op_clause(row: ComparisonRow, dtype: str, device_phrase: str) -> str:
    op, share = _op_name(row.op_type), f"{row.mixed_share:.0%}"
    if row.ratio is None:
        text = (_("{op}, which float32 did not run, took {ms} ms per step in {dtype} on "
                  "{device} with no Tensor Core kernels, {share} of the step")
                if row.tensor_core is False else
                _("{op}, which float32 did not run, took {ms} ms per step in {dtype} on "
                  "{device}, {share} of the step"))
        return text.format(op=op, ms=_ms(row.mixed_seconds), dtype=dtype,
                           device=device_phrase, share=share)
    text = (_("{op} in {dtype} took {ratio} on {device} with no Tensor Core kernels, {share} "
              "of the step") if row.tensor_core is False else
            _("{op} in {dtype} took {ratio} on {device}, {share} of the step"))
    return text.format(op=op, dtype=dtype, ratio=_ratio_words(row), device=device_phrase,
                       share=share)


def _ratio_words(row: ComparisonRow) -> str:
    ratio = row.ratio
    if ratio is None:
        return _("(new, {ms} ms per step)").format(ms=_ms(row.mixed_seconds))
    return _("{ratio} longer").format(ratio=_ratio(ratio))


def _row_text(row: ComparisonRow) -> tuple[str, ...]:
    if row.ratio is not None:
        ratio = _ratio(row.ratio) if row.mixed_seconds > 0 else _("gone")
    else:
        ratio = _("new")
    tensor_cores = "-" if row.tensor_core is None else (_("yes") if row.tensor_core else _("no"))
    return (_op_name(row.op_type), _table_ms(row.float32_seconds),
            _table_ms(row.mixed_seconds), ratio, _table_ms(row.lost_seconds, sign="+"),
            tensor_cores)


def _ratio(ratio: float) -> str:
    return f"{ratio:.2f}x" if ratio < 1.1 else f"{ratio:.1f}x"


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    if ms >= 100:
        return f"{ms:.0f}"
    return f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def _table_ms(seconds: float, sign: str = "") -> str:
    """Milliseconds with enough decimals that a tiny model's ops are not all 0.00."""
    ms = seconds * 1e3
    decimals = 1 if abs(ms) >= 10 else 2 if abs(ms) >= 0.1 else 3
    return f"{ms:{sign}.{decimals}f}"


def _percent(part: float, whole: float) -> str:
    if whole <= 0:
        return "?"
    percent = 100 * part / whole
    return f"{percent:.1f}%" if percent < 1 else f"{percent:.0f}%"
