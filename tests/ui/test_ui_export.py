"""File > Export model… and History's Export…: the dialog, the background job, the
verification lines, and what happens to files already there. Real tiny runs on digits."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QFrame, QLabel

from mpstudio.engine.export.formats import FORMATS, unavailable_reason
from mpstudio.engine.export.results import ExportRequest
from mpstudio.engine.history.run_models import model_file
from mpstudio.engine.history.store import RunStore
from mpstudio.ui.export import format_entries
from mpstudio.ui.export.export_dialog import EXISTS_NOTE, ExportDialog

from support.gui_helpers import RUN_TIMEOUT_MS, close_window, select

pytestmark = pytest.mark.slow
EXPORT_TIMEOUT_MS = 120_000


def _train(qtbot, w, precision: str = "mixed_float16") -> None:
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, precision)
    w.setup.epochs.setValue(1)
    w.setup.batch_size.setValue(64)
    w.setup.baseline.setChecked(False)
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
        assert not w.window_actions.export_model.isEnabled()  # not while the run trains
    assert ended.args == ["finished"], w.banner.text()


def _export(qtbot, w, dialog: ExportDialog) -> None:
    """Press Export and wait for the job to end."""
    assert dialog.export_button.isEnabled(), dialog.export_button.toolTip()
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert w.exports.job is not None
    assert dialog.cancel_button.isVisible() and not dialog.export_button.isEnabled()
    qtbot.waitUntil(lambda: w.exports.job is None, timeout=EXPORT_TIMEOUT_MS)


def _tick_only(dialog: ExportDialog, ids: list[str]) -> None:
    for fmt_id, check in dialog.checks.items():
        check.setChecked(fmt_id in ids)


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if "partial" in p.name or "staging" in p.name]


def _result_rows(qtbot, dialog: ExportDialog) -> list[QFrame]:
    """The result rows as laid out on screen, top to bottom."""
    qtbot.wait(50)  # the layout settles and the last export's rows are deleted
    rows = [f for f in dialog.findChildren(QFrame) if f.objectName().startswith("result-")]
    return sorted(rows, key=lambda r: r.mapTo(dialog, QPoint(0, 0)).y())


def _out_of_view(rows: list[QFrame]) -> list[str]:
    """The rows a user would have to scroll to (or could not see at all)."""
    return [r.objectName() for r in rows
            if not r.isVisible() or r.visibleRegion().boundingRect() != r.rect()]


def _banner(dialog: ExportDialog) -> QLabel:
    banner = dialog.findChild(QLabel, "banner")
    assert banner is not None and banner.isVisible(), "no summary banner above the results"
    # Read as easily as the rest: not the small grey of the status line.
    assert banner.font().pointSizeF() >= dialog.font().pointSizeF()
    return banner


def _back_to_form(qtbot, dialog: ExportDialog) -> None:
    if dialog.back_button.isVisible():
        qtbot.mouseClick(dialog.back_button, Qt.MouseButton.LeftButton)
    assert dialog.export_button.isVisible() and dialog.name_edit.isVisible()


def test_the_dialog_turns_off_a_format_whose_dependency_is_missing(qtbot, tmp_path,
                                                                    monkeypatch):
    def fake(fmt):  # as if tf2onnx were not installed
        if fmt.id != "onnx":
            return None
        return f"{fmt.label} needs tf2onnx, which is not installed: {fmt.install_hint}"

    monkeypatch.setattr(format_entries, "unavailable_reason", fake)
    dialog = ExportDialog(tmp_path)
    qtbot.addWidget(dialog)
    dialog.set_source("Run 3 · mlp · mixed_float16 (the run you just trained)",
                      "mlp-mixed_float16-run3")
    dialog.show()
    onnx = dialog.findChild(QCheckBox, "format-onnx")
    assert not onnx.isEnabled() and not onnx.isChecked()
    assert "pip install" in onnx.toolTip() and "tf2onnx" in onnx.toolTip()
    note = dialog.findChild(QLabel, "format-onnx-note")
    assert note.isVisible() and "pip install" in note.text()
    assert [f for f, c in dialog.checks.items() if c.isChecked()] == ["keras"]
    assert "mlp-mixed_float16-run3.keras" in dialog.targets_label.text()
    assert dialog.export_button.isEnabled() and dialog.export_button.isDefault()

    dialog.checks["keras"].setChecked(False)
    assert not dialog.export_button.isEnabled()
    assert "Tick at least one format" in dialog.export_button.toolTip()
    dialog.checks["tflite-float16"].setChecked(True)
    assert dialog.export_button.isEnabled()
    assert "mlp-mixed_float16-run3-float16.tflite" in dialog.targets_label.text()
    dialog.name_edit.setText(" ")
    assert "file name" in dialog.export_button.toolTip() and dialog.hint.isVisible()
    dialog.name_edit.setText("model")
    dialog.ask_folder = lambda: str(tmp_path / "missing")
    qtbot.mouseClick(dialog.browse_button, Qt.MouseButton.LeftButton)
    assert not dialog.export_button.isEnabled()
    assert "does not exist" in dialog.export_button.toolTip()
    dialog.ask_folder = lambda: ""  # cancelled: the folder stays
    qtbot.mouseClick(dialog.browse_button, Qt.MouseButton.LeftButton)
    assert dialog.folder == tmp_path / "missing"


def test_export_the_run_just_trained_to_every_format(qtbot, window, tmp_path):
    w = window
    out = tmp_path / "out"
    out.mkdir()
    assert not w.window_actions.export_model.isEnabled()  # nothing trained yet
    _train(qtbot, w, "mixed_float16")
    assert w.window_actions.export_model.isEnabled()
    w.window_actions.export_model.trigger()
    dialog = w.exports.dialog
    assert dialog.isVisible() and not dialog.isModal()
    assert "mixed_float16" in dialog.heading.text()
    assert "the run you just trained" in dialog.heading.text()
    available = [f.id for f in FORMATS if unavailable_reason(f) is None]
    _tick_only(dialog, available)
    dialog.folder_edit.setText(str(out))
    dialog.name_edit.setText("digits")
    _export(qtbot, w, dialog)

    lines = dialog.result_lines()
    assert len(lines) == len(available), lines
    assert all(line.endswith("· OK") for line in lines), lines
    # Every result is on screen at the size the dialog takes, under a success banner.
    rows = _result_rows(qtbot, dialog)
    assert len(rows) == len(available) and not _out_of_view(rows)
    assert _banner(dialog).property("level") == "success"
    paths = [r.path for r in dialog.requests()]
    assert all(p.exists() for p in paths)
    assert len([x for x in w.log.lines("success") if x.startswith("export: ")]) == len(available)
    assert not dialog.cancel_button.isVisible()
    assert not _leftovers(tmp_path)
    _back_to_form(qtbot, dialog)
    assert dialog.export_button.isEnabled()

    # Cancelled at once: nothing is written.
    dialog.name_edit.setText("cancelled")
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.exports.job is None, timeout=EXPORT_TIMEOUT_MS)
    said = f"{dialog.status.text()} {dialog.findChild(QLabel, 'banner').text()}"
    assert "cancelled" in said.lower()
    assert not list(out.glob("cancelled*")) and not _leftovers(tmp_path)
    _back_to_form(qtbot, dialog)
    dialog.name_edit.setText("digits")

    # Exporting again over the files: asked first; No starts nothing and touches nothing.
    keras_file = out / "digits.keras"
    before = (keras_file.read_bytes(), keras_file.stat().st_mtime_ns)
    asked: list[list[Path]] = []
    dialog.confirm_overwrite = lambda paths: asked.append(paths) or False
    _tick_only(dialog, ["keras"])
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert asked == [[keras_file]] and w.exports.job is None
    assert (keras_file.read_bytes(), keras_file.stat().st_mtime_ns) == before

    # A folder under a regular file: the dialog refuses; forced, the job says why.
    (tmp_path / "afile").write_text("not a folder")
    dialog.folder_edit.setText(str(tmp_path / "afile" / "sub"))
    assert not dialog.export_button.isEnabled()
    assert "does not exist" in dialog.export_button.toolTip()
    target = tmp_path / "afile" / "sub" / "digits.keras"
    assert w.exports.start_export([ExportRequest("keras", target)]) is not None
    qtbot.waitUntil(lambda: w.exports.job is None, timeout=EXPORT_TIMEOUT_MS)
    [line] = dialog.result_lines()
    assert line.startswith("Not exported: "), line
    assert any(x.startswith("export: ") for x in w.log.lines("error"))
    assert not target.exists() and not _leftovers(tmp_path)
    close_window(qtbot, w)


def test_export_a_run_picked_in_history(qtbot, window, tmp_path):
    w = window
    _train(qtbot, w, "float32")
    [run_id] = w.history.selected_ids()  # the new run is selected after it ends
    assert w.history.export_button.isEnabled()
    qtbot.mouseClick(w.history.export_button, Qt.MouseButton.LeftButton)
    dialog = w.exports.dialog
    assert dialog.isVisible() and "from History" in dialog.heading.text()
    assert dialog.name_edit.text() == f"mlp-float32-run{run_id}"
    _tick_only(dialog, ["keras", "tflite-float32"])
    dialog.folder_edit.setText(str(tmp_path))
    _export(qtbot, w, dialog)
    lines = dialog.result_lines()
    assert len(lines) == 2 and all(line.endswith("· OK") for line in lines), lines
    with RunStore() as store:
        kept = store.run(run_id, metrics=False).model_paths
    assert set(kept) == {str(r.path) for r in dialog.requests()}

    # A run that kept no model says so instead of opening an export that cannot work.
    model_file(run_id).unlink()
    qtbot.mouseClick(w.history.export_button, Qt.MouseButton.LeftButton)
    assert f"Run {run_id} kept no trained model" in w.banner.text()
    close_window(qtbot, w)


def test_a_failed_check_heads_the_results_and_every_line_is_on_screen(qtbot, window,
                                                                      tmp_path):
    """Every available format, one of which cannot be written: a folder stands where
    its file goes (or a file where its folder goes), which the export refuses to
    replace. The failure is the first thing the results show, under an error banner;
    the other files then read as written, not as files that were already there."""
    w = window
    _train(qtbot, w, "float32")
    w.window_actions.export_model.trigger()
    dialog = w.exports.dialog
    available = [f for f in FORMATS if unavailable_reason(f) is None]
    _tick_only(dialog, [f.id for f in available])
    dialog.folder_edit.setText(str(tmp_path))
    dialog.name_edit.setText("digits")
    blocked = dialog.requests()[-1]  # the last row: furthest from view in a list in order
    if available[-1].is_folder:
        blocked.path.write_text("in the way")
    else:
        blocked.path.mkdir()
    asked: list[list[Path]] = []
    dialog.confirm_overwrite = lambda paths: asked.append(paths) or True
    _export(qtbot, w, dialog)
    assert asked == [[blocked.path]]

    rows = _result_rows(qtbot, dialog)
    assert len(rows) == len(available)
    assert not _out_of_view(rows), "result lines only seen by scrolling"
    assert dialog.height() <= dialog.screen().availableGeometry().height()
    first = rows[0]
    assert first.objectName() == f"result-{blocked.format_id}", [r.objectName() for r in rows]
    assert first.findChild(QLabel, "resultMark").text() == "FAILED"
    detail = first.findChild(QLabel, "resultDetail")
    assert detail.text().startswith("Not exported: ") and detail.property("role") == "error"
    banner = _banner(dialog)
    assert banner.property("level") == "error", banner.text()
    assert available[-1].label in banner.text() and "failed" in banner.text()
    assert banner.mapTo(dialog, QPoint(0, 0)).y() < first.mapTo(dialog, QPoint(0, 0)).y()
    assert sum(line.endswith("· OK") for line in dialog.result_lines()) == len(available) - 1

    # Back on the form, the files just written say so, and what stood in the way too.
    _back_to_form(qtbot, dialog)
    targets = dialog.targets_label.text().splitlines()[1:]
    assert len(targets) == len(available), targets
    for request, line in zip(dialog.requests(), targets, strict=True):
        assert line.startswith(request.path.name), (request, line)
        if request == blocked:
            assert "is in the way" in line, line
        else:
            assert "written just now" in line and EXISTS_NOTE not in line, line
    close_window(qtbot, w)
