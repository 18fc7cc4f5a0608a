"""Every piece of work the window can ask of its engine process, by request type.

A job gets a ``JobContext`` (``emit`` for events, ``progress``, ``should_stop``), the
``EngineMemory`` and its typed request (service/job_requests.py), and returns the
plain dataclass the request names as its result. What must stay in the engine (the
models just trained, for export) stays in ``EngineMemory``.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden
from mpstudio.engine.service.job_requests import (
    ApplyMemoryRequest,
    BatchFindRequest,
    DoctorRequest,
    ExportModelRequest,
    FetchFilesRequest,
    HardwareCheckRequest,
    HistoryRowsRequest,
    InspectDatasetRequest,
    JobRequest,
    ListFolderRequest,
    ModelPreviewRequest,
    TensorBoardRequest,
    TrainRequest,
    UnreadableRequest,
)

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from mpstudio.engine.batch_search.finder import BatchSearch
    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.doctor.checks import DoctorReport
    from mpstudio.engine.export.results import ExportOutcome
    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
    from mpstudio.engine.history.mirror_rows import HistoryRows
    from mpstudio.engine.model_summary import ModelSummary
    from mpstudio.engine.prediction.for_hardware import Workload
    from mpstudio.engine.run_session import TrainingOutcome
    from mpstudio.engine.service.file_fetch import FetchedFiles
    from mpstudio.engine.service.folder_listing import FolderListing
    from mpstudio.engine.service.served_tensorboard import TensorBoardAddress
    from mpstudio.engine.spec import RunSpec


class JobContext(Protocol):
    """What a running job can do besides return: a Reporter, plus progress."""

    def emit(self, event: Any) -> None: ...
    def should_stop(self) -> bool: ...
    def progress(self, done: int, total: int, text: str) -> None: ...


class EngineMemory:
    """The models of the last training job, by handle, so "export the run you just
    trained" works even when the history could not keep them. A new training job lets
    the previous ones go (device memory is the scarce thing)."""

    def __init__(self) -> None:
        self._models: dict[int, Any] = {}
        self._handles = itertools.count(1)

    def replace(self, models: list[Any]) -> list[int | None]:
        self._models.clear()
        handles: list[int | None] = []
        for model in models:
            if model is None:
                handles.append(None)
            else:
                handles.append(next(self._handles))
                self._models[handles[-1]] = model  # type: ignore[index]
        return handles

    def forget(self) -> None:
        self._models.clear()

    def model(self, handle: int | None) -> Any:
        return self._models.get(handle) if handle is not None else None


def hardware_check(ctx: JobContext, memory: EngineMemory,
                   request: HardwareCheckRequest) -> HardwareCheck:
    """``request.spec``: the setup's model and data, predicted on each device so that a
    verdict the device did not measure comes from the model the user will train; with
    ``measure``, also timed under each precision on this machine's device."""
    from mpstudio.engine.hardware.check import run_hardware_check

    measure = request.measure
    with tensorflow_logs_hidden():
        return run_hardware_check(measure, request.seconds_per_case,
                                  ctx.progress if measure else None, ctx.should_stop,
                                  workload=_workload(request.spec), model_spec=request.spec)


def _workload(spec: RunSpec | None) -> Workload | None:
    """The setup's workload; None (rule-based verdicts) where its data cannot be read."""
    from mpstudio.engine.prediction.for_hardware import Workload

    if spec is None:
        return None
    try:
        return Workload.of_spec(spec)
    except Exception:  # data not on disk yet, a file that cannot be read
        log.info("no workload for the hardware check's predictions", exc_info=True)
        return None


def apply_memory(ctx: JobContext, memory: EngineMemory,
                 request: ApplyMemoryRequest) -> MemoryApplyResult:
    from mpstudio.engine.hardware.gpu_memory import apply_gpu_memory

    if request.save:  # this machine's settings file: the next engine starts with them
        from mpstudio.engine.app_settings import save_gpu_memory

        save_gpu_memory(request.settings)  # SettingsError: said as the job's failure
    return apply_gpu_memory(request.settings)


def inspect_dataset(ctx: JobContext, memory: EngineMemory,
                    request: InspectDatasetRequest) -> DataReport:
    """What a dataset holds. Only asked for data that is on disk (never downloads)."""
    from mpstudio.engine.datasets.registry import inspect_dataset as inspect

    return inspect(request.dataset, request.options)


