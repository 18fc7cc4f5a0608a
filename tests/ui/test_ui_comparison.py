"""Compare with float32 as a user does it: tick, run, read the card, restart the app,
find the runs in History, compare two, export the report, re-run one.

A comparison sized for timing trains each side for seconds (comparison/sizing.py): one
of them (trained once, by the module's ``sized_comparison``) serves the card's test and
the restart's; the two-trial one trains as set."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mpstudio.engine.comparison.card_text import card_rows
from mpstudio.engine.history.locations import history_path
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.spec import RunSpec

from support.gui_helpers import (
    RUN_TIMEOUT_MS,
    bare_window,
    close_window,
    end_window,
    open_window,
    select,
    start_window,
    wait_for,
)
from support.history_fakes import started, step

pytestmark = pytest.mark.slow


def _run(qtbot, w, expect: str = "finished") -> None:
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == [expect], w.banner.text()


def _click(qtbot, button) -> None:
    assert button.isEnabled(), button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _mlp_on_digits(w) -> None:
    """mixed_float16 against float32 on a user's one epoch: 22 steps, too short to time."""
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(1)
    w.setup.batch_size.setValue(64)


@dataclass(frozen=True)
class SizedComparison:
    """A comparison run in the window (since closed), what the window showed when it
    ended, and the folder of its user: the history, its runs, the window's settings."""

    folder: Path
    ended: list[Any]
    card: Any
    point_counts: dict[str, dict[str, int]]
    rows_text: list[tuple[str, str, str, str]]
    verdict_text: str
    sizing_ticked: bool
    card_open: bool
    banner_shown: bool
    status: str
    export_enabled: bool
    selected: list[int]

    def restore(self, settings_file: Path) -> None:
        """A test's own user folders (isolated_datasets) as this user left them."""
        target = history_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.folder / "history.sqlite3")) as source, \
                closing(sqlite3.connect(target)) as copy:
            source.backup(copy)
        shutil.copytree(self.folder / "runs", target.parent / "runs")
        shutil.copy(self.folder / "window.ini", settings_file)


@pytest.fixture(scope="module")
def sized_comparison(qapp, module_user_folders) -> SizedComparison:
    """Tick Compare with float32 and Run, once for the module's tests: sizing is on by
    default, so mpstudio lengthens the user's one epoch until each side gets seconds of
    steady time (one trial a side: each costs some 8 s of CPU). The window is closed
    before any test runs: its engine must not outlive the set-up."""
    w = start_window(module_user_folders / "window.ini")
    try:
        _mlp_on_digits(w)
        w.setup.baseline.setChecked(True)
        ended: list[Any] = []
        w.run_ended.connect(ended.append)
        QTest.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
        wait_for(lambda: bool(ended), RUN_TIMEOUT_MS, "the comparison")
        return SizedComparison(
            module_user_folders, ended, w.card_view.card, w.charts.point_counts(),
            w.card_view.rows_text(), w.card_view.verdict.text(), w.setup.sizing.isChecked(),
            w.central_tabs.card_open, w.banner.isVisible(), w.status_text.text(),
            w.window_actions.export_report.isEnabled(), w.history.selected_ids())
    finally:
        end_window(w)


def test_compare_read_the_card(sized_comparison):
    seen = sized_comparison
    assert seen.ended == ["finished"]
    # Both sides overlay on every chart, one legend entry a side.
    counts = seen.point_counts
    assert set(counts["loss"]) == {"float32 baseline", "mixed_float16"}
    assert all(n > 0 for n in counts["loss"].values())
    assert counts["loss_scale"]["mixed_float16"] > 0
    # The card: the numbers from the history, a verdict.
    card = seen.card
    assert card is not None and card.trials == 1
    assert card.baseline.run_ids == (1,) and card.mixed.run_ids == (2,)
    # One epoch is too short to time: sized for timing (on by default), and the card
    # says so in its own row.
    assert seen.sizing_ticked and card.sized and card.verdict.kind != "too_short"
    assert ("training length", "sized by mpstudio") in [
        (name, change) for name, _, _, change in seen.rows_text]
    assert seen.card_open  # the verdict in front, once: no banner repeats it
    assert not seen.banner_shown
    assert seen.verdict_text == card.verdict.sentence
    assert seen.rows_text == [(r.name, r.baseline, r.mixed, r.change) for r in card_rows(card)]
    assert seen.status.startswith("Comparison finished: ")
    assert seen.export_enabled
    assert sorted(seen.selected) == [1, 2]  # the new runs, selected


