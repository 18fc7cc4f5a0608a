"""The Hardware panel's work in the engine process: the hardware check (once the
engine is first ready, and on Check), the measurement (Measure, Stop: the kernels, then
the setup's model) and the GPU memory settings. It observes the state: the first check
waits for a ready engine, and the panel's buttons follow a run. What a check means
beyond this panel (the setup's verdict marks and payoff line, the status bar's device)
is for whoever connects to ``checked``. The setup's model as measured holds until the
setup's model, batch or data changes (``setup_changed``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from mpstudio.engine.hardware.check import MODEL_SECONDS_PER_CASE
from mpstudio.engine.said import render
from mpstudio.engine.service.job_requests import ApplyMemoryRequest, HardwareCheckRequest
from mpstudio.engine.templates.user_model import model_name

if TYPE_CHECKING:
    from mpstudio.engine.app_settings import GpuMemorySettings
    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
    from mpstudio.engine.spec import RunSpec
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.hardware.hardware_panel import HardwarePanel
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices


def setup_key(spec: RunSpec) -> tuple[Any, ...]:
    """What a measurement of the setup's model depends on: the model (its pinned layers
    too), the batch and the data."""
    return (spec.template, spec.batch_size, spec.dataset, repr(sorted(
        spec.dataset_options.items())), tuple(spec.float32_layers))


class HardwareJobs(QObject):
    checked = Signal(object)  # HardwareCheck, once the panel and the log show it

    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 panel: HardwarePanel, setup_spec: Callable[[], RunSpec],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine, self.state, self.notices, self.panel = engine, state, notices, panel
        self._setup_spec = setup_spec  # the run set up: its model predicted per device
        self.check: HardwareCheck | None = None
        self._job: EngineJob[HardwareCheck] | None = None
        self._measured_setup: tuple[Any, ...] | None = None  # what the model timed was
        self._engine_state = state.engine
        panel.check_requested.connect(lambda: self.run_check(measure=False))
        panel.measure_requested.connect(lambda seconds: self.run_check(True, seconds))
        panel.stop_requested.connect(self.stop_measuring)
        panel.memory_settings_changed.connect(self.apply_memory)
        engine.starting.connect(self._engine_starting)
        engine.load_failed.connect(self._load_failed)
        state.observe(self._follow_state)
        panel.show_waiting(QCoreApplication.translate("HardwareJobs", "Loading TensorFlow…"))

    @property
    def measuring(self) -> bool:
        return self.state.measuring

    def machine_changed(self) -> None:
        """The engine moved to another machine: its check runs afresh once it is ready."""
        self.check = None
        self._measured_setup = None
        target = self.engine.target
        self.panel.memory_form.set_server("" if target.is_local else target.label)
        self.panel.show_waiting(QCoreApplication.translate("HardwareJobs",
                                                           "Loading TensorFlow…"))

    # ------------------------------------------------------------ the engine
    def _follow_state(self, state: WorkbenchState) -> None:
        self.panel.set_run_active(state.training)
        became_ready = state.ready and self._engine_state != "ready"
        self._engine_state = state.engine
        if became_ready and self.check is None:  # the first check: no click asked for it
            self.run_check(measure=False)

    def _engine_starting(self, note: Any) -> None:
        if self.check is None:  # the panel still waits for its first check: say why
            self.panel.show_waiting(render(note))

    def _load_failed(self, message: str) -> None:
        self.panel.show_error(QCoreApplication.translate(
            "HardwareJobs", "TensorFlow could not load: {reason}").format(reason=message))

    # ------------------------------------------------------ check and measure
    def run_check(self, measure: bool, seconds: float = 0.5) -> None:
        if not self.state.idle:
            if not self.measuring:  # the panel went busy on the click: give it back
                self.panel.set_busy(False)
            return
        spec = self._setup_spec()
        job = self.engine.submit(
            HardwareCheckRequest(measure, seconds, spec),
            describe="the measurement" if measure else "the hardware check",
            parent=self)  # EngineEnd words these
        job.on_result(lambda check: self._remember_setup(check, spec))
        if measure:
            job.progress.connect(self.panel.set_progress)
        job.on_result(self._checked)
        job.errored.connect(lambda message: self._check_failed(job, message))
        job.finished.connect(self._check_ended)
        self._job = job
        self.panel.set_busy(True, QCoreApplication.translate("HardwareJobs", "Measuring…")
                            if measure else QCoreApplication.translate(
                                "HardwareJobs", "Checking the hardware…"))
        if measure:
            self.notices.log(QCoreApplication.translate(
                "HardwareJobs", "measuring float32, float16 and bfloat16 kernels ({seconds} "
                "s a case), then {model} at batch {batch} under each precision ({model_seconds} "
                "s each)").format(seconds=f"{seconds:g}", model=model_name(spec.template),
                                  batch=spec.batch_size,
                                  model_seconds=f"{MODEL_SECONDS_PER_CASE * seconds:g}"))
        self.state.update(measuring=True)

    def _remember_setup(self, check: HardwareCheck, spec: RunSpec) -> None:
        self._measured_setup = (setup_key(spec) if check.model_measurement is not None
                                else None)

    def setup_changed(self) -> None:
        """The setup's form changed: a measurement of another model, batch or data no
        longer says anything about it, and its verdicts go back to what the kernels, the
        prediction and the rules say."""
        check = self.check
        if (check is None or check.model_measurement is None or self._measured_setup is None
                or self._measured_setup == setup_key(self._setup_spec())):
            return
        self._measured_setup = None
        self.check = check.without_model_measurement()
        self.panel.show_check(self.check)
        self.notices.log(QCoreApplication.translate(
            "HardwareJobs", "the setup changed: the measurement of {model} at batch {batch} "
            "no longer applies, so the verdicts are predicted again").format(
                model=model_name(check.model_measurement.template),
                batch=check.model_measurement.batch_size))
        self.checked.emit(self.check)

    def stop_measuring(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _checked(self, check: HardwareCheck) -> None:
        self.check = check
        self.panel.show_check(check)
        advice = check.advice
        self.notices.log(QCoreApplication.translate(
            "HardwareJobs", "recommended here: {policy} on {device}: {reason}").format(
                policy=advice.run_policy, device=advice.run_device,
                reason=render(advice.run_reason)), "note")
        for device in advice.devices:
            for note in device.notes:
                self.notices.log(f"{device.device}: {render(note)}", "note")
        if check.stopped:
            self.notices.log(QCoreApplication.translate(
                "HardwareJobs", "measurement stopped: verdicts use the cases that finished"),
                "warning")
        self.checked.emit(check)
        self.setup_changed()  # while it was measured: then it no longer applies

    def _check_failed(self, job: EngineJob[HardwareCheck], message: str) -> None:
        if message == "cancelled":
            return
        self.panel.show_error(message)
        end = job.engine_end
        if end is None or end.requested:  # an unasked-for end is logged by EngineStartup
            self.notices.log(message, "error")

    def _check_ended(self) -> None:
        self._job = None
        self.panel.set_busy(False)
        self.state.update(measuring=False)

    # ----------------------------------------------------------- GPU memory
    def apply_memory(self, settings: GpuMemorySettings) -> None:
        target = self.engine.target  # a server's engine saves them there too
        job = self.engine.submit(ApplyMemoryRequest(settings, save=not target.is_local),
                                 describe="applying the GPU memory settings", parent=self)
        job.on_result(self._memory_applied)
        job.errored.connect(self._memory_failed)

    def _memory_applied(self, result: MemoryApplyResult) -> None:
        self.panel.show_memory_result(result.status, result.message)
        self.notices.log(QCoreApplication.translate(
            "HardwareJobs", "GPU memory: {message}").format(message=result.message),
            "info" if result.ok else "warning")

    def _memory_failed(self, message: str) -> None:
        self.panel.show_memory_result("failed", message)
        self.notices.log(QCoreApplication.translate(
            "HardwareJobs", "GPU memory: {message}").format(message=message), "warning")
