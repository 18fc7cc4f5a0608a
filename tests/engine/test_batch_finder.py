"""The batch-size finder (issue 25, "spend the memory mixed precision saves"): the
search, real tries that run out of TensorFlow's own capped CPU allocator in processes of
their own, the command, the comparison at each side's largest batch, and the window."""

from __future__ import annotations

import json
import re
import sys

import pytest

from mpstudio.engine.batch_search.finder import (
    FinderOptions,
    comparison_at_largest,
    find_largest_batches,
    run_try,
    try_spec,
)
from mpstudio.engine.batch_search.memory_cap import cap_problem, cap_target
from mpstudio.engine.batch_search.probe import (
    ERROR,
    FITS,
    OUT_OF_MEMORY,
    TOO_LARGE,
    TryOutcome,
)
from mpstudio.engine.batch_search.search import DID_NOT_FIT, search_largest
from mpstudio.engine.history.locations import HISTORY_ENV
from mpstudio.engine.spec import RunSpec

from support.gui_helpers import RUN_TIMEOUT_MS


@pytest.fixture
def isolated_history(tmp_path, monkeypatch):
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path / "history.sqlite3"))


class Device:
    """A device that holds batches up to ``holds`` and data of ``examples`` examples:
    the search's input, the way the tries would answer."""

    def __init__(self, holds: int, examples: int = 100_000) -> None:
        self.holds, self.examples, self.tried = holds, examples, []

    def __call__(self, batch: int) -> TryOutcome:
        self.tried.append(batch)
        if batch > self.examples:
            return TryOutcome(batch, TOO_LARGE, batch_limit=self.examples)
        return TryOutcome(batch, FITS if batch <= self.holds else OUT_OF_MEMORY)


