"""The Export dialog's results page keeps its rows: Export and the results that come back
show them again with new text, where they were built (and polished) all at once each
time, holding the window's thread 80-110 ms. No engine: outcomes are made here."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtWidgets import QLabel, QWidget

from mpstudio.engine.export.formats import FORMATS, default_path
from mpstudio.engine.export.results import (
    ExportOutcome,
    ExportRequest,
    ExportResult,
    Verification,
)
from mpstudio.ui.export.export_dialog import ExportDialog
from mpstudio.ui.export.export_results_view import OutcomeView


def outcomes(folder: Path, count: int, failing: int | None = None) -> list[ExportOutcome]:
    made = []
    for i, fmt in enumerate(FORMATS[:count]):
        request = ExportRequest(fmt.id, default_path(folder, "model", fmt))
        if i == failing:
            made.append(ExportOutcome(request, None, "a folder of that name is in the way"))
            continue
        check = Verification("LiteRT", 256, "held-out validation examples", 1e-4, 1.0, 0.99)
        made.append(ExportOutcome(request, ExportResult(fmt, request.path, 1000, 4000, check),
                                  notes=[f"note {i}"]))
    return made


def widgets(dialog: ExportDialog) -> set[int]:
    """The dialog's widgets, by their C++ address (a deleted one is gone from it)."""
    return {shiboken6.getCppPointer(w)[0] for w in dialog.findChildren(QWidget)}


def test_results_come_and_go_without_building_or_deleting_a_widget(qtbot, tmp_path):
    dialog = ExportDialog(tmp_path)
    qtbot.addWidget(dialog)
    dialog.set_source("Run 3 · mlp · mixed_float16 (the run you just trained)", "model")
    dialog.show()
    # The rows are built in the background while the user picks formats
    qtbot.waitUntil(lambda: len(dialog.findChildren(OutcomeView)) >= len(FORMATS))
    built = widgets(dialog)

    dialog.set_busy(True)  # Export
    dialog.show_outcomes(outcomes(tmp_path, len(FORMATS)))
    qtbot.wait(50)
    assert widgets(dialog) == built
    assert len(dialog.result_lines()) == len(FORMATS)
    first = list(dialog.results.views)

    dialog.set_busy(True)  # Export again: three formats, the second one fails
    qtbot.wait(50)
    assert widgets(dialog) == built  # the last results' rows were kept, not deleted
    dialog.show_outcomes(outcomes(tmp_path, 3, failing=1))
    qtbot.wait(50)
    assert widgets(dialog) == built
    views = dialog.results.views
    assert [v.objectName() for v in views] == [f"result-{FORMATS[i].id}" for i in (1, 0, 2)]
    assert all(any(v is f for f in first) for v in views)
    failed = views[0]
    assert failed.findChild(QLabel, "resultMark").text() == "FAILED"
    assert failed.detail.property("role") == "error"
    assert failed.detail.text().startswith("Not exported: ")
    assert views[1].detail.property("role") != "error"
    assert all(v.isVisible() for v in views)
    shown = [w for w in dialog.findChildren(QWidget) if w.objectName().startswith("result-")]
    assert len(shown) == 3  # the rows not used this time are not result rows
