"""The window's work besides training, all off the GUI thread: loading TensorFlow,
the hardware check and measurement, GPU memory settings, the dataset summary and
the model preview. Results land in the panels; failures become readable lines."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from mpstudio.engine.datasets.registry import availability, dataset_entry, is_registered
from mpstudio.engine.distribute.options import strategy_options
from mpstudio.ui import engine_jobs
from mpstudio.ui.dataset_picker import describe_report
from mpstudio.ui.engine_thread import Job
from mpstudio.ui.verdict_marks import verdict_marks

if TYPE_CHECKING:
    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.ui.main_window import MainWindow


class _Progress(QObject):
    """Measurement progress from the engine thread, queued to the GUI thread."""

    changed = Signal(int, int, str)


class BackgroundWork(QObject):
    tensorflow_ready = Signal()
    hardware_checked = Signal(object)  # HardwareCheck

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.tf_ready = False
        self.check: HardwareCheck | None = None
        self._reports: dict[str, DataReport] = {}
        self._progress = _Progress(self)
        self._progress.changed.connect(window.hardware.set_progress)
        self._preview_timer = QTimer(self)  # coalesces quick changes into one preview
        self._preview_timer.setObjectName("previewDebounce")
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(150)
        self._preview_timer.timeout.connect(self._submit_preview)
        window.engine.job_finished.connect(self._finished)
        window.engine.job_failed.connect(self._failed)
        window.data_thread.job_finished.connect(self._finished)
        window.data_thread.job_failed.connect(self._failed)
        hw = window.hardware
        hw.check_requested.connect(lambda: self.run_check(measure=False))
        hw.measure_requested.connect(lambda seconds: self.run_check(True, seconds))
        hw.stop_requested.connect(self.stop_measuring)
        hw.memory_settings_changed.connect(self.apply_memory)
        window.actions.hardware_check.triggered.connect(lambda: self.run_check(measure=False))
        window.actions.measure.triggered.connect(lambda: self.run_check(True, 0.5))
        window.setup.dataset.changed.connect(self.inspect_dataset)
        window.setup.model_inputs_changed.connect(self.request_preview)
        # only the default strategy until the hardware check says what else there is
        window.setup.set_strategy_options(strategy_options(None, os.environ), os.environ)
        hw.show_waiting("Loading TensorFlow…")

    @property
    def measuring(self) -> bool:
        return bool(self.w.engine.pending("hardware"))

    def start(self) -> None:
        self.w.engine.submit(Job("tensorflow", lambda job: engine_jobs.load_tensorflow(),
                                 describe="loading TensorFlow"))
        self.inspect_dataset()

    def stop_timers(self) -> None:
        self._preview_timer.stop()

    def after_run(self) -> None:
        self.request_preview()  # the table showed the run's model; back to the form's

    # ------------------------------------------------------------- hardware
    def run_check(self, measure: bool, seconds: float = 0.5) -> None:
        if not self.tf_ready or self.w.runs.active or self.measuring:
            if not self.measuring:  # the panel went busy on the click: give it back
                self.w.hardware.set_busy(False)
            return
        progress = self._progress.changed.emit
        self.w.engine.submit(Job(
            "hardware",
            lambda job: engine_jobs.hardware_check(
                measure, seconds, progress if measure else None, lambda: job.cancelled),
            describe="the measurement" if measure else "the hardware check",
        ))
        self.w.hardware.set_busy(True, "Measuring…" if measure else "Checking the hardware…")
        if measure:
            self.w.log.add("measuring float32, float16 and bfloat16 kernels "
                           f"({seconds:g} s a case)")
        self.w._update_state()

    def stop_measuring(self) -> None:
        for job in self.w.engine.pending("hardware"):
            job.cancel()

    def apply_memory(self, settings: Any) -> None:
        from mpstudio.engine.hardware.gpu_memory import apply_gpu_memory

        self.w.engine.submit(Job("memory", lambda job: apply_gpu_memory(settings),
                                 describe="applying the GPU memory settings"))

    # ------------------------------------------------------ data and model
    def inspect_dataset(self) -> None:
        dataset = self.w.setup.dataset.dataset()
        picker = self.w.setup.dataset
        if is_registered(dataset) and not availability(dataset).offline:
            entry = dataset_entry(dataset)
            picker.set_summary(f"{entry.description}\n{availability(dataset).detail} "
                               "(with progress, when you click Run)")
            self.request_preview()
            return
        if dataset in self._reports:
            self._show_report(dataset, self._reports[dataset])
            return
        picker.set_summary("reading…")
        options = picker.options()
        job = Job("inspect", lambda job: engine_jobs.inspect_dataset(dataset, options),
                  describe=f"reading {dataset}")
        job.dataset = dataset  # type: ignore[attr-defined]
        self.w.data_thread.submit(job)

    def _show_report(self, dataset: str, report: DataReport) -> None:
        split = self.w.setup.spec().validation_split
        self.w.setup.dataset.set_summary(describe_report(report, split))
        self.request_preview()

    def model_inputs(self) -> tuple[tuple[int, ...], int, float | None] | None:
        """The selected dataset's input shape, class count and the scale the model applies
        to its uint8 images (None: float inputs), when known."""
        dataset = self.w.setup.dataset.dataset()
        if dataset in self._reports:
            report = self._reports[dataset]
            return tuple(report.input_shape), report.num_classes, report.input_scale
        if is_registered(dataset):
            entry = dataset_entry(dataset)
            if entry.input_shape and entry.num_classes:
                return tuple(entry.input_shape), entry.num_classes, entry.input_scale
        return None

    def request_preview(self) -> None:
        if self.w.runs.active:
            return  # the table shows the running model
        self._preview_timer.start()

    def _submit_preview(self) -> None:
        layers = self.w.setup.layers
        if not self.tf_ready:
            layers.show_note("The layer table appears when TensorFlow has loaded.")
            return
        if self.w.runs.active:
            return
        inputs = self.model_inputs()
        if inputs is None:
            layers.show_note("The layer table appears once the data has been read.")
            return
        spec = self.w.setup.spec()
        for job in self.w.engine.pending("preview"):
            job.cancel()  # superseded
        shape, classes, scale = inputs
        job = Job("preview",
                  lambda job: engine_jobs.model_preview(spec.template, shape, classes,
                                                        spec.precision, scale),
                  describe=f"building {spec.template}")
        job.template = spec.template  # type: ignore[attr-defined]
        self.w.engine.submit(job)

    # --------------------------------------------------------- job results
    def _finished(self, job: Job, result: Any) -> None:
        w = self.w
        if job.kind == "tensorflow":
            self.tf_ready = True
            w.versions = result.versions
            w.log.add("TensorFlow " + result.versions["TensorFlow"] + ", Keras "
                      + result.versions["Keras"] + " loaded")
            if result.memory.status in ("applied", "failed", "needs_restart"):
                w.log.add(f"GPU memory: {result.memory.message}",
                          "info" if result.memory.ok else "warning")
            w.status_text.setText("Ready")
            self.tensorflow_ready.emit()
            self.run_check(measure=False)
            self.request_preview()
        elif job.kind == "hardware":
            self._checked(result)
        elif job.kind == "memory":
            w.hardware.show_memory_result(result.status, result.message)
            w.log.add(f"GPU memory: {result.message}", "info" if result.ok else "warning")
        elif job.kind == "inspect":
            self._reports[job.dataset] = result  # type: ignore[attr-defined]
            if w.setup.dataset.dataset() == job.dataset:  # type: ignore[attr-defined]
                self._show_report(job.dataset, result)  # type: ignore[attr-defined]
        elif job.kind == "preview" and not job.cancelled:
            w.setup.layers.show_summary(result, job.template)  # type: ignore[attr-defined]
        self._job_ended()

    def _checked(self, check: HardwareCheck) -> None:
        w = self.w
        self.check = check
        w.hardware.show_check(check)
        advice = check.advice
        w.setup.set_verdicts(verdict_marks(advice, advice.run_device), advice.run_device)
        w.setup.set_strategy_options(strategy_options(check.report, os.environ), os.environ)
        w.device_label.setText(f"device: {advice.run_description or advice.run_device}")
        w.log.add(f"recommended here: {advice.run_policy} on {advice.run_device}: "
                  f"{advice.run_reason}", "note")
        for device in advice.devices:
            for note in device.notes:
                w.log.add(f"{device.device}: {note}", "note")
        if check.stopped:
            w.log.add("measurement stopped: verdicts use the cases that finished", "warning")
        self.hardware_checked.emit(check)

    def _failed(self, job: Job, message: str) -> None:
        w = self.w
        cancelled = message == "cancelled"
        if job.kind == "tensorflow":
            w.status_text.setText("TensorFlow could not load")
            w.hardware.show_error(f"TensorFlow could not load: {message}")
            w.show_banner(f"TensorFlow could not load, so nothing can train: {message}. "
                          "Reinstall it (pip install -e .) and restart mpstudio.", "error")
            w.log.add(message, "error")
        elif job.kind == "hardware" and not cancelled:
            w.hardware.show_error(message)
            w.log.add(message, "error")
        elif job.kind == "hardware":
            w.hardware.set_busy(False)
        elif job.kind == "memory":
            w.hardware.show_memory_result("failed", message)
            w.log.add(f"GPU memory: {message}", "warning")
        elif job.kind == "inspect" and not cancelled:
            if w.setup.dataset.dataset() == job.dataset:  # type: ignore[attr-defined]
                w.setup.dataset.set_summary(message, problem=True)
                w.setup.layers.show_note("No preview: the data could not be read.")
            w.log.add(message, "error")
        elif job.kind == "preview" and not cancelled:
            w.setup.layers.show_note(f"No preview: {message}")
        self._job_ended()

    def _job_ended(self) -> None:
        if not self.measuring:
            self.w.hardware.set_busy(False)
        self.w._update_state()
        self.w.maybe_finish_close()
