"""A user's click-through of the whole window, as a script: its own process, so what it
imported can be read from ``sys.modules`` at the end (run by
tests/ui/test_gui_without_tensorflow.py). Prints one JSON line with what it saw."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # devtools/ (not shipped)

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from devtools.gui_driving import select, wait_until
from mpstudio.ui.window.main_window import MainWindow

FORBIDDEN = ("tensorflow", "keras", "tf_keras", "tensorboard", "jax", "ml_dtypes")


def main(folder: str) -> int:
    app = QApplication([])
    w = MainWindow(QSettings(str(Path(folder) / "window.ini"), QSettings.Format.IniFormat))
    w.confirm_close = lambda: True
    w.show()
    w.start_background()
    wait_until(app, lambda: w.hardware_jobs.check is not None and w.setup.run_button.isEnabled(),
         180, "the engine and the hardware check")
    wait_until(app, lambda: w.setup.layers.summary is not None, 60, "the layer table")

    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(1)
    w.setup.batch_size.setValue(64)
    w.setup.baseline.setChecked(True)
    w.setup.sizing.setChecked(False)  # a short comparison: its speed is not the point
    ended: list[str] = []
    w.run_ended.connect(ended.append)
    w.setup.run_button.click()
    wait_until(app, lambda: bool(ended), 300, "the comparison")

    w.history_actions.plot_run(w.last_outcome.stored[0].id)
    ids = [run.id for run in w.last_outcome.stored]
    w.history_actions.compare_runs(ids[0], ids[1])

    w.window_actions.export_model.trigger()
    dialog = w.exports.dialog
    dialog.folder_edit.setText(folder)
    dialog.name_edit.setText("model")
    w.exports.start_export(dialog.requests())
    wait_until(app, lambda: w.exports.job is None, 300, "the export")

    w.hardware_jobs.run_check(measure=True, seconds=0.05)
    wait_until(app, lambda: not w.state.measuring, 300, "the measurement")

    w.close()
    wait_until(app, lambda: w._closed, 60, "the window to close")
    loaded = sorted({name.split(".")[0] for name in sys.modules} & set(FORBIDDEN))
    print(json.dumps({"ended": ended, "exported": sorted(p.name for p in Path(folder).iterdir()
                                                         if p.name.startswith("model")),
                      "card": w.card_view.card is not None, "loaded": loaded,
                      "measured": bool(w.hardware_jobs.check.measurements)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
