"""Compare with float32 as a user does it: tick, run, read the card, restart the app,
find the runs in History, compare two, export the report, re-run one."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from gui_helpers import RUN_TIMEOUT_MS, close_window, open_window, select
from history_fakes import started, step
from PySide6.QtCore import Qt

from mpstudio.engine.comparison.card_text import card_rows
from mpstudio.engine.history.locations import history_path
from mpstudio.engine.history.store import RunStore

pytestmark = pytest.mark.slow


def _run(qtbot, w, expect: str = "finished") -> None:
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == [expect], w.banner.text()


def _click(qtbot, button) -> None:
    assert button.isEnabled(), button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_compare_read_the_card_restart_and_find_it_in_history(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path / "window.ini")
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(1)
    w.setup.batch_size.setValue(64)
    assert w.setup.baseline.text() == "Compare with float32"
    assert not w.setup.trials.isEnabled()  # only with the box ticked
    w.setup.baseline.setChecked(True)
    assert w.setup.trials.isEnabled()
    w.setup.trials.setValue(2)
    _run(qtbot, w)

    # Both sides overlay on every chart, one legend entry a side (trial 2 replaced 1).
    counts = w.charts.point_counts()
    assert set(counts["loss"]) == {"float32 baseline", "mixed_float16"}
    assert all(n > 0 for n in counts["loss"].values())
    assert counts["loss_scale"]["mixed_float16"] > 0
    # The card: both trials a side, the numbers from the history, a verdict.
    card = w.card_view.card
    assert card is not None and card.trials == 2
    assert card.baseline.run_ids == (1, 3) and card.mixed.run_ids == (2, 4)
    # One epoch is too short to time: sized for timing (on by default), and the card
    # says so in its own row.
    assert w.setup.sizing.isChecked() and card.sized and card.verdict.kind != "too_short"
    assert ("training length", "sized by mpstudio") in [
        (name, change) for name, _, _, change in w.card_view.rows_text()]
    assert w.central_tabs.card_open  # the verdict in front, once: no banner repeats it
    assert not w.banner.isVisible()
    assert w.card_view.verdict.text() == card.verdict.sentence
    assert w.card_view.rows_text() == [(r.name, r.baseline, r.mixed, r.change)
                                       for r in card_rows(card)]
    assert w.status_text.text().startswith("Comparison finished: ")
    assert w.window_actions.export_report.isEnabled()
    assert sorted(w.history.selected_ids()) == [1, 2, 3, 4]  # the new runs, selected
    close_window(qtbot, w)

    # A new session finds the runs in History and compares two of them.
    w = open_window(qtbot, tmp_path / "window.ini")
    assert w.setup.with_baseline() and w.setup.trials.value() == 2  # remembered
    assert not w.central_tabs.isTabVisible(1)  # no card yet in a new session
    assert w.history.visible_ids() == [4, 3, 2, 1]
    assert not w.window_actions.export_report.isEnabled()
    w.history.select_ids([1, 2])
    _click(qtbot, w.history.compare_button)
    again = w.card_view.card
    assert again is not None and again.speedup == card.speedup
    assert again.accuracy_delta_pp == card.accuracy_delta_pp
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

    # Plot one run alone, then re-run its spec: a new comparison of two trials a side.
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
    assert w.card_view.card.mixed.run_ids == (6, 8)
    # the form shows what the user had set; the re-run was sized again
    assert (w.setup.spec().epochs, w.setup.spec().steps) == (1, None)
    assert w.setup.sizing.isChecked() and w.card_view.card.sized

    # Deleting the runs on the card clears it.
    w.history.confirm_delete = lambda ids: True
    w.history.select_ids([5, 6, 7, 8])
    _click(qtbot, w.history.delete_button)
    assert w.card_view.card is None and not w.window_actions.export_report.isEnabled()
    with RunStore() as store:
        assert [r.id for r in store.runs()] == [4, 3, 2, 1]
    close_window(qtbot, w)


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
    Profile ops ticked, the card's op table and its verdict name the ops."""
    w = open_window(qtbot, tmp_path / "window.ini")
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "cnn")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(2)
    w.setup.batch_size.setValue(64)
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
    w = open_window(qtbot, tmp_path / "window.ini")
    assert w.setup.profile.isChecked()  # remembered with the other comparison fields
    close_window(qtbot, w)
