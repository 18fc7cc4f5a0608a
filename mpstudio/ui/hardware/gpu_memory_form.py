"""The GPU memory settings (growth, or a per-GPU limit) as a small form that saves
to the settings file, like ``mpstudio hw --memory-growth/--memory-limit``.

Saving is a small TOML write, so it happens on the GUI thread; applying the
settings needs TensorFlow, so the form only emits ``saved`` and the main window
applies them in its worker, then reports back through ``show_apply_result``.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.app_settings import (
    GpuMemorySettings,
    InvalidSettings,
    SettingsError,
    load_settings,
    save_gpu_memory,
    settings_path,
)
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.said import render
from mpstudio.ui.themed import set_role, themed_sheet
from mpstudio.ui.widgets.panel_labels import heading, secondary, wrapped_label

MAX_LIMIT_MB = 1 << 20  # 1 TiB: above any GPU sold
# status -> (the sentence around the engine's message, the verdict whose colour it takes)
_APPLY_LOOK: dict[str, tuple[str, Verdict | None]] = {
    "applied": (QT_TRANSLATE_NOOP("GpuMemoryForm", "In effect: {message}"),
                Verdict.RECOMMENDED),
    "unchanged": (QT_TRANSLATE_NOOP("GpuMemoryForm", "In effect: {message}"), None),
    "no_gpu": ("{message}", Verdict.NO_GAIN),
    "needs_restart": (QT_TRANSLATE_NOOP("GpuMemoryForm", "Takes effect at next launch: "
                                                         "{message}"),
                      Verdict.SLOWER),
    "failed": (QT_TRANSLATE_NOOP("GpuMemoryForm", "Not applied: {message}"),
               Verdict.UNSUPPORTED),
}
# The apply status as the tip names it (the status itself is a key).
_STATUS_TEXT = {"applied": QT_TRANSLATE_NOOP("GpuMemoryForm", "applied"),
                "unchanged": QT_TRANSLATE_NOOP("GpuMemoryForm", "unchanged"),
                "no_gpu": QT_TRANSLATE_NOOP("GpuMemoryForm", "no GPU"),
                "needs_restart": QT_TRANSLATE_NOOP("GpuMemoryForm", "needs a restart"),
                "failed": QT_TRANSLATE_NOOP("GpuMemoryForm", "failed")}


class GpuMemoryForm(QWidget):
    saved = Signal(object)  # the GpuMemorySettings just written to the file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._saved: GpuMemorySettings | None = None  # None: the file could not be read
        self.server = ""  # the engine's machine, when not this computer
        self.growth_box = QCheckBox(QCoreApplication.translate(
            "GpuMemoryForm", "Grow GPU memory as needed"))
        self.growth_box.setToolTip(QCoreApplication.translate(
            "GpuMemoryForm",
            "Allocate GPU memory as the run needs it instead of reserving most of it at "
            "start. Exclusive with a limit: TensorFlow refuses both on one GPU."))
        self.limit_spin = QSpinBox()
        self.limit_spin.setRange(0, MAX_LIMIT_MB)
        self.limit_spin.setSingleStep(512)
        self.limit_spin.setSuffix(" MiB")
        self.limit_spin.setSpecialValueText(QCoreApplication.translate("GpuMemoryForm",
                                                                       "no limit"))
        self.limit_spin.setToolTip(QCoreApplication.translate(
            "GpuMemoryForm", "Cap each GPU at this much memory (64 MiB or more); "
            "exclusive with growth"))
        self.save_button = QPushButton(QCoreApplication.translate("GpuMemoryForm", "Save"))
        self.file_label = wrapped_label()  # what is saved, or why the file is unusable
        self.apply_label = wrapped_label()  # what the main window's apply said
        self.path_label = secondary(wrapped_label())

        limit_row = QHBoxLayout()
        limit_row.addWidget(QLabel(QCoreApplication.translate("GpuMemoryForm",
                                                              "Limit per GPU")))
        limit_row.addWidget(self.limit_spin, 1)
        limit_row.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading(QCoreApplication.translate("GpuMemoryForm", "GPU memory")))
        layout.addWidget(secondary(wrapped_label(QCoreApplication.translate(
            "GpuMemoryForm",
            "TensorFlow reserves most of each GPU's memory when it starts. Growth or a "
            "limit leaves room for other programs; TensorFlow cannot do both on one GPU."),
            selectable=False)))
        layout.addWidget(self.growth_box)
        layout.addLayout(limit_row)
        layout.addWidget(self.file_label)
        layout.addWidget(self.apply_label)
        layout.addWidget(self.path_label)
        self.apply_label.hide()

        self.growth_box.toggled.connect(self._growth_toggled)
        self.limit_spin.valueChanged.connect(self._limit_changed)
        self.save_button.clicked.connect(self.save)
        self.reload()

    # ------------------------------------------------------------------ state
    def settings(self) -> GpuMemorySettings:
        """What the form says now (not necessarily saved)."""
        limit = self.limit_spin.value()
        return GpuMemorySettings(growth=self.growth_box.isChecked(), limit_mb=limit or None)

    def set_server(self, host: str) -> None:
        """The engine is on ``host`` ("": this computer): the settings are that machine's
        (its engine applies and saves them; what is in effect shows as applied)."""
        self.server = host
        if host:
            self._saved = None
            self._show_file("")
            self.apply_label.hide()
            self.path_label.setText(QCoreApplication.translate(
                "GpuMemoryForm", "Saved on {host}, in its settings file").format(host=host))
            self._update_save_button()
        else:
            self.reload()

    def reload(self) -> None:
        """Show what the settings file holds; a broken file is named, not fatal."""
        if self.server:
            return  # the server's file: what its engine applied shows in apply_label
        self.path_label.setText(QCoreApplication.translate("GpuMemoryForm", "Saved in {path}")
                                .format(path=settings_path()))
        try:
            memory: GpuMemorySettings | None = load_settings().gpu_memory
        except InvalidSettings as exc:  # parses, wrong values: saving replaces them
            memory = None
            self._show_file(QCoreApplication.translate(
                "GpuMemoryForm", "{error}. Saving replaces these values.").format(
                    error=exc.shown()), error=True)
        except SettingsError as exc:  # does not parse: the engine will not overwrite it
            memory = None
            self._show_file(exc.shown(), error=True)
        self._saved = memory
        self._set_form(memory or GpuMemorySettings())
        if memory is not None:
            self._show_file(QCoreApplication.translate("GpuMemoryForm", "Saved setting: {what}.")
                            .format(what=render(memory.description())))
        self._update_save_button()

    def save(self) -> bool:
        """Write the form's values (keeping the file's other tables); emits ``saved``."""
        memory = self.settings()
        problems = memory.problem_messages()
        if problems:
            self._show_file(QCoreApplication.translate("GpuMemoryForm", "; ").join(
                render(p) for p in problems), error=True)
            return False
        if self.server:  # its engine saves them there (ApplyMemoryRequest.save)
            self.path_label.setText(QCoreApplication.translate(
                "GpuMemoryForm", "Saved on {host}, in its settings file").format(
                    host=self.server))
        else:
            try:
                path = save_gpu_memory(memory)
            except SettingsError as exc:
                self._show_file(exc.shown(), error=True)
                return False
            self.path_label.setText(QCoreApplication.translate(
                "GpuMemoryForm", "Saved in {path}").format(path=path))
        self._saved = memory
        self._show_file(QCoreApplication.translate(
            "GpuMemoryForm", "Saved setting: {what}. New runs use it.").format(
                what=render(memory.description())))
        self.apply_label.hide()  # the main window reports the new apply result
        self._update_save_button()
        self.saved.emit(memory)
        return True

    def show_apply_result(self, status: str, message: object) -> None:
        """``message``: the engine's (a string, or a stored message it renders)."""
        sentence, verdict = _APPLY_LOOK.get(status, ("{message}", None))
        self.apply_label.setText(QCoreApplication.translate("GpuMemoryForm", sentence).format(
            message=render(message)))
        themed_sheet(self.apply_label,
                     lambda c: f"color: {c.verdict[verdict]};" if verdict else "")
        self.apply_label.setToolTip(QCoreApplication.translate(
            "GpuMemoryForm", "status: {status}").format(status=QCoreApplication.translate(
                "GpuMemoryForm", _STATUS_TEXT.get(status, status))))
        self.apply_label.show()

    # -------------------------------------------------------------- internals
    def _set_form(self, memory: GpuMemorySettings) -> None:
        self.growth_box.setChecked(memory.growth)
        self.limit_spin.setValue(memory.limit_mb or 0)

    def _growth_toggled(self, on: bool) -> None:
        if on:  # growth replaces a limit, as `mpstudio hw --memory-growth on` does
            self.limit_spin.setValue(0)
        self._update_save_button()

    def _limit_changed(self, value: int) -> None:
        if value:
            self.growth_box.setChecked(False)
        self._update_save_button()

    def _update_save_button(self) -> None:
        self.save_button.setEnabled(self._saved is None or self.settings() != self._saved)

    def _show_file(self, text: str, error: bool = False) -> None:
        self.file_label.setText(text)
        set_role(self.file_label, "error" if error else "")
