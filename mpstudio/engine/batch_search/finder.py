"""The batch-size finder: for float32 and the run's mixed precision, the largest batch
that trains a few steps without running out of memory, each try in a fresh process
(``probe``), so every try starts with the device's memory clean and a crash ends only
that try. Then the specs of the comparison NVIDIA's published speedups are made of:
float32 at its largest batch against mixed precision at its own, the learning rate
scaled from the run's by the linear rule.

Imports no TensorFlow: the window's engine and the ``mpstudio find-batch`` command run
it before any of their own TensorFlow work, so this process holds no device memory
the tries would compete with.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from mpstudio.engine.batch_search.probe import (
    CRASHED,
    ERROR,
    PARENT_ENV,
    TryOutcome,
    TryRequest,
)
from mpstudio.engine.batch_search.search import SearchResult, search_largest
from mpstudio.engine.child_process import last_words, signal_name
from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.float8 import BASE_POLICY, FLOAT8
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec

log = logging.getLogger(__name__)
TRY_STEPS = 4  # the first step traces; by the third the step's memory is all held
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class FinderOptions:
    cap_mib: float | None = None  # the device memory a try may use (None: all of it)
    start: int | None = None  # the first batch tried (None: the run's batch size)
    most: int | None = None  # never try above this batch
    max_tries: int = 10  # per precision
    resolution: float = 0.125  # stop when the gap is within this share of the batch
    steps: int = TRY_STEPS
    timeout_s: float = 900.0  # a try that takes longer is ended, counted as an error


@dataclass(frozen=True)
class BatchTried:
    """One try, as it ends: the window's table and the command's progress line."""

    precision: str
    index: int  # 1, 2, ... within its precision
    outcome: TryOutcome


@dataclass(frozen=True)
class BatchSearch:
    """What the finder found: one result per precision, float32 first."""

    spec: RunSpec  # the run the search was for (its batch and learning rate)
    results: tuple[SearchResult, ...]
    cap_mib: float | None

    def result(self, precision: str) -> SearchResult | None:
        return next((r for r in self.results if r.precision == precision), None)

    @property
    def comparable(self) -> bool:
        """Both sides found a batch: the comparison at the largest batches can run."""
        return len(self.results) == 2 and all(r.largest for r in self.results)


def precisions_for(spec: RunSpec) -> tuple[str, str]:
    """The two sides searched: the comparison's baseline, then the run's precision."""
    return (BASE_POLICY if spec.precision == FLOAT8 else "float32", spec.precision)


def try_spec(spec: RunSpec, precision: str, batch: int, steps: int) -> RunSpec:
    """One try: the run at ``batch`` for a few steps, with nothing but the training
    (no retries, no aids that stop early or write files)."""
    aids = dataclasses.replace(
        spec.aids, oom_retry=False, early_stopping=False, reduce_lr_on_plateau=False,
        best_checkpoint=False, tensorboard=False, diagnose_numerics=False, underflow_every=0)
    return spec.replace(precision=precision, batch_size=batch, steps=steps, epochs=1,
                        aids=aids, log_every_steps=0)


def run_try(spec: RunSpec, cap_mib: float | None, timeout_s: float,
            should_stop: Callable[[], bool]) -> TryOutcome:
    """``spec`` tried in a process of its own (``probe``); a crash is "did not fit",
    with its signal."""
    request = json.dumps(dataclasses.asdict(TryRequest(spec.to_dict(), cap_mib)))
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mpstudio.engine.batch_search.probe"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        errors="replace",
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", PARENT_ENV: str(os.getpid())})
    try:
        stdout, stderr = _communicate(proc, request, timeout_s, should_stop)
    except subprocess.TimeoutExpired:
        return TryOutcome(spec.batch_size, ERROR, _(
            "the try did not finish in {seconds} s and was ended").format(
                seconds=f"{timeout_s:g}"), seconds=time.monotonic() - started)
    seconds = time.monotonic() - started
    for line in reversed(stdout.splitlines()):
        outcome = TryOutcome.from_line(line)
        if outcome is not None:  # its time: the whole process, TensorFlow's start included
            return dataclasses.replace(outcome, seconds=seconds)
    log.info("batch %d try ended with code %s; its stderr ends: %s", spec.batch_size,
             proc.returncode, stderr[-2000:])
    if should_stop():
        return TryOutcome(spec.batch_size, ERROR, _("stopped"), seconds=seconds)
    name = signal_name(proc.returncode)
    if name is not None:
        return TryOutcome(spec.batch_size, CRASHED, _(
            "the try's process crashed ({signal}): memory ran out where TensorFlow does "
            "not check").format(signal=name), seconds=seconds)
    return TryOutcome(spec.batch_size, ERROR, last_words(stderr.splitlines()) or _(
        "the try's process ended with exit code {code}").format(code=proc.returncode),
        seconds=seconds)


def _communicate(proc: subprocess.Popen, request: str, timeout_s: float,
                 should_stop: Callable[[], bool]) -> tuple[str, str]:
    """Send the request and wait, ending the process on a stop or the timeout."""
    deadline = time.monotonic() + timeout_s
    try:
        return proc.communicate(request, timeout=POLL_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    while True:
        if should_stop() or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            if not should_stop():
                raise subprocess.TimeoutExpired(proc.args, timeout_s, out, err)
            return out, err
        try:
            return proc.communicate(timeout=POLL_SECONDS)
        except subprocess.TimeoutExpired:
            continue


def find_largest_batches(spec: RunSpec, options: FinderOptions,
                         on_try: Callable[[BatchTried], None] = lambda tried: None,
                         should_stop: Callable[[], bool] = lambda: False) -> BatchSearch:
    """Search float32 (mixed_bfloat16 for float8), then the run's precision from the
    batch float32 reached (mixed precision holds at least as large a batch)."""
    results: list[SearchResult] = []
    start = options.start or spec.batch_size
    data_limit: int | None = None
    for precision in precisions_for(spec):
        count = 0

        def try_at(batch: int, precision: str = precision) -> TryOutcome:
            nonlocal count
            outcome = run_try(try_spec(spec, precision, batch, options.steps),
                              options.cap_mib, options.timeout_s, should_stop)
            if not should_stop():  # a try ended by Stop is not a finding
                count += 1
                on_try(BatchTried(precision, count, outcome))
            return outcome

        result = search_largest(precision, try_at, start, most=options.most,
                                resolution=options.resolution,
                                max_tries=options.max_tries, should_stop=should_stop,
                                known_data_limit=data_limit)
        results.append(result)
        if result.stopped or result.error:
            break
        start = result.largest or start
        # the data's size is the same for every precision: the next search does not spend
        # a try (a process starting TensorFlow) to be refused with it again
        data_limit = result.data_limit or data_limit
    return BatchSearch(spec, tuple(results), options.cap_mib)


def comparison_at_largest(search: BatchSearch) -> tuple[RunSpec, int]:
    """The mixed run at its largest batch, learning rate scaled linearly from the run's,
    and the baseline's largest batch (compare scales its rate the same way)."""
    base, mixed = search.results
    assert base.largest and mixed.largest
    spec = search.spec
    return spec.replace(batch_size=mixed.largest, learning_rate=scaled_learning_rate(
        spec.learning_rate, spec.batch_size, mixed.largest)), base.largest