def test_restart_and_find_it_in_history_then_rerun_it(qtbot, tmp_path, sized_comparison):
    # A new session finds the runs in History and compares them.
    card = sized_comparison.card
    sized_comparison.restore(tmp_path / "window.ini")
    w = open_window(qtbot, tmp_path / "window.ini")
    assert w.setup.with_baseline()  # remembered
    assert not w.central_tabs.isTabVisible(1)  # no card yet in a new session
    assert w.history.visible_ids() == [2, 1]
    assert not w.window_actions.export_report.isEnabled()
    w.history.select_ids([1, 2])
    _click(qtbot, w.history.compare_button)
    again = w.card_view.card
    assert again is not None and again.speedup == card.speedup
    assert again.accuracy_delta_pp == card.accuracy_delta_pp
    assert again.verdict == card.verdict
    assert w.central_tabs.card_open  # History's comparison opens its card too
    assert w.status_text.text().startswith("Comparing #1 float32 baseline")
    assert set(w.charts.point_counts()["loss"]) == {"#1 float32 baseline",
                                                    "#2 mixed_float16"}
    report = tmp_path / "report.html"
    assert w.history_actions.export_report(str(report))
    text = report.read_text()
    ET.fromstring(text.split("\n", 1)[1])  # well-formed, self-contained
    assert card.verdict.sentence.split(":")[0] in text
    assert card_rows(again)[0].change in text  # the speedup
    assert (tmp_path / "report.csv").read_text().startswith("run_id,")
    assert not w.history_actions.export_report(str(tmp_path / "missing" / "r.html"))
    assert "nothing was written" in w.banner.text()

    # Plot one run alone, then re-run its spec: a new comparison, sized again.
    w.history.select_ids([2])
    _click(qtbot, w.history.plot_button)
    assert set(w.charts.point_counts()["loss"]) == {"#2 mixed_float16"}
    # a single run on the charts: the comparison's card goes with its charts
    assert w.card_view.card is None and not w.central_tabs.isTabVisible(1)
    assert w.central_tabs.currentWidget() is w.charts
    assert not w.window_actions.export_report.isEnabled()
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        _click(qtbot, w.history.rerun_button)
    assert ended.args == ["finished"]
    assert w.setup.spec().precision == "mixed_float16" and w.setup.with_baseline()
    assert w.card_view.card.mixed.run_ids == (4,)
    # the form shows what the user had set; the re-run was sized again
    assert (w.setup.spec().epochs, w.setup.spec().steps) == (1, None)
    assert w.setup.sizing.isChecked() and w.card_view.card.sized

    # Deleting the runs on the card clears it.
    w.history.confirm_delete = lambda ids: True
    w.history.select_ids([3, 4])
    _click(qtbot, w.history.delete_button)
    assert w.card_view.card is None and not w.window_actions.export_report.isEnabled()
    with RunStore() as store:
        assert [r.id for r in store.runs()] == [2, 1]
    close_window(qtbot, w)


def test_two_trials_a_side_and_a_rerun_of_them(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path / "window.ini")
    _mlp_on_digits(w)
    assert w.setup.baseline.text() == "Compare with float32"
    assert not w.setup.trials.isEnabled()  # only with the box ticked
    w.setup.baseline.setChecked(True)
    assert w.setup.trials.isEnabled()
    w.setup.trials.setValue(2)
    # the trials are the point: the sized, timed comparison is sized_comparison's
    w.setup.sizing.setChecked(False)
    _run(qtbot, w)

    # Both sides overlay on every chart, one legend entry a side (trial 2 replaced 1).
    counts = w.charts.point_counts()
    assert set(counts["loss"]) == {"float32 baseline", "mixed_float16"}
    assert all(n > 0 for n in counts["loss"].values())
    card = w.card_view.card  # both trials a side
    assert card is not None and card.trials == 2 and w.central_tabs.card_open
    assert card.baseline.run_ids == (1, 3) and card.mixed.run_ids == (2, 4)
    assert sorted(w.history.selected_ids()) == [1, 2, 3, 4]  # the new runs, selected

    # History's re-run of one of them: the comparison again, two trials a side.
    w.history.select_ids([2])
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        _click(qtbot, w.history.rerun_button)
    assert ended.args == ["finished"]
    assert w.setup.with_baseline() and w.setup.trials.value() == 2
    assert w.card_view.card.trials == 2 and w.card_view.card.mixed.run_ids == (6, 8)
    w.history.confirm_delete = lambda ids: True
    w.history.select_ids([5, 6, 7, 8])
    _click(qtbot, w.history.delete_button)
    assert w.card_view.card is None
    with RunStore() as store:
        assert [r.id for r in store.runs()] == [4, 3, 2, 1]
    close_window(qtbot, w)

    # the next session's form remembers the comparison (settings only: no engine)
    w = bare_window(qtbot, tmp_path / "window.ini")
    assert w.setup.baseline.isChecked() and w.setup.trials.value() == 2


