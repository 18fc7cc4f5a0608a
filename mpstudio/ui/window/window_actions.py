"""The window's actions and menus, with the shortcuts desktop users expect, in the
user's language (the shortcuts stay as they are)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
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
    find_batch: QAction
    open_tensorboard: QAction
    help_page: QAction
    open_log_folder: QAction
    about: QAction


def _action(window: QMainWindow, text: str, name: str,
            *keys: QKeySequence | QKeySequence.StandardKey | str,
            tip: str = "") -> QAction:
    action = QAction(text, window)
    action.setObjectName(name)
    if keys:
        action.setShortcuts([QKeySequence(k) for k in keys])
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    return action


def stop_text(stop_now: bool) -> str:
    """Stop's menu text: Stop now once a stop has waited too long (``controls``)."""
    if stop_now:
        return QCoreApplication.translate("WindowActions", "Stop &now")
    return QCoreApplication.translate("WindowActions", "S&top")


def build_actions(window: QMainWindow) -> WindowActions:
    std = QKeySequence.StandardKey
    # QCoreApplication.translate spelled out each time: pyside6-lupdate finds only that.
    actions = WindowActions(
        import_dataset=_action(
            window, QCoreApplication.translate("WindowActions", "&Import dataset…"),
            "importDataset", "Ctrl+I", tip=QCoreApplication.translate(
                "WindowActions", "Train on an .npz or .csv file or a folder of images")),
        open_config=_action(
            window, QCoreApplication.translate("WindowActions", "&Open run config…"),
            "openConfig", std.Open, tip=QCoreApplication.translate(
                "WindowActions",
                "Load a run spec saved as TOML (also `mpstudio train --config`)")),
        save_config=_action(
            window, QCoreApplication.translate("WindowActions", "&Save run config…"),
            "saveConfig", std.Save, tip=QCoreApplication.translate(
                "WindowActions", "Save this setup as a TOML run spec")),
        export_model=_action(
            window, QCoreApplication.translate("WindowActions", "&Export model…"),
            "exportModel", "Ctrl+E", tip=QCoreApplication.translate(
                "WindowActions", "Save the model the last run trained")),
        export_report=_action(
            window, QCoreApplication.translate("WindowActions", "Export &report…"),
            "exportReport", "Ctrl+Shift+E", tip=QCoreApplication.translate(
                "WindowActions", "Save the comparison card, verdict and charts as an HTML "
                "page, and the metrics as CSV")),
        save_charts=_action(
            window, QCoreApplication.translate("WindowActions", "Save &charts…"),
            "saveCharts", "Ctrl+Shift+S", tip=QCoreApplication.translate(
                "WindowActions", "Save the charts as PNG or SVG")),
        quit=_action(window, QCoreApplication.translate("WindowActions", "&Quit"), "quit",
                     std.Quit),
        start=_action(
            window, QCoreApplication.translate("WindowActions", "&Start"), "startRun",
            "Ctrl+R", "F5", tip=QCoreApplication.translate(
                "WindowActions", "Train with this setup")),
        stop=_action(
            window, stop_text(False), "stopRun", "Shift+F5", "Ctrl+.",
            tip=QCoreApplication.translate(
                "WindowActions",
                "Stop the run before its next batch (then, if it goes on, Stop now)")),
        hardware_check=_action(
            window, QCoreApplication.translate("WindowActions", "&Hardware check"),
            "hardwareCheck", "Ctrl+Shift+H", tip=QCoreApplication.translate(
                "WindowActions", "Detect the devices and what each precision does on them")),
        measure=_action(
            window, QCoreApplication.translate("WindowActions", "&Measure precisions"),
            "measure", "Ctrl+Shift+M", tip=QCoreApplication.translate(
                "WindowActions", "Time float32, float16 and bfloat16 kernels on this machine")),
        check_training=_action(
            window,
            QCoreApplication.translate("WindowActions", "Chec&k training on this machine…"),
            "checkTraining", tip=QCoreApplication.translate(
                "WindowActions", "A few real training steps per template and precision, "
                "the build, driver, TF32 and timing, as a pass/warn/fail report "
                "(also `mpstudio doctor`)")),
        find_batch=_action(
            window, QCoreApplication.translate("WindowActions", "&Find the largest batch…"),
            "findBatch", tip=QCoreApplication.translate(
                "WindowActions", "The largest batch float32 and mixed precision each train at "
                "without running out of memory, then compare them there (also `mpstudio "
                "find-batch`)")),
        open_tensorboard=_action(
            window, QCoreApplication.translate("WindowActions", "Open in Tensor&Board"),
            "openTensorBoard", "Ctrl+Shift+T", tip=QCoreApplication.translate(
                "WindowActions", "Show the TensorBoard logs of the run selected in History "
                "(or the last run) in the browser")),
        help_page=_action(
            window, QCoreApplication.translate("WindowActions", "What &mixed precision does"),
            "helpPage", std.HelpContents),
        open_log_folder=_action(
            window, QCoreApplication.translate("WindowActions", "Open &log folder"),
            "openLogFolder", tip=QCoreApplication.translate(
                "WindowActions", "Show the folder of mpstudio's log files (window, engine "
                "and command line): what to attach to a bug report")),
        about=_action(window, QCoreApplication.translate("WindowActions", "&About mpstudio"),
                      "about"),
    )
    bar = window.menuBar()
    file_menu: QMenu = bar.addMenu(QCoreApplication.translate("WindowActions", "&File"))
    for item in (actions.import_dataset, None, actions.open_config, actions.save_config, None,
                 actions.export_model, actions.export_report, actions.save_charts, None,
                 actions.quit):
        file_menu.addSeparator() if item is None else file_menu.addAction(item)
    run_menu = bar.addMenu(QCoreApplication.translate("WindowActions", "&Run"))
    for item in (actions.start, actions.stop, None, actions.hardware_check, actions.measure,
                 actions.check_training, actions.find_batch, None,
                 actions.open_tensorboard):
        run_menu.addSeparator() if item is None else run_menu.addAction(item)
    help_menu = bar.addMenu(QCoreApplication.translate("WindowActions", "&Help"))
    for item in (actions.help_page, actions.open_log_folder, None, actions.about):
        help_menu.addSeparator() if item is None else help_menu.addAction(item)
    return actions