def model_preview(ctx: JobContext, memory: EngineMemory,
                  request: ModelPreviewRequest) -> ModelSummary:
    """The template built under the request's policy: parameters and each layer's
    dtypes. With the request's ``run_spec`` (its optimizer, loss scaling, batch) the
    summary carries the device memory estimates under that policy and float32."""
    import dataclasses

    from mpstudio.engine.model_summary import describe_model
    from mpstudio.engine.templates.registry import build_model
    from mpstudio.engine.templates.user_model import (
        data_or_own_inputs,
        is_model_file,
        own_inputs_text,
    )

    template, input_shape, num_classes = (request.template, request.input_shape,
                                          request.num_classes)
    policy, input_scale, batch_size = request.policy, request.input_scale, request.batch_size
    float32_layers, run_spec = request.float32_layers, request.run_spec

    inputs_note = ""
    if is_model_file(template):  # one the data does not fit: shown on its own input
        input_shape, num_classes, input_scale, inputs_note = data_or_own_inputs(
            template, input_shape, num_classes, input_scale)
    model = build_model(template, input_shape, num_classes, policy, input_scale=input_scale,
                        float32_layers=float32_layers)
    if policy == "float8":  # the layers that will run float8, as a run quantizes them
        from mpstudio.engine.float8 import quantize_float8

        quantize_float8(model)
    summary = dataclasses.replace(describe_model(model, policy, batch_size),
                                  inputs_note=inputs_note)
    own = own_inputs_text(input_shape, num_classes) if inputs_note else ""
    if run_spec is not None:
        from mpstudio.engine.memory_estimate import preview_estimates

        run_spec = run_spec.replace(template=template, precision=policy,
                                    batch_size=batch_size or run_spec.batch_size)
        from mpstudio.engine.prediction.for_setup import payoff_text

        summary = dataclasses.replace(summary, memory=preview_estimates(
            model, run_spec, input_shape, num_classes, input_scale), payoff=payoff_text(
            template, input_shape, num_classes, input_scale, float32_layers,
            run_spec.batch_size, policy, inputs=own))
    return summary


def train(ctx: JobContext, memory: EngineMemory, request: TrainRequest) -> TrainingOutcome:
    """One run, or a comparison, recorded in the history as it goes (run_session)."""
    from mpstudio.engine.datasets.errors import DataLoadStopped
    from mpstudio.engine.run_session import (
        Session,
        TrainingOutcome,
        train_in_worker_process,
        train_session,
    )

    spec, comparison = request.spec, request.comparison
    memory.forget()  # the last job's models: let them go before this one builds
    try:
        if spec.distribute.strategy == "multiworker" and comparison is None:
            session = train_in_worker_process(spec, ctx)
        else:
            session: Session = train_session(spec, ctx, comparison)  # type: ignore[no-redef]
    except DataLoadStopped as exc:
        return TrainingOutcome([], stopped_while_loading=str(exc))
    return session.outcome(memory.replace([r.model for r in session.results]))


def export_run(ctx: JobContext, memory: EngineMemory,
               request: ExportModelRequest) -> list[ExportOutcome]:
    """Export the model kept under ``model_handle`` (a run just trained), or the kept
    model of history run ``run_id``, to each requested format, verifying each; the
    history notes where each file went. ExportError: the model cannot be loaded."""
    from mpstudio.engine.export.exporter import export_models
    from mpstudio.engine.export.results import ExportError
    from mpstudio.engine.export.source import source_from_model, source_from_run

    run_id = request.run_id
    model = memory.model(request.model_handle)
    if model is not None:
        source = source_from_model(model, request.spec, run_id)
    elif run_id is not None:
        source = source_from_run(run_id)
    else:
        raise ExportError(_("the run's model is no longer in memory (the engine restarted) "
                            "and the history did not keep it: train the run again"))
    formats = request.formats
    if request.staged:  # for the window to copy back (service/file_fetch.py)
        from mpstudio.engine.service.file_fetch import staging_folder

        folder = staging_folder()
        formats = tuple(dataclasses.replace(f, path=folder / Path(f.path).name)
                        for f in formats)
    with tensorflow_logs_hidden():
        outcomes = export_models(source, formats, overwrite=request.overwrite,
                                 progress=ctx.progress, should_stop=ctx.should_stop)
    if run_id is not None and not request.staged:  # History shows where the model went
        for outcome in outcomes:
            if outcome.result is not None:
                _record_model_path(run_id, outcome.result.path)
    return outcomes