def test_the_search_doubles_then_halves_the_gap_to_within_an_eighth():
    device = Device(holds=1000)
    result = search_largest("float32", device, 128)
    assert device.tried[:5] == [128, 256, 512, 1024, 768]
    assert result.largest <= 1000 < result.smallest_failed
    assert result.smallest_failed - result.largest <= max(8, result.largest // 8)
    assert all(b % 8 == 0 for b in device.tried)  # Tensor Core shapes
    assert result.bounded and not result.out_of_tries


def test_a_start_that_does_not_fit_shrinks_and_nothing_fitting_is_said():
    result = search_largest("float32", Device(holds=40), 512)
    assert [t.batch_size for t in result.tries][:5] == [512, 256, 128, 64, 32]
    assert (result.largest, result.smallest_failed) == (40, 48)  # then back up the gap
    nothing = search_largest("float32", Device(holds=0), 4)
    assert nothing.largest is None and nothing.tries[-1].batch_size == 1


def test_the_data_bounds_the_search_and_its_refusals_cost_no_tries():
    result = search_largest("float32", Device(holds=10_000, examples=1438), 512, max_tries=3)
    assert result.largest == 1438 and result.whole_data_fits and result.bounded
    assert [t.outcome for t in result.tries].count(TOO_LARGE) == 1
    assert len(result.tries) == 4  # 512, 1024, 2048 (refused), 1438


def test_the_data_limit_one_search_learned_costs_the_next_no_refused_try():
    """The mixed search starts where float32's ended and knows the data's size from it:
    it tried 2048 to be refused with 1,438 again (a process starting TensorFlow)."""
    first = search_largest("float32", Device(holds=1200, examples=1438), 1024)
    assert [t.outcome for t in first.tries[:3]] == [FITS, TOO_LARGE, OUT_OF_MEMORY]
    assert first.data_limit == 1438 and first.largest < 1438
    device = Device(holds=5000, examples=1438)
    mixed = search_largest("mixed_float16", device, 1024, known_data_limit=first.data_limit)
    assert device.tried == [1024, 1438]  # not 2048: what it would answer is known
    assert mixed.whole_data_fits and mixed.bounded and mixed.data_limit == 1438
    # float32 fit the whole split: mixed starts there, not at the multiple of 8 below it
    device = Device(holds=5000, examples=1438)
    whole = search_largest("mixed_float16", device, 1438, known_data_limit=1438)
    assert device.tried == [1438] and whole.whole_data_fits and whole.bounded
    # bounded below the data by the user: the data's size was not reached, as before
    below = search_largest("mixed_float16", Device(holds=5000, examples=1438), 512, most=1024,
                           known_data_limit=1438)
    assert below.largest == 1024 and below.data_limit is None and not below.whole_data_fits


def test_an_unaligned_start_is_aligned_and_the_findings_say_what_bounded_them():
    from mpstudio.engine.batch_search.finder import BatchSearch
    from mpstudio.engine.batch_search.finder_text import result_line, summary_line

    device = Device(holds=300)
    assert search_largest("float32", device, 100, max_tries=3).tries[0].batch_size == 96
    whole = (search_largest("float32", Device(holds=5000, examples=1438), 1024),
             search_largest("mixed_float16", Device(holds=5000, examples=1438), 1024))
    line = summary_line(BatchSearch(RunSpec(), whole, None))
    assert "the data, not memory, is the limit" in line
    partly = (search_largest("float32", Device(holds=700, examples=1438), 512),
              whole[1])
    assert "holds at least" in summary_line(BatchSearch(RunSpec(), partly, 16))
    one = search_largest("float32", Device(holds=5000), 64, max_tries=1)
    assert "1 try," in result_line(one)
    # float16 through float32 copies (a CPU without its instructions: measured on AMD
    # EPYCs 712 vs 1,438, and 1,248 vs 1,438 with oneDNN off) holds the smaller batch
    base = search_largest("float32", Device(holds=1400), 1024, max_tries=8)
    for precision, explained in (("mixed_float16", True), ("mixed_bfloat16", False)):
        smaller = search_largest(precision, Device(holds=700), 1024, max_tries=8)
        line = summary_line(BatchSearch(RunSpec(), (base, smaller), 16))
        assert "holds 0." in line
        assert ("float32 copies of each product's operands" in line) == explained, line


def test_tries_run_out_and_errors_stop_the_search():
    short = search_largest("float32", Device(holds=10_000), 64, max_tries=2)
    assert short.out_of_tries and short.largest == 128 and not short.bounded

    def broken(batch: int) -> TryOutcome:
        return TryOutcome(batch, ERROR, "dataset not found")

    failed = search_largest("float32", broken, 64)
    assert failed.error == "dataset not found" and failed.largest is None
    assert len(failed.tries) == 1
    stopped = search_largest("float32", Device(holds=1000), 64, should_stop=lambda: True)
    assert stopped.stopped and not stopped.tries


def test_cap_checks_and_where_a_cap_goes():
    assert cap_problem(None) is None and cap_problem(64) is None
    assert "at least 16 MiB" in cap_problem(4)
    assert cap_target(["/physical_device:GPU:0"]) == "gpu"
    assert cap_target([]) == "cpu"


def _digits(**changes) -> RunSpec:
    return RunSpec(dataset="digits", template="mlp", epochs=1, **changes)


def test_real_tries_fit_and_run_out_of_tensorflows_capped_allocator():
    """Fresh processes under a 16 MiB cap on TensorFlow's CPU allocator: batch 64 fits
    and reports the allocator's peak; batch 4096 (a 16 MiB activation alone) runs out
    with TensorFlow's own ResourceExhaustedError, which names the tensor; a batch past
    the data is refused with the data's size."""
    spec = RunSpec(dataset="synthetic", dataset_options={"shape": [256], "samples": 8192},
                   template="mlp", epochs=1)
    fits = run_try(try_spec(spec, "float32", 64, 4), 16, 300, lambda: False)
    assert fits.outcome == FITS, fits.detail
    assert 0 < fits.peak_memory_bytes < 16 * 2**20
    assert fits.device.startswith("CPU")
    large = run_try(try_spec(spec, "float32", 4096, 4), 16, 300, lambda: False)
    # past the cap TensorFlow raises its own error, naming the tensor, or an allocation
    # that does not check its result crashes the try (seen: SIGSEGV): both did not fit
    assert large.outcome in DID_NOT_FIT, large.detail
    if large.outcome == OUT_OF_MEMORY:
        assert "tensor" in large.detail and "4096" in large.detail
    else:
        assert "SIG" in large.detail
    too_large = run_try(try_spec(_digits(), "float32", 4096, 4), 16, 300, lambda: False)
    assert too_large.outcome == TOO_LARGE and too_large.batch_limit == 1438


def _tries_running(of: int | None = None) -> list[int]:
    """The pids of try processes now alive that process ``of`` (this one by default)
    started, at any depth: the tries of tests running beside this one (pytest-xdist's
    other worker, another checkout's suite) are not this test's."""
    import psutil

    alive = []
    for proc in psutil.Process(of).children(recursive=True):
        try:
            if "mpstudio.engine.batch_search.probe" in proc.cmdline():
                alive.append(proc.pid)
        except psutil.Error:  # ended meanwhile
            continue
    return alive


def _any_alive(pids: list[int]) -> bool:
    import psutil

    return any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
               for pid in pids)


