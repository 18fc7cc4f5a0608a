"""The hardware panel: what this machine can do for mixed precision.

The panel never runs the check (that imports TensorFlow and takes seconds): it
asks for one through its signals, and the main window runs
``run_hardware_check`` in a worker and hands the result to ``show_check``.
A click makes the panel busy at once (no double requests); ``show_check``,
``show_error`` or ``set_busy(False)`` end that.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QObject,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.ui.hardware.check_view import CheckView
from mpstudio.ui.hardware.device_card import DeviceCard
from mpstudio.ui.hardware.gpu_memory_form import GpuMemoryForm
from mpstudio.ui.themed import error_box
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

# Shown with QCoreApplication.translate("HardwarePanel", ...).
RUN_ACTIVE_TIP = QT_TRANSLATE_NOOP(
    "HardwarePanel", "Not while a training run is going: measuring now would distort both "
    "the measurement and the run")
CHECK_TIP = QT_TRANSLATE_NOOP("HardwarePanel", "Detect the devices again (quick; no measurement)")
MEASURE_TIP = QT_TRANSLATE_NOOP(
    "HardwarePanel", "Time matmul and conv in float32, float16 and bfloat16 on every device, "
    "then the setup's model under each precision on this machine (about 20-30 s); the "
    "verdicts then follow what was measured")


def tr(text: str) -> str:
    """A HardwarePanel string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("HardwarePanel", text)


