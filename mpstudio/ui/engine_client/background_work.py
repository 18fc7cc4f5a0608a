"""The window's work besides training, all in the engine process: the hardware check
and measurement, GPU memory settings, the dataset summary and the model preview.
Results land in the panels; failures become readable lines. Each job is made here,
with its own callbacks connected here."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from mpstudio.engine.datasets.registry import availability, dataset_entry, is_registered
from mpstudio.engine.distribute.options import strategy_options
from mpstudio.engine.hardware.advisor import best_half_policy
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.i18n import _
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.said import render
from mpstudio.engine.service.job_requests import (
    ApplyMemoryRequest,
    HardwareCheckRequest,
    InspectDatasetRequest,
    ModelPreviewRequest,
)
from mpstudio.ui.setup.dataset_picker import describe_report
from mpstudio.ui.setup.verdict_marks import verdict_marks

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
    from mpstudio.engine.service.protocol import EngineReady
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_end import EngineEnd
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.hardware.hardware_panel import HardwarePanel
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.setup.setup_panel import SetupPanel
    from mpstudio.ui.window.notices import Notices
    from mpstudio.ui.window.window_actions import WindowActions


class BackgroundWork(QObject):
    tensorflow_ready = Signal()
    hardware_checked = Signal(object)  # HardwareCheck

    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 setup: SetupPanel, hardware: HardwarePanel, device_label: QLabel,
                 actions: WindowActions, versions: dict[str, str],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine, self.state, self.notices = engine, state, notices
        self.setup, self.hardware, self.device_label = setup, hardware, device_label
        self.versions = versions  # the window's About shows them; TensorFlow's added here
        self.check: HardwareCheck | None = None
        self._first_told = False  # a first launch's comparison was explained
        self._reports: dict[str, DataReport] = {}
        self._hardware_job: EngineJob[HardwareCheck] | None = None
        self._engine_log = ""  # where the engine process's stderr goes, once it is ready
        self._preview_job: EngineJob[ModelSummary] | None = None
        self._preview_timer = QTimer(self)  # coalesces quick changes into one preview
        self._preview_timer.setObjectName("previewDebounce")
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(150)
        self._preview_timer.timeout.connect(self._submit_preview)
        self.engine.starting.connect(self._engine_starting)
        self.engine.ready.connect(self._engine_ready)
        self.engine.load_failed.connect(self._load_failed)
        self.engine.ended.connect(self._engine_ended)
        hw = hardware
        hw.check_requested.connect(lambda: self.run_check(measure=False))
        hw.measure_requested.connect(lambda seconds: self.run_check(True, seconds))
        hw.stop_requested.connect(self.stop_measuring)
        hw.memory_settings_changed.connect(self.apply_memory)
        actions.hardware_check.triggered.connect(lambda: self.run_check(measure=False))
        actions.measure.triggered.connect(lambda: self.run_check(True, 0.5))
        setup.dataset.changed.connect(self.inspect_dataset)
        setup.model_inputs_changed.connect(self.request_preview)
        # the batch and the optimizer change the memory estimate (and, under a mixed
        # policy, the Tensor Core check)
        setup.batch_size.valueChanged.connect(lambda *_: self.request_preview())
        setup.optimizer.currentIndexChanged.connect(lambda *_: self.request_preview())
        # only the default strategy until the hardware check says what else there is
        setup.set_strategy_options(strategy_options(None, os.environ), os.environ)
        hw.show_waiting(QCoreApplication.translate("BackgroundWork", "Loading TensorFlow…"))

    @property
    def tf_ready(self) -> bool:
        return self.state.ready

    @property
    def measuring(self) -> bool:
        return self.state.measuring

    @property
    def engine_log(self) -> str:
        """The engine process's log file ("" until it is ready, or when it writes none):
        where a failed job's traceback is."""
        return self._engine_log

    def start(self) -> None:
        """Start the engine process (it loads TensorFlow first) and read the dataset."""
        self.engine.start()
        self.inspect_dataset()

    def stop_timers(self) -> None:
        self._preview_timer.stop()

    def after_run(self) -> None:
        self.request_preview()  # the table showed the run's model; back to the form's

    # --------------------------------------------------------------- engine
    def _engine_starting(self, note: Any) -> None:
        """The engine says why its start is slow (the driver compiles TensorFlow's
        kernels for this GPU): the status line and the log say it until it is ready."""
        text = render(note)
        self.notices.status(text)
        self.notices.log(text, "note")
        if self.check is None:  # the hardware panel still waits for its first check
            self.hardware.show_waiting(text)

    def _engine_ready(self, ready: EngineReady) -> None:
        first = not self.versions.get("TensorFlow")
        self.versions.update(ready.versions)
        self._engine_log = ready.log_file
        # TensorFlow's own warnings and errors go to that file, not the terminal
        if ready.log_file:
            process = QCoreApplication.translate(
                "BackgroundWork", "pid {pid}; its log: {log}").format(pid=ready.pid,
                                                                     log=ready.log_file)
        else:
            process = QCoreApplication.translate("BackgroundWork", "pid {pid}").format(
                pid=ready.pid)
        if first:
            self.notices.log(QCoreApplication.translate(
                "BackgroundWork", "TensorFlow {tensorflow}, Keras {keras} loaded in the engine "
                "process ({process})").format(tensorflow=ready.versions["TensorFlow"],
                                              keras=ready.versions["Keras"], process=process))
        else:
            self.notices.log(QCoreApplication.translate(
                "BackgroundWork", "a fresh engine process is ready ({process})").format(
                    process=process))
        memory = ready.memory
        if memory.status in ("applied", "failed", "needs_restart"):
            self.notices.log(QCoreApplication.translate(
                "BackgroundWork", "GPU memory: {message}").format(message=memory.message),
                "info" if memory.ok else "warning")
        self.notices.status(QCoreApplication.translate("BackgroundWork", "Ready"))
        self.state.update(engine="ready")
        self.tensorflow_ready.emit()
        if first or self.check is None:
            self.run_check(measure=False)
        self.request_preview()

    def _load_failed(self, message: str) -> None:
        self.state.update(engine="failed")
        self.notices.status(QCoreApplication.translate("BackgroundWork",
                                                       "TensorFlow could not load"))
        self.hardware.show_error(QCoreApplication.translate(
            "BackgroundWork", "TensorFlow could not load: {reason}").format(reason=message))
        self.notices.banner(QCoreApplication.translate(
            "BackgroundWork", "TensorFlow could not load, so nothing can train: {reason}. "
            "Reinstall it (pip install -e .) and restart mpstudio.").format(reason=message),
            "error")
        self.notices.log(message, "error")

    def _engine_ended(self, end: EngineEnd) -> None:
        """The engine process ended under work or while idle: a new one is starting."""
        self.state.update(engine="starting")
        self.notices.status(QCoreApplication.translate("BackgroundWork",
                                                       "starting a fresh engine process…"))
        if not end.requested:
            if self._engine_log:
                text = QCoreApplication.translate(
                    "BackgroundWork", "{reason}; starting a fresh engine process (what it "
                    "printed is in {log})").format(reason=end.message, log=self._engine_log)
            else:
                text = QCoreApplication.translate(
                    "BackgroundWork", "{reason}; starting a fresh engine process").format(
                        reason=end.message)
            self.notices.log(text, "error")
            if not end.doing:  # a job's own failure (a run's banner) says more
                self.notices.banner(QCoreApplication.translate(
                    "BackgroundWork", "The engine process {how} while idle. A fresh one is "
                    "starting; your setup is unchanged.").format(how=end.how), "error")

    # ------------------------------------------------------------- hardware
    def run_check(self, measure: bool, seconds: float = 0.5) -> None:
        if not self.state.idle:
            if not self.measuring:  # the panel went busy on the click: give it back
                self.hardware.set_busy(False)
            return
        job = self.engine.submit(
            HardwareCheckRequest(measure, seconds, self.setup.spec()),
            describe="the measurement" if measure else "the hardware check",
            parent=self)  # EngineEnd words these
        if measure:
            job.progress.connect(self.hardware.set_progress)
        job.on_result(self._checked)
        job.errored.connect(lambda message: self._check_failed(job, message))
        job.finished.connect(self._check_ended)
        self._hardware_job = job
        self.hardware.set_busy(True, QCoreApplication.translate("BackgroundWork", "Measuring…")
                               if measure else QCoreApplication.translate(
                                   "BackgroundWork", "Checking the hardware…"))
        if measure:
            self.notices.log(QCoreApplication.translate(
                "BackgroundWork", "measuring float32, float16 and bfloat16 kernels ({seconds} "
                "s a case)").format(seconds=f"{seconds:g}"))
        self.state.update(measuring=True)

    def stop_measuring(self) -> None:
        if self._hardware_job is not None:
            self._hardware_job.cancel()

    def _check_failed(self, job: EngineJob[HardwareCheck], message: str) -> None:
        if message == "cancelled":
            return
        self.hardware.show_error(message)
        end = job.engine_end
        if end is None or end.requested:  # an unasked-for end is logged by _engine_ended
            self.notices.log(message, "error")

    def _check_ended(self) -> None:
        self._hardware_job = None
        self.hardware.set_busy(False)
        self.state.update(measuring=False)

    def apply_memory(self, settings: Any) -> None:
        job = self.engine.submit(ApplyMemoryRequest(settings),
                                 describe="applying the GPU memory settings", parent=self)
        job.on_result(self._memory_applied)
        job.errored.connect(self._memory_failed)

    def _memory_applied(self, result: MemoryApplyResult) -> None:
        self.hardware.show_memory_result(result.status, result.message)
        self.notices.log(QCoreApplication.translate(
            "BackgroundWork", "GPU memory: {message}").format(message=result.message),
            "info" if result.ok else "warning")

    def _memory_failed(self, message: str) -> None:
        self.hardware.show_memory_result("failed", message)
        self.notices.log(QCoreApplication.translate(
            "BackgroundWork", "GPU memory: {message}").format(message=message), "warning")

    # ------------------------------------------------------ data and model
    def inspect_dataset(self) -> None:
        dataset = self.setup.dataset.dataset()
        picker = self.setup.dataset
        if is_registered(dataset) and not availability(dataset).offline:
            entry = dataset_entry(dataset)
            picker.set_summary(QCoreApplication.translate(
                "BackgroundWork", "{description}\n{availability} (with progress, when you "
                "click Run)").format(description=_(entry.description),
                                     availability=availability(dataset).detail))
            self.request_preview()
            return
        if dataset in self._reports:
            self._show_report(dataset, self._reports[dataset])
            return
        picker.set_summary(QCoreApplication.translate("BackgroundWork", "reading…"))
        job = self.engine.submit(
            InspectDatasetRequest(dataset, picker.options()), describe=f"reading {dataset}",
            shown=QCoreApplication.translate("BackgroundWork", "reading {dataset}").format(
                dataset=dataset), parent=self)
        job.on_result(lambda report: self._inspected(dataset, report))
        job.errored.connect(lambda message: self._inspect_failed(dataset, message))

    def _inspected(self, dataset: str, report: DataReport) -> None:
        self._reports[dataset] = report
        if self.setup.dataset.dataset() == dataset:
            self._show_report(dataset, report)

    def _inspect_failed(self, dataset: str, message: str) -> None:
        if message == "cancelled":
            return
        if self.setup.dataset.dataset() == dataset:
            self.setup.dataset.set_summary(message, problem=True)
            self.setup.layers.show_note(QCoreApplication.translate(
                "BackgroundWork", "No preview: the data could not be read."))
        self.notices.log(message, "error")

    def _show_report(self, dataset: str, report: DataReport) -> None:
        split = self.setup.spec().validation_split
        self.setup.dataset.set_summary(describe_report(report, split))
        self.request_preview()

    def model_inputs(self) -> tuple[tuple[int, ...], int, float | None] | None:
        """The selected dataset's input shape, class count and the scale the model applies
        to its uint8 images (None: float inputs), when known."""
        dataset = self.setup.dataset.dataset()
        if dataset in self._reports:
            report = self._reports[dataset]
            return tuple(report.input_shape), report.num_classes, report.input_scale
        if is_registered(dataset):
            entry = dataset_entry(dataset)
            if entry.input_shape and entry.num_classes:
                return tuple(entry.input_shape), entry.num_classes, entry.input_scale
        return None

    @property
    def preview_pending(self) -> bool:
        """A model preview is waiting to be sent or is running in the engine."""
        return self._preview_timer.isActive() or self._preview_job is not None

    def request_preview(self) -> None:
        if self.state.training:
            return  # the table shows the running model
        self._preview_timer.start()

    def _submit_preview(self) -> None:
        layers = self.setup.layers
        if not self.state.ready:
            layers.show_note(QCoreApplication.translate(
                "BackgroundWork", "The layer table appears when TensorFlow has loaded."))
            return
        if self.state.training:
            return
        inputs = self.model_inputs()
        if inputs is None:
            layers.show_note(QCoreApplication.translate(
                "BackgroundWork", "The layer table appears once the data has been read."))
            return
        spec = self.setup.spec()
        if self._preview_job is not None:
            self._preview_job.cancel()  # superseded
        shape, classes, scale = inputs
        job = self.engine.submit(ModelPreviewRequest(
            spec.template, shape, classes, spec.precision, input_scale=scale,
            batch_size=spec.batch_size, float32_layers=tuple(spec.float32_layers),
            run_spec=spec),  # its optimizer and loss scaling: the memory estimate
            describe=f"building {spec.template}", shown=QCoreApplication.translate(
                "BackgroundWork", "building {template}").format(template=spec.template),
            parent=self)
        template = spec.template
        job.on_result(lambda summary: self._previewed(job, summary, template))
        job.errored.connect(lambda message: self._preview_failed(job, message))
        self._preview_job = job

    def _previewed(self, job: EngineJob[ModelSummary], summary: ModelSummary,
                   template: str) -> None:
        if job is self._preview_job:
            self._preview_job = None
        if not job.cancelled and not self.state.training:
            self.setup.layers.show_summary(summary, template)

    def _preview_failed(self, job: EngineJob[ModelSummary], message: str) -> None:
        if job is self._preview_job:
            self._preview_job = None
        if message != "cancelled" and not job.cancelled:
            self.setup.layers.show_note(QCoreApplication.translate(
                "BackgroundWork", "No preview: {reason}").format(reason=message))

    # --------------------------------------------------------- hardware result
    def _checked(self, check: HardwareCheck) -> None:
        self.check = check
        self.hardware.show_check(check)
        advice = check.advice
        first = self.setup.first_comparison and not self.setup.precision_picked
        selected = (first and best_half_policy(advice)) or advice.run_policy
        self.setup.set_verdicts(verdict_marks(advice, advice.run_device), advice.run_device,
                                selected)
        self.setup.set_strategy_options(strategy_options(check.report, os.environ), os.environ)
        self.device_label.setText(QCoreApplication.translate("MainWindow", "device: {device}")
                                  .format(device=advice.run_description or advice.run_device))
        self.notices.log(QCoreApplication.translate(
            "BackgroundWork", "recommended here: {policy} on {device}: {reason}").format(
                policy=advice.run_policy, device=advice.run_device,
                reason=render(advice.run_reason)), "note")
        for device in advice.devices:
            for note in device.notes:
                self.notices.log(f"{device.device}: {render(note)}", "note")
        if check.stopped:
            self.notices.log(QCoreApplication.translate(
                "BackgroundWork", "measurement stopped: verdicts use the cases that finished"),
                "warning")
        if first and selected != "float32" and not self._first_told:
            self._first_told = True
            text = QCoreApplication.translate(
                "BackgroundWork", "Your first run compares {policy} with float32 on {device}: "
                "speed, memory and accuracy side by side, with a verdict on whether mixed "
                "precision pays here ({recommended} is recommended). Untick Compare with "
                "float32 for a single run.").format(
                    policy=selected, device=advice.run_description or advice.run_device,
                    recommended=advice.run_policy)
            self.notices.banner(text, "info")
            self.notices.log(text, "note")
        self.hardware_checked.emit(check)
