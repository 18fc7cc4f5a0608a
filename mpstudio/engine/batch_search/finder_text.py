"""The batch-size finder in words, for the command line and the window alike."""

from __future__ import annotations

from typing import Any

from mpstudio.engine.batch_search.finder import BatchSearch, BatchTried
from mpstudio.engine.batch_search.probe import CRASHED, FITS, OUT_OF_MEMORY, TOO_LARGE, TryOutcome
from mpstudio.engine.batch_search.search import SearchResult
from mpstudio.engine.i18n import N_, _, ngettext

_OUTCOMES = {FITS: N_("fits"), OUT_OF_MEMORY: N_("out of memory"), CRASHED: N_("crashed"),
             TOO_LARGE: N_("more than the data")}


def outcome_text(outcome: TryOutcome) -> str:
    """"fits", "out of memory"... (the language in force)."""
    if outcome.outcome == TOO_LARGE and outcome.batch_limit:
        return _("more than the data ({examples:,} examples)").format(
            examples=outcome.batch_limit)
    return _(_OUTCOMES[outcome.outcome]) if outcome.outcome in _OUTCOMES else _("error")


def peak_text(outcome: TryOutcome) -> str:
    """The try's measured peak, "14 MiB" ("" where the device reports none)."""
    peak = outcome.peak_memory_bytes
    return f"{peak / 2**20:,.0f} MiB" if peak else ""


def tried_line(tried: BatchTried) -> str:
    """One try as it ends: "float32, try 3: batch 1,024: out of memory (3.4 s)"."""
    outcome = outcome_text(tried.outcome)
    if tried.outcome.peak_memory_bytes:
        outcome = _("{outcome}, peak {peak}").format(outcome=outcome,
                                                     peak=peak_text(tried.outcome))
    return _("{precision}, try {index}: batch {batch:,}: {outcome} ({seconds:.1f} s)").format(
        precision=tried.precision, index=tried.index, batch=tried.outcome.batch_size,
        outcome=outcome, seconds=tried.outcome.seconds)


def result_line(result: SearchResult) -> str:
    """What one precision's search found, and why it ended there."""
    tries = len(result.tries)
    if result.largest is None:
        found = _("{precision}: no batch fit").format(precision=result.precision)
    else:
        found = _("{precision}: largest batch {batch:,}").format(
            precision=result.precision, batch=result.largest)
    if result.error:
        why = _("stopped by an error that is not memory: {error}").format(error=result.error)
    elif result.stopped:
        why = _("stopped before the search ended")
    elif result.whole_data_fits:
        why = _("the whole training split ({examples:,} examples) fits in one batch").format(
            examples=result.data_limit)
    elif result.smallest_failed is not None:
        why = _("batch {batch:,} ran out of memory").format(batch=result.smallest_failed)
        if result.out_of_tries:
            why = _("{why}; the tries ran out before the gap closed").format(why=why)
    elif result.out_of_tries:
        why = _("the tries ran out before any batch ran out of memory: raise the start or "
                "the number of tries")
    elif result.largest is not None:  # the user's bound (--most) stopped it
        why = _("every batch up to the bound fit: raise the bound")
    else:
        why = _("no batch fit, down to batch 1")
    spent = ngettext("{tries} try, {seconds:.0f} s", "{tries} tries, {seconds:.0f} s",
                     tries).format(tries=tries, seconds=sum(t.seconds for t in result.tries))
    return _("{found} ({why}; {spent})").format(found=found, why=why, spent=spent)


def summary_line(search: BatchSearch) -> str:
    """The finding in one sentence: how much larger a batch the mixed side holds."""
    if not search.comparable:
        return ""
    base, mixed = search.results
    assert base.largest and mixed.largest
    unbounded = [r.precision for r in search.results if not r.bounded]
    if unbounded:
        return _("no ratio: {precisions} fit every batch tried, so the largest is not known "
                 "(raise the tries, the start or the bound)").format(
                     precisions=", ".join(unbounded))
    if base.whole_data_fits and mixed.whole_data_fits:
        return _("both fit the whole training split in one batch ({examples:,} examples): the "
                 "data, not memory, is the limit; give a memory cap or more data").format(
                     examples=mixed.largest)
    cap = (_("within a {cap:,.0f} MiB memory cap").format(cap=search.cap_mib)
           if search.cap_mib else _("in the device's memory"))
    values = dict(mixed=mixed.precision, base=base.precision, ratio=mixed.largest / base.largest,
                  mixed_batch=mixed.largest, base_batch=base.largest, cap=cap)
    if mixed.whole_data_fits:  # the data stopped mixed, memory stopped the baseline
        return _("{mixed} holds at least {ratio:.2f}x the batch of {base} ({mixed_batch:,}, "
                 "the whole training split, vs {base_batch:,}) {cap}").format(**values)
    line = _("{mixed} holds {ratio:.2f}x the batch of {base} ({mixed_batch:,} vs "
             "{base_batch:,}) {cap}").format(**values)
    if mixed.largest < base.largest and mixed.precision == "mixed_float16":
        # measured on 2-core AMD EPYCs (F16C only) under a 16 MiB cap: 712 vs 1,438, and
        # 1,248 vs 1,438 with oneDNN off (Eigen's kernels); a GPU's Tensor Cores read
        # float16 as it is
        line += _(": where float16 has no native instructions (a CPU without AVX512-FP16 "
                  "or AMX), TensorFlow multiplies it through float32 copies of each "
                  "product's operands, so mixed_float16 can need more memory than float32")
    return line


def search_lines(search: BatchSearch) -> list[str]:
    lines = [result_line(r) for r in search.results]
    summary = summary_line(search)
    return [*lines, summary] if summary else lines


def search_json(search: BatchSearch) -> dict[str, Any]:
    """For ``--json``: numbers and outcomes, the same in every language."""
    import dataclasses

    return {
        "cap_mib": search.cap_mib,
        "batch_size": search.spec.batch_size,
        "learning_rate": search.spec.learning_rate,
        "results": [{
            "precision": r.precision, "largest": r.largest,
            "smallest_failed": r.smallest_failed, "data_limit": r.data_limit,
            "error": r.error, "stopped": r.stopped, "out_of_tries": r.out_of_tries,
            "tries": [dataclasses.asdict(t) for t in r.tries],
        } for r in search.results],
    }
