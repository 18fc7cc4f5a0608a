"""The search for the largest batch that fits: double from a start until a try runs out
of memory, then halve the gap between the largest that fit and the smallest that did
not until it is within ``resolution`` of the batch (or 8). Candidates above 8 are
multiples of 8, the shapes Tensor Cores take whole. The data bounds it too: a batch is
never larger than the training split.

Pure: ``try_at(batch)`` runs one try (in the finder, a process of its own) and says
what happened, so the search reads the same whatever runs the tries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mpstudio.engine.batch_search.probe import CRASHED, FITS, OUT_OF_MEMORY, TOO_LARGE, TryOutcome

DID_NOT_FIT = (OUT_OF_MEMORY, CRASHED)
ALIGN = 8


@dataclass(frozen=True)
class SearchResult:
    """Where the search ended for one precision."""

    precision: str
    largest: int | None  # the largest batch that fit; None: none did
    smallest_failed: int | None  # the smallest that ran out (None: none did)
    data_limit: int | None  # the training split's size when the search reached it
    tries: tuple[TryOutcome, ...]
    error: str = ""  # a failure that is not memory: the search stopped on it
    stopped: bool = False  # the user stopped it
    out_of_tries: bool = False  # the tries ran out before the gap closed

    @property
    def whole_data_fits(self) -> bool:
        return self.largest is not None and self.largest == self.data_limit

    @property
    def bounded(self) -> bool:
        """The largest batch is known to be the largest: a larger one ran out of memory,
        or it is the whole training split."""
        return self.largest is not None and (self.smallest_failed is not None
                                             or self.whole_data_fits)


def aligned(batch: int) -> int:
    """``batch`` rounded down to a multiple of 8 above 8."""
    return batch if batch <= ALIGN else batch - batch % ALIGN


def close_enough(largest: int, failed: int, resolution: float) -> bool:
    return failed - largest <= max(ALIGN, int(largest * resolution))


def _between(low: int, high: int) -> int | None:
    """A batch halfway between, aligned; None when no aligned batch lies between."""
    middle = aligned(low + (high - low) // 2)
    if low < middle < high:
        return middle
    middle = low + (high - low) // 2
    return middle if low < middle < high else None


def search_largest(precision: str, try_at: Callable[[int], TryOutcome], start: int, *,
                   most: int | None = None, resolution: float = 0.125, max_tries: int = 12,
                   should_stop: Callable[[], bool] = lambda: False,
                   known_data_limit: int | None = None) -> SearchResult:
    """The largest batch of ``precision`` that fits, from ``start``, at most ``most``
    (the user's bound), in at most ``max_tries`` tries. ``known_data_limit``: the
    training split's size where an earlier search learned it (a try refused as more
    than the data): no try is spent to be refused with it again."""
    largest: int | None = None
    failed: int | None = None
    limit = most
    if known_data_limit is not None:
        limit = known_data_limit if most is None else min(most, known_data_limit)
    data_limit: int | None = None
    tries: list[TryOutcome] = []
    batch = aligned(max(1, start))  # doubling keeps a multiple of 8 one
    if known_data_limit is not None and start >= known_data_limit:
        batch = known_data_limit  # the last search fit the whole split: try that, not below
    error = ""
    while True:
        if should_stop():
            return SearchResult(precision, largest, failed, data_limit, tuple(tries), error,
                                stopped=True)
        if sum(t.outcome != TOO_LARGE for t in tries) >= max_tries:  # those cost no steps
            return SearchResult(precision, largest, failed, data_limit, tuple(tries), error,
                                out_of_tries=True)
        if limit is not None:
            batch = min(batch, limit)
        if batch == known_data_limit:
            data_limit = batch  # reached, as a refused try would have said
        outcome = try_at(batch)
        if should_stop():  # the try was ended part-way: it says nothing about the batch
            return SearchResult(precision, largest, failed, data_limit, tuple(tries), error,
                                stopped=True)
        tries.append(outcome)
        if outcome.outcome == FITS:
            largest = batch
        elif outcome.outcome in DID_NOT_FIT:
            failed = batch
        elif outcome.outcome == TOO_LARGE and outcome.batch_limit:
            data_limit = limit = outcome.batch_limit
            if failed is not None and failed > limit:
                failed = None
            batch = limit
            continue  # try the whole split
        else:
            error = outcome.detail or outcome.outcome
            break
        following = _next(largest, failed, limit, resolution)
        if following is None:
            break
        batch = following
    return SearchResult(precision, largest, failed, data_limit, tuple(tries), error)


def _next(largest: int | None, failed: int | None, limit: int | None,
          resolution: float) -> int | None:
    """The next batch to try; None when the search is done."""
    if failed is None:  # growing
        assert largest is not None
        if limit is not None and largest >= limit:
            return None  # the whole training split fits in one batch
        return largest * 2
    if largest is None:  # shrinking: nothing has fit yet
        return None if failed <= 1 else aligned(failed // 2)
    if close_enough(largest, failed, resolution):
        return None
    return _between(largest, failed)