def test_a_run_a_crash_left_behind_shows_as_interrupted(qtbot, tmp_path):
    with RunStore() as store:
        run_id = store.begin_run(started())
        store.add_metrics(run_id, [step(n) for n in range(1, 6)])
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)
        store._conn.execute("UPDATE runs SET owner_pid = ? WHERE id = ?",
                            (int(dead.stdout), run_id))
    w = open_window(qtbot, tmp_path / "window.ini")
    assert any("marked interrupted" in line for line in w.log.lines("warning"))
    with RunStore() as store:
        assert store.run(run_id).status == "interrupted"
    w.history.refresh()
    w.history.select_ids([run_id])
    _click(qtbot, w.history.plot_button)
    assert w.charts.point_counts()["loss"] == {f"#{run_id} mixed_float16": 5}
    close_window(qtbot, w)


def test_an_unusable_history_leaves_the_app_working(qtbot, tmp_path):
    history_path().write_bytes(b"not a database" * 100)
    w = open_window(qtbot, tmp_path / "window.ini")
    assert any("run history unavailable" in line for line in w.log.lines("warning"))
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, "float32")
    w.setup.epochs.setValue(1)
    _run(qtbot, w)
    assert any("not kept" in line for line in w.log.lines("warning"))
    assert history_path().read_bytes().startswith(b"not a database")
    close_window(qtbot, w)


def test_profile_ops_says_which_ops_made_mixed_slower(qtbot, tmp_path):
    """A conv model under mixed_float16 is slower on this CPU (no fast float16 math): with
    Profile ops ticked, the card's op table names the ops. The profile is the point, not a
    timed verdict: a run config (File > Open run config) sets a step budget that covers
    the traced steps (2 warm-up, 2 settling, then aids/run_profile.py's 5) at a small
    batch, where a float16 convolution step takes a fraction of a second, not one (an
    epoch at batch 64 cost a minute of CPU)."""
    config = tmp_path / "profile.toml"
    RunSpec(dataset="digits", template="cnn", precision="mixed_float16", batch_size=16,
            steps=9).save(config)
    w = open_window(qtbot, tmp_path / "window.ini")
    assert w.files.open_config(str(config))
    assert (w.setup.spec().template, w.setup.spec().steps) == ("cnn", 9)
    w.setup.baseline.setChecked(True)
    w.setup.sizing.setChecked(False)  # the profile is the point, not a timed verdict
    assert w.setup.profile.isEnabled() and not w.setup.profile.isChecked()
    w.setup.profile.setChecked(True)
    _run(qtbot, w)
    card = w.card_view.card
    assert card.profile is not None
    view = w.card_view.op_profile
    assert view.isVisible()
    top = view.rows_text()[0]
    assert "Conv2D" in top[0] and top[3].endswith("x")  # e.g. Conv2DBackpropFilter, 8.6x
    assert view.table.columnCount() == 5  # no Tensor Cores column on a CPU
    assert "casts per step" in view.note.text()
    w.resize(1280, 720)
    w.grab().save(str(tmp_path / "profile.png"))
    w.card_view.resize(640, 900)
    w.card_view.grab().save(str(tmp_path / "card.png"))
    close_window(qtbot, w)
    # the next session's form: settings only, no engine needed
    w = bare_window(qtbot, tmp_path / "window.ini")
    assert w.setup.profile.isChecked()  # remembered with the other comparison fields