def _wait_until(condition, seconds: float) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_stop_ends_the_running_try_and_the_search_says_stopped():
    """Stop during the second try: its process is killed, the try is not a finding, and
    the search ends as stopped (the command then exits 0, the window says Stopped)."""
    import threading

    stop = threading.Event()
    seen = []

    def tried(event) -> None:
        seen.append(event)
        threading.Timer(1.0, stop.set).start()  # while the next try loads TensorFlow

    search = find_largest_batches(_digits(), FinderOptions(cap_mib=16, start=128), tried,
                                  stop.is_set)
    assert len(seen) == 1 and search.results[0].stopped and not search.results[0].error
    assert len(search.results) == 1 and len(search.results[0].tries) == 1
    assert _wait_until(lambda: not _tries_running(), 5)


def test_a_try_past_its_time_is_ended_and_said(tmp_path):
    outcome = run_try(try_spec(_digits(), "float32", 128, 4), None, 0.5, lambda: False)
    assert outcome.outcome == ERROR and "did not finish in 0.5 s" in outcome.detail
    assert _wait_until(lambda: not _tries_running(), 5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_try_ends_with_the_process_that_started_it(tmp_path):
    """An engine killed mid-search (SIGKILL: no cleanup runs) takes its try with it."""
    import signal
    import subprocess

    starter = subprocess.Popen([sys.executable, "-c", (
        "from mpstudio.engine.batch_search.finder import run_try, try_spec\n"
        "from mpstudio.engine.spec import RunSpec\n"
        "run_try(try_spec(RunSpec(epochs=1), 'float32', 128, 4000), None, 600, lambda: False)")])
    try:
        assert _wait_until(lambda: _tries_running(of=starter.pid), 30)
        tries = _tries_running(of=starter.pid)
        starter.send_signal(signal.SIGKILL)
        starter.wait(10)
        assert _wait_until(lambda: not _any_alive(tries), 10)
    finally:
        starter.kill()


def test_the_finder_reports_each_try_and_starts_mixed_where_float32_ended():
    seen = []
    search = find_largest_batches(_digits(), FinderOptions(cap_mib=16, start=512, max_tries=1),
                                  seen.append)
    assert [(t.precision, t.outcome.batch_size) for t in seen] == [
        ("float32", 512), ("mixed_float16", 512)]
    assert search.comparable
    mixed, base_batch = comparison_at_largest(search)
    assert (mixed.batch_size, base_batch) == (512, 512)
    assert mixed.learning_rate == pytest.approx(1e-3 * 512 / 128)  # linear rule from 128


def test_a_comparison_at_each_sides_own_batch_scales_the_rate_and_says_so(isolated_history,
                                                                           tmp_path):
    """float32 at batch 64 against mixed at 128 (what the finder's comparison runs): the
    card shows both batches, withholds the memory saving (mixed spent it on the batch)
    and does not call the batch a difference that voids the verdict."""
    from mpstudio.engine.comparison.card_text import card_rows
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.run_session import train_session
    from mpstudio.engine.trainer.compare_options import CompareOptions

    spec = _digits(batch_size=128, learning_rate=2e-3)
    session = train_session(spec, CollectingReporter(),
                            CompareOptions(baseline_batch_size=64))
    base, mixed = session.results
    assert (base.spec.batch_size, mixed.spec.batch_size) == (64, 128)
    assert base.spec.learning_rate == pytest.approx(1e-3)
    card = session.card
    assert card.batch_sizes == (64, 128)
    assert card.differences == "" and card.memory_saving is None
    rows = {row.name: row for row in card_rows(card)}
    assert rows["batch size"].change == "2.00x"
    # a re-run from History and a bundle's replay start the same comparison again
    from mpstudio.engine.history.store import RunStore
    from mpstudio.engine.report.bench_bundle import (
        benchmark_source,
        comparison_spec,
        write_bundle,
    )
    from mpstudio.engine.report.bench_read import read_bundle

    spec_dict, options = comparison_spec(session.stored)
    assert (spec_dict["batch_size"], options.baseline_batch_size) == (128, 64)
    with RunStore() as store:
        path = write_bundle(benchmark_source(store, session.stored[1].id),
                            tmp_path / "bench.zip")
    assert read_bundle(path).compare.baseline_batch_size == 64


def test_find_batch_command_searches_and_compares(run_cli, isolated_history):
    """A cap far above what the whole split needs (peaks ~18 and ~23 MiB here): a cap at
    the edge of a try's peak made the outcome vary run to run (BFC fragmentation); running
    out under a cap is test_real_tries_fit_and_run_out_of_tensorflows_capped_allocator's."""
    code, out, err = run_cli("find-batch", "--memory-cap", "64", "--start", "1024", "--tries",
                             "2", "--epochs", "1", "--compare", "--json")
    assert code == 0, err
    assert "float32, try 1: batch 1,024" not in err  # --json: no progress lines
    payload = json.loads(out)
    assert [r["spec"]["precision"] for r in payload["runs"]] == ["float32", "mixed_float16"]
    found = dict(re.findall(r"^(\S+): largest batch ([\d,]+)", err, re.M))
    assert found == {"float32": "1,438", "mixed_float16": "1,438"}, err
    # float32 tried 1,024, was refused 2,048 as more than the data (1,438 examples), then
    # fit the whole split; mixed started where float32 ended and tried nothing above it
    assert re.search(r"^float32: largest batch 1,438 \(the whole training split "
                     r"\(1,438 examples\) fits in one batch; 3 tries, ", err, re.M), err
    assert re.search(r"^mixed_float16: largest batch 1,438 \(the whole training split "
                     r"\(1,438 examples\) fits in one batch; 1 try, ", err, re.M), err
    assert "the data, not memory, is the limit" in err
    # each side trained at the largest batch its own search found, rate scaled from 128
    for run in payload["runs"]:
        batch = int(found[run["spec"]["precision"]].replace(",", ""))
        assert run["spec"]["batch_size"] == batch
        assert run["spec"]["learning_rate"] == pytest.approx(1e-3 * batch / 128)


def test_find_batch_refuses_bad_settings_before_tensorflow(run_cli):
    code, _out, err = run_cli("find-batch", "--memory-cap", "4", "--tries", "0", "--estimate-only")
    assert code == 2
    assert "at least 16 MiB" in err and "--tries must be a positive integer" in err
    assert "--estimate-only is for train and compare" in err


@pytest.mark.parametrize("cap, says", [
    ("nan", "got nan"), ("inf", "got inf"), ("1e400", "got inf"),  # 1e400 reads as inf
    ("1e30", "a memory cap of 1e+30 MiB is more than this machine has"),
])
def test_a_cap_that_caps_nothing_is_refused_before_any_try(run_cli, cap, says):
    """Issue 35: nan, inf and 1e400 passed, then every try failed alike; 1e30 searched
    for 85 s under a cap of nothing. Refused up front, with exit code 2."""
    code, out, err = run_cli("find-batch", "--memory-cap", cap, "--json")
    assert code == 2 and says in err and "try 1" not in err
    assert json.loads(out)["exit_code"] == 2
    assert err.count("\n") == 1


def test_a_try_given_a_nan_cap_says_so_not_an_unbound_local(tmp_path):
    """The probe, handed a NaN cap (the finder no longer sends one; the engine's job and
    a request from elsewhere could): each try's result was "UnboundLocalError: cannot
    access local variable 'RunSetupError'"."""
    outcome = run_try(try_spec(_digits(), "float32", 64, 2), float("nan"), 120,
                      lambda: False)
    assert outcome.outcome == ERROR
    assert outcome.detail == "a memory cap must be a finite number, at least 16 MiB, got nan"


def test_a_start_above_most_is_refused(run_cli):
    """--start 256 --most 64 started at 64 without saying so."""
    code, _out, err = run_cli("find-batch", "--start", "256", "--most", "64")
    assert code == 2
    assert err == ("mpstudio find-batch: error: --start 256 is above --most 64: give a "
                   "--start of at most 64, or a larger --most\n")


def test_the_window_finds_the_batches_in_a_fresh_engine(qtbot, window):
    w = window
    qtbot.waitUntil(lambda: not w.engine.busy, timeout=RUN_TIMEOUT_MS)
    starts = w.engine.starts
    w.setup.set_spec(w.setup.spec().replace(precision="float32"))
    w.window_actions.find_batch.trigger()
    dialog = w.batch_finder.dialog
    assert dialog is not None and dialog.isVisible()
    assert not dialog.compare_button.isEnabled()
    assert dialog.cap.text() == "the whole device" and dialog.cap_mib() is None
    dialog.cap.setValue(8)  # below what a try needs: not offered (the probe refused it)
    assert dialog.cap.text() == "the whole device" and dialog.cap_mib() is None
    dialog.cap.setValue(16)
    assert dialog.cap_mib() == 16
    dialog.tries.setValue(1)
    dialog.start_button.click()  # float32 alone: nothing to compare it with
    assert "needs a mixed precision" in dialog.status.text()
    assert w.engine.starts == starts and w.batch_finder.job is None
    w.setup.set_spec(w.setup.spec().replace(precision="mixed_float16", batch_size=128))
    dialog.start_button.click()
    assert not w.setup.run_button.isEnabled()  # no run while the finder searches
    qtbot.waitUntil(lambda: w.batch_finder.job is None, timeout=RUN_TIMEOUT_MS)
    assert w.engine.starts == starts + 1  # a fresh engine: no earlier run holds memory
    assert [row[0] for row in dialog.outcomes()] == ["float32", "mixed_float16"], (
        dialog.outcomes(), dialog.summary.text(), dialog.status.text())
    assert all(row[2] == "fits" for row in dialog.outcomes())
    assert "float32: largest batch 128" in dialog.summary.text()
    assert dialog.compare_button.isEnabled()


def test_the_finder_dialog_and_its_findings_read_in_chinese(qtbot, chinese):
    """Every word a Chinese user reads in the dialog after a search: headers, outcomes,
    the per-precision findings and the ratio; only names and numbers stay Latin."""
    from PySide6.QtWidgets import QAbstractButton, QLabel

    from mpstudio.engine.batch_search.finder import BatchSearch, BatchTried
    from mpstudio.ui.setup.batch_finder_dialog import BatchFinderDialog

    from support.language_check import LATIN_NAMES, english_words

    results = (search_largest("float32", Device(holds=500, examples=1438), 128),
               search_largest("mixed_float16", Device(holds=5000, examples=1438), 512))
    dialog = BatchFinderDialog()
    qtbot.addWidget(dialog)
    dialog.started()
    for result in results:
        for index, outcome in enumerate(result.tries, 1):
            dialog.add_try(BatchTried(result.precision, index, outcome))
    dialog.show_search(BatchSearch(RunSpec(), results, 16))
    texts = [dialog.windowTitle(), dialog.summary.text(), dialog.status.text()]
    texts += [w.text() for w in dialog.findChildren(QLabel)]
    texts += [b.text() for b in dialog.findChildren(QAbstractButton)] + [
        b.toolTip() for b in dialog.findChildren(QAbstractButton)]
    texts += [dialog.table.horizontalHeaderItem(c).text()
              for c in range(dialog.table.columnCount())]
    texts += [row[2] for row in dialog.outcomes()]
    allowed = {*LATIN_NAMES, "float32", "mixed_float16", "MiB"}
    english = {t: english_words(t, allowed) for t in texts if english_words(t, allowed)}
    assert not english
    assert "超过数据量" in " ".join(row[2] for row in dialog.outcomes())
    assert "可放入一个批次" in dialog.summary.text()  # the whole split fits mixed's batch
