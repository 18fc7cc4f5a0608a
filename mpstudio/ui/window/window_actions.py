"""The window's actions and menus, with the shortcuts desktop users expect."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu


@dataclass
class WindowActions:
    import_dataset: QAction
    open_config: QAction
    save_config: QAction
    export_model: QAction
    export_report: QAction
    save_charts: QAction
    quit: QAction
    start: QAction
    stop: QAction
    hardware_check: QAction
    measure: QAction
    check_training: QAction
    open_tensorboard: QAction
    help_page: QAction
    about: QAction


def _action(window: QMainWindow, text: str, name: str, *keys: QKeySequence | str,
            tip: str = "") -> QAction:
    action = QAction(text, window)
    action.setObjectName(name)
    if keys:
        action.setShortcuts([QKeySequence(k) for k in keys])
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    return action


def build_actions(window: QMainWindow) -> WindowActions:
    std = QKeySequence.StandardKey
    actions = WindowActions(
        import_dataset=_action(window, "&Import dataset…", "importDataset", "Ctrl+I",
                               tip="Train on an .npz or .csv file or a folder of images"),
        open_config=_action(window, "&Open run config…", "openConfig", std.Open,
                            tip="Load a run spec saved as TOML (also `mpstudio train --config`)"),
        save_config=_action(window, "&Save run config…", "saveConfig", std.Save,
                            tip="Save this setup as a TOML run spec"),
        export_model=_action(window, "&Export model…", "exportModel", "Ctrl+E",
                             tip="Save the model the last run trained"),
        export_report=_action(window, "Export &report…", "exportReport", "Ctrl+Shift+E",
                              tip="Save the comparison card, verdict and charts as an HTML "
                              "page, and the metrics as CSV"),
        save_charts=_action(window, "Save &charts…", "saveCharts", "Ctrl+Shift+S",
                            tip="Save the four charts as PNG or SVG"),
        quit=_action(window, "&Quit", "quit", std.Quit),
        start=_action(window, "&Start", "startRun", "Ctrl+R", "F5",
                      tip="Train with this setup"),
        stop=_action(window, "S&top", "stopRun", "Shift+F5", "Ctrl+.",
                     tip="Stop the run before its next batch (then, if it goes on, Stop now)"),
        hardware_check=_action(window, "&Hardware check", "hardwareCheck", "Ctrl+Shift+H",
                               tip="Detect the devices and what each precision does on them"),
        measure=_action(window, "&Measure precisions", "measure", "Ctrl+Shift+M",
                        tip="Time float32, float16 and bfloat16 kernels on this machine"),
        check_training=_action(window, "Chec&k training on this machine…", "checkTraining",
                               tip="A few real training steps per template and precision, "
                               "the build, driver, TF32 and timing, as a pass/warn/fail "
                               "report (also `mpstudio doctor`)"),
        open_tensorboard=_action(window, "Open in Tensor&Board", "openTensorBoard",
                                 "Ctrl+Shift+T", tip="Show the TensorBoard logs of the run "
                                 "selected in History (or the last run) in the browser"),
        help_page=_action(window, "What &mixed precision does", "helpPage", std.HelpContents),
        about=_action(window, "&About mpstudio", "about"),
    )
    bar = window.menuBar()
    file_menu: QMenu = bar.addMenu("&File")
    for item in (actions.import_dataset, None, actions.open_config, actions.save_config, None,
                 actions.export_model, actions.export_report, actions.save_charts, None,
                 actions.quit):
        file_menu.addSeparator() if item is None else file_menu.addAction(item)
    run_menu = bar.addMenu("&Run")
    for item in (actions.start, actions.stop, None, actions.hardware_check, actions.measure,
                 actions.check_training, None, actions.open_tensorboard):
        run_menu.addSeparator() if item is None else run_menu.addAction(item)
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(actions.help_page)
    help_menu.addAction(actions.about)
    return actions