class _DownScrollArea(QScrollArea):
    """Scrolls down only, so it is never narrower than its content needs (the cards'
    words are longer in some languages than in others)."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        content = self.widget()
        if content is not None:
            need = (content.minimumSizeHint().width() + 2 * self.frameWidth()
                    + self.verticalScrollBar().sizeHint().width())
            hint.setWidth(max(hint.width(), need))
        return hint

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # the content's needs changed: so did this minimum
        return super().eventFilter(watched, event)


class HardwarePanel(QWidget):
    check_requested = Signal()
    measure_requested = Signal(float)  # seconds timed per case
    stop_requested = Signal()
    memory_settings_changed = Signal(object)  # the GpuMemorySettings just saved

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._check: HardwareCheck | None = None
        self._view: CheckView | None = None
        self._busy = False  # a check or measurement is running
        self._measuring = False  # ... and it is a measurement: Stop applies
        self._stopping = False
        self._waiting = False  # TensorFlow still loading: nothing can run yet
        self._run_active = False

        self.check_button = QPushButton(QCoreApplication.translate("HardwarePanel",
                                                                   "Check again"))
        self.measure_button = QPushButton(QCoreApplication.translate("HardwarePanel",
                                                                     "Measure"))
        self.seconds_spin = QDoubleSpinBox()
        self.seconds_spin.setRange(0.05, 10.0)  # what `mpstudio hw --seconds` accepts
        self.seconds_spin.setSingleStep(0.25)
        self.seconds_spin.setDecimals(2)
        self.seconds_spin.setValue(0.5)
        self.seconds_spin.setSuffix(QCoreApplication.translate("HardwarePanel", " s/case"))
        self.seconds_spin.setToolTip(QCoreApplication.translate(
            "HardwarePanel", "Seconds timed for each kernel and precision (the setup's model: "
            "four times as long a precision): longer is steadier, 0.5 s is usually enough"))
        self.stop_button = QPushButton(QCoreApplication.translate("HardwarePanel", "Stop"))
        self.stop_button.setToolTip(QCoreApplication.translate(
            "HardwarePanel", "End the measurement now; verdicts use what was measured"))
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(8)
        self.status_label = secondary(wrapped_label(selectable=False))
        self.error_label = wrapped_label()
        self.error_label.setObjectName("error")
        error_box(self.error_label)
        self.placeholder = wrapped_label(QCoreApplication.translate(
            "HardwarePanel", "No hardware check yet."), selectable=False)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setContentsMargins(0, 24, 0, 24)
        self.memory_form = GpuMemoryForm()

        buttons = QHBoxLayout()
        buttons.addWidget(self.check_button)
        buttons.addStretch(1)
        buttons.addWidget(self.measure_button)
        buttons.addWidget(self.seconds_spin)
        buttons.addWidget(self.stop_button)
        top = QVBoxLayout()
        top.setContentsMargins(10, 10, 10, 4)
        top.addLayout(buttons)
        top.addWidget(self.progress_bar)
        top.addWidget(self.status_label)
        top.addWidget(self.error_label)

        content = QWidget()
        self._content_layout = QVBoxLayout(content)
        self._content_layout.setContentsMargins(10, 6, 10, 10)
        self._content_layout.setSpacing(12)
        self._content_layout.addWidget(self.placeholder)
        self._content_layout.addWidget(self.memory_form)
        self._content_layout.addStretch(1)
        scroll = _DownScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        self.scroll_area = scroll

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(scroll, 1)

        self.check_button.clicked.connect(self._check_clicked)
        self.measure_button.clicked.connect(self._measure_clicked)
        self.stop_button.clicked.connect(self._stop_clicked)
        self.memory_form.saved.connect(self.memory_settings_changed)
        self.error_label.hide()
        self._show_status("")
        self._update_buttons()

    # ------------------------------------------------------------ public API
    @property
    def check(self) -> HardwareCheck | None:
        return self._check

    def device_cards(self) -> list[DeviceCard]:
        return list(self._view.cards) if self._view else []

    @property
    def view(self) -> CheckView | None:
        """What the last check shows (None before the first)."""
        return self._view

    def show_waiting(self, text: str) -> None:
        """Before TensorFlow is ready: nothing can run, a busy bar says why."""
        self._waiting = True
        if self._check is None:
            self.placeholder.setText(QCoreApplication.translate(
                "HardwarePanel", "The devices and the precision advice appear here once "
                "TensorFlow has loaded."))
        self._show_status(text, busy=True)
        self._update_buttons()

    def show_check(self, check: HardwareCheck) -> None:
        self._check = check
        if self._view is not None:
            self._view.deleteLater()
        self._view = CheckView(check)
        self._content_layout.insertWidget(0, self._view)
        self.placeholder.hide()
        self.error_label.hide()
        self.memory_form.show_apply_result(check.memory.status, check.memory.message)
        self._idle()

    def show_error(self, message: str) -> None:
        """The check failed: say why and let the user retry."""
        self.error_label.setText(QCoreApplication.translate(
            "HardwarePanel", "The hardware check failed: {message}").format(message=message))
        self.error_label.show()
        if self._check is None:
            self.placeholder.setText(QCoreApplication.translate(
                "HardwarePanel", "No hardware check yet: press Check again to retry."))
        self._idle()

    def set_busy(self, busy: bool, text: str = "") -> None:
        if not busy:
            self._idle()
            return
        self._busy = True
        self._show_status(text or (
            QCoreApplication.translate("HardwarePanel", "Measuring…") if self._measuring
            else QCoreApplication.translate("HardwarePanel", "Checking…")), busy=True)
        self._update_buttons()

    def set_progress(self, done: int, total: int, text: str) -> None:
        """Micro-benchmark progress; ``text`` is the case, e.g. "GPU:0 conv float16"."""
        self._busy = self._measuring = True  # only a measurement reports progress
        what = (QCoreApplication.translate("HardwarePanel", "finishing") if text == "done"
                else QCoreApplication.translate("HardwarePanel", "Measuring {case}").format(
                    case=text))
        if not self._stopping:  # keep saying "Stopping…" until the result arrives
            self._show_status(QCoreApplication.translate(
                "HardwarePanel", "{what} · {done} of {total}").format(
                    what=what, done=done, total=total) if total else what)
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(min(done, total))
        self._update_buttons()

    def set_run_active(self, active: bool) -> None:
        self._run_active = active
        self._update_buttons()

    def show_memory_result(self, status: str, message: str) -> None:
        self.memory_form.show_apply_result(status, message)

    # ------------------------------------------------------------- internals
    def _check_clicked(self) -> None:
        self.error_label.hide()
        self.set_busy(True, QCoreApplication.translate("HardwarePanel",
                                                       "Checking the hardware…"))
        self.check_requested.emit()

    def _measure_clicked(self) -> None:
        self.error_label.hide()
        self._measuring = True
        self.set_busy(True, QCoreApplication.translate("HardwarePanel",
                                                       "Starting the measurement…"))
        self.measure_requested.emit(self.seconds_spin.value())

    def _stop_clicked(self) -> None:
        self._stopping = True
        self._show_status(QCoreApplication.translate("HardwarePanel", "Stopping…"), busy=True)
        self._update_buttons()
        self.stop_requested.emit()

    def _idle(self) -> None:
        self._busy = self._measuring = self._stopping = self._waiting = False
        self._show_status("")
        self._update_buttons()

    def _show_status(self, text: str, busy: bool = False) -> None:
        if busy:
            self.progress_bar.setRange(0, 0)  # no numbers yet: a moving busy bar
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))
        self.progress_bar.setVisible(bool(text))

    def _update_buttons(self) -> None:
        free = not (self._busy or self._waiting or self._run_active)
        for widget in (self.check_button, self.measure_button, self.seconds_spin):
            widget.setEnabled(free)
        self.check_button.setToolTip(tr(RUN_ACTIVE_TIP if self._run_active else CHECK_TIP))
        self.measure_button.setToolTip(tr(RUN_ACTIVE_TIP if self._run_active else MEASURE_TIP))
        self.stop_button.setEnabled(self._busy and self._measuring and not self._stopping)
