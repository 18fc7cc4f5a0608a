"""What the setup panel shows of its data and model, read in the engine process: the
selected dataset's summary and the layer table of the model it sets up (built under
its precision, with the memory estimate). Quick changes coalesce into one preview; a
new one supersedes the last. It observes the state: the preview waits for a ready
engine, and comes back to the form's model once a run has ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from mpstudio.engine.datasets.registry import availability, dataset_entry, is_registered
from mpstudio.engine.i18n import _
from mpstudio.engine.service.job_requests import InspectDatasetRequest, ModelPreviewRequest
from mpstudio.ui.setup.dataset_picker import describe_report

if TYPE_CHECKING:
    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.model_summary import ModelSummary
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.setup.setup_panel import SetupPanel

PREVIEW_DEBOUNCE_MS = 150


class SetupPreview(QObject):
    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 setup: SetupPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine, self.state, self.notices, self.setup = engine, state, notices, setup
        self._reports: dict[str, DataReport] = {}
        self._preview_job: EngineJob[ModelSummary] | None = None
        self._timer = QTimer(self)  # coalesces quick changes into one preview
        self._timer.setObjectName("previewDebounce")
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DEBOUNCE_MS)
        self._timer.timeout.connect(self._submit_preview)
        self._seen = (state.ready, state.training)
        setup.dataset.changed.connect(self.inspect_dataset)
        setup.model_inputs_changed.connect(self.request_preview)
        # the batch and the optimizer change the memory estimate (and, under a mixed
        # policy, the Tensor Core check)
        setup.batch_size.valueChanged.connect(lambda *_: self.request_preview())
        setup.optimizer.currentIndexChanged.connect(lambda *_: self.request_preview())
        state.observe(self._follow_state)

    def _follow_state(self, state: WorkbenchState) -> None:
        was_ready, was_training = self._seen
        self._seen = (state.ready, state.training)
        # a fresh engine; or a run ended (the table showed the run's model)
        if (state.ready and not was_ready) or (was_training and not state.training):
            self.request_preview()

    def stop_timers(self) -> None:
        self._timer.stop()

    # ------------------------------------------------------------- the data
    def inspect_dataset(self) -> None:
        dataset = self.setup.dataset.dataset()
        picker = self.setup.dataset
        if is_registered(dataset) and not availability(dataset).offline:
            entry = dataset_entry(dataset)
            picker.set_summary(QCoreApplication.translate(
                "SetupPreview", "{description}\n{availability} (with progress, when you "
                "click Run)").format(description=_(entry.description),
                                     availability=availability(dataset).detail))
            self.request_preview()
            return
        if dataset in self._reports:
            self._show_report(dataset, self._reports[dataset])
            return
        picker.set_summary(QCoreApplication.translate("SetupPreview", "reading…"))
        job = self.engine.submit(
            InspectDatasetRequest(dataset, picker.options()), describe=f"reading {dataset}",
            shown=QCoreApplication.translate("SetupPreview", "reading {dataset}").format(
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
                "SetupPreview", "No preview: the data could not be read."))
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

    # ------------------------------------------------------------ the model
    @property
    def preview_pending(self) -> bool:
        """A model preview is waiting to be sent or is running in the engine."""
        return self._timer.isActive() or self._preview_job is not None

    def request_preview(self) -> None:
        if self.state.training:
            return  # the table shows the running model
        self._timer.start()

    def _submit_preview(self) -> None:
        layers = self.setup.layers
        if not self.state.ready:
            layers.show_note(QCoreApplication.translate(
                "SetupPreview", "The layer table appears when TensorFlow has loaded."))
            return
        if self.state.training:
            return
        inputs = self.model_inputs()
        if inputs is None:
            layers.show_note(QCoreApplication.translate(
                "SetupPreview", "The layer table appears once the data has been read."))
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
                "SetupPreview", "building {template}").format(template=spec.template),
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
                "SetupPreview", "No preview: {reason}").format(reason=message))