def _record_model_path(run_id: int, path: Path) -> None:
    """Best effort: the file is saved either way."""
    from mpstudio.engine.history.store import HistoryError, RunStore

    try:
        with RunStore() as store:
            store.add_model_path(run_id, path)
    except (HistoryError, sqlite3.Error):
        pass


def doctor(ctx: JobContext, memory: EngineMemory, request: DoctorRequest) -> DoctorReport:
    """The whole training check; each check row is an event as it completes."""
    with tensorflow_logs_hidden():
        from mpstudio.engine.doctor.doctor import run_doctor

    return run_doctor(request.quick, progress=ctx.progress, should_stop=ctx.should_stop,
                      on_check=ctx.emit)


def find_batch(ctx: JobContext, memory: EngineMemory,
               request: BatchFindRequest) -> BatchSearch:
    """The largest batch of float32 and of the run's precision, each try in a process
    of its own (batch_search.finder); each try is an event as it ends. The window
    restarts the engine first, so this process holds no device memory the tries need."""
    from mpstudio.engine.batch_search.finder import find_largest_batches
    from mpstudio.engine.batch_search.finder_text import tried_line

    options = request.options
    memory.forget()
    total = 2 * options.max_tries
    done = 0

    def tried(event: Any) -> None:
        nonlocal done
        done += 1
        ctx.emit(event)
        ctx.progress(min(done, total), total, tried_line(event))

    return find_largest_batches(request.spec, options, tried, ctx.should_stop)


def history_rows(ctx: JobContext, memory: EngineMemory,
                 request: HistoryRowsRequest) -> HistoryRows:
    """What a window's copy of this engine's history lacks (history/mirror_rows.py)."""
    from mpstudio.engine.history.mirror_rows import read_rows
    from mpstudio.engine.history.store import RunStore

    with RunStore() as store:
        return read_rows(store, request.after_id, request.refresh)


def fetch_files(ctx: JobContext, memory: EngineMemory,
                request: FetchFilesRequest) -> FetchedFiles:
    """A file or folder here, to the window, chunk by chunk (service/file_fetch.py)."""
    from mpstudio.engine.service.file_fetch import send_files

    return send_files(request.path, ctx.emit, ctx.progress, ctx.should_stop,
                      remove_after=request.remove_after)


def tensorboard(ctx: JobContext, memory: EngineMemory,
                request: TensorBoardRequest) -> TensorBoardAddress:
    """TensorBoard on the runs' logs here, for a window that forwards its port."""
    from mpstudio.engine.service.served_tensorboard import serve_tensorboard

    return serve_tensorboard(request.run_ids, ctx.should_stop)


def list_folder(ctx: JobContext, memory: EngineMemory,
                request: ListFolderRequest) -> FolderListing:
    """A folder here, for the window's file dialog (service/folder_listing.py)."""
    from mpstudio.engine.service.folder_listing import list_folder as listing

    return listing(request.path, request.suffixes, request.folders_only)


JOBS: dict[type[JobRequest[Any]], Callable[[JobContext, EngineMemory, Any], Any]] = {
    HardwareCheckRequest: hardware_check,
    ApplyMemoryRequest: apply_memory,
    InspectDatasetRequest: inspect_dataset,
    ModelPreviewRequest: model_preview,
    TrainRequest: train,
    ExportModelRequest: export_run,
    DoctorRequest: doctor,
    BatchFindRequest: find_batch,
    HistoryRowsRequest: history_rows,
    FetchFilesRequest: fetch_files,
    TensorBoardRequest: tensorboard,
    ListFolderRequest: list_folder,
}


class UnknownJob(LookupError):
    """A request this engine has no job for; its message is for people."""


def run_job(ctx: JobContext, memory: EngineMemory, request: object) -> Any:
    """The job the request's type names, run; UnknownJob for one this engine lacks (a
    window newer than its engine): the job fails with that, the engine goes on."""
    if isinstance(request, UnreadableRequest):
        raise UnknownJob(_("the engine process cannot read the window's {kind} (is the "
                           "window another version of mpstudio?): {error}").format(
                               kind=request.kind, error=request.error))
    job = JOBS.get(type(request))  # type: ignore[arg-type]
    if job is None:
        raise UnknownJob(_("the engine has no job {job!r}").format(
            job=type(request).__name__))
    return job(ctx, memory, request)
